"""The event loop's longest stall while a large tool result is admitted.

Prints figures; asserts nothing.

    python benchmarks/bench_tool_result_stall.py [--mb 19]

A real session reads a whole source file of ``--mb`` megabytes with ``read_file`` (a key is
configured, so redaction searches every transformed form of it); the result is redacted,
saved to ``.paicli/tool-outputs`` and replaced by a notice. A heartbeat task on the same loop
beats every millisecond; the longest gap between two beats is what a person feels as a frozen
TUI (no key read, nothing drawn). Side by side in one run:

- on the loop: the batch admitted on the event loop itself (as before; forced here by raising
  the inline limit), the whole redaction and save one stall;
- in a worker: the heavy part in a worker thread, scans in slices (now);
- key found: the same, the file holding the key reversed once (as ``rev`` prints it), so
  redaction also places the key in the text.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "agent"))

from agent_script import ScriptedClient, Step, call, drain  # noqa: E402

from paicli_tui.config import load_settings  # noqa: E402
from paicli_tui.core.agent.session import AgentSession  # noqa: E402
from paicli_tui.core.context import tool_results  # noqa: E402

LINE = "    def handle_retry(self, request, attempts=3):  # 重试三次后放弃\n"
KEY = "sk-bench-Zq81mWv0Lr5TbN3xJd7Y"


async def _turn(home: Path, project: Path) -> tuple[float, float, str]:
    settings = load_settings({"api_key": KEY},
                             {"PAICLI_HOME": str(home)})
    steps = [Step(calls=[call("read_file", path="big.py")]), Step(text="done")]
    session = await AgentSession.start(settings, project, client=ScriptedClient(steps))
    gaps = [0.0]
    last = time.perf_counter()

    async def heartbeat() -> None:
        nonlocal last
        while True:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps[0] = max(gaps[0], now - last)
            last = now

    ticking = asyncio.create_task(heartbeat())
    await asyncio.sleep(0.01)
    gaps[0], last = 0.0, time.perf_counter()
    started = time.perf_counter()
    await drain(session.run_turn("read big.py"))
    elapsed = time.perf_counter() - started
    await asyncio.sleep(0.01)  # the beat after a stall at the turn's very end counts too
    ticking.cancel()
    tool = next(m for m in session.history if m.tool_call_id)
    return gaps[0], elapsed, tool.meta.get("offload_path", "")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=19.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp, "project")
        project.mkdir()
        size = int(args.mb * 1_000_000)
        lines = LINE * (size // len(LINE.encode()) // 2)
        print(f"read_file of a {args.mb:g} MB file, admitted with a configured key")
        print(f"{'where':<14}{'longest stall':>15}{'turn':>10}  saved as")
        rows = {}
        real_inline = tool_results.INLINE_CHARS
        for label, inline, middle in (("on the loop", 10**12, ""),
                                      ("in a worker", real_inline, ""),
                                      ("key found", real_inline, KEY[::-1] + "\n")):
            (project / "big.py").write_text(lines + middle + lines)
            tool_results.INLINE_CHARS = inline
            home = Path(tmp, f"home-{len(rows)}")
            home.mkdir()
            stall, elapsed, path = asyncio.run(_turn(home, project))
            rows[label] = stall
            print(f"{label:<14}{stall * 1000:>12.0f} ms{elapsed:>8.2f} s  {path}")
        tool_results.INLINE_CHARS = real_inline
        print(f"longest stall, on the loop / in a worker: "
              f"{rows['on the loop'] / max(rows['in a worker'], 1e-9):.0f}x")


if __name__ == "__main__":
    main()
