"""Compaction off the happy path: bounded side calls, the fallback's cost, a weak summariser.

Prints figures; asserts nothing.

    python benchmarks/bench_compaction_offpath.py

1. Summary side calls for one compaction of a history holding a 1 / 4 / 50 MB assistant
   reply (64k window), beside the calls the unbounded chunking would need for the same
   transcript (one per 60,000-character chunk + a merge).
2. The model-free digest: time for one fallback compaction and tokens before → after.
3. A weak summariser (answers in prose) over 30 growing turns in a 32k window: summary calls
   made, and the largest request estimate ÷ the window.
"""

from __future__ import annotations

import asyncio
import math
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "context"))

from ctx_fakes import FakeSummariser, SummaryModel  # noqa: E402

from paicli_tui.config import Settings  # noqa: E402
from paicli_tui.core.context.boundary import wrap_tool_result  # noqa: E402
from paicli_tui.core.context.fallback import digest_history  # noqa: E402
from paicli_tui.core.context.manager import ContextManager  # noqa: E402
from paicli_tui.core.context.offload import output_saver  # noqa: E402
from paicli_tui.core.context.profile import ContextProfile  # noqa: E402
from paicli_tui.core.context.summary import render_entries  # noqa: E402
from paicli_tui.core.contracts.session_state import SessionState  # noqa: E402
from paicli_tui.core.llm.complete import completer_for  # noqa: E402
from paicli_tui.core.messages import Message, ToolCall  # noqa: E402
from paicli_tui.core.tokens import estimate_request  # noqa: E402
from paicli_tui.paths import ProjectPaths  # noqa: E402


def _turns(count: int, size: int) -> list[Message]:
    msgs = [Message.system("system prompt")]
    for n in range(count):
        call = ToolCall(f"c{n}", "read_file", f'{{"path": "src/m{n}.py"}}')
        msgs += [Message.user(f"request {n}"), Message.assistant(tool_calls=[call]),
                 Message.tool(f"c{n}", "read_file", wrap_tool_result("read_file", "x" * size)),
                 Message.assistant(f"answer {n} " + "w" * size)]
    return msgs


def _manager(folder: Path, window: int, summarise) -> ContextManager:  # noqa: ANN001
    save = output_saver(ProjectPaths.for_dir(folder), SessionState("bench"))
    return ContextManager(replace(Settings(), summary_timeout_s=5), ContextProfile.for_window(
        window), summarise, save_output=save)


async def side_calls() -> None:
    print("1. summary side calls per compaction (64k window)")
    print(f"{'reply':>7} {'unbounded chunking':>19} {'now':>5} {'time':>8}")
    for mb in (1, 4, 50):
        msgs = [*_turns(6, 2_000), Message.user("write it"),
                Message.assistant("R" * (mb * 1_000_000)), Message.user("next")]
        old = math.ceil(sum(map(len, render_entries(msgs[:-1]))) / 60_000) + 1
        with tempfile.TemporaryDirectory() as folder:
            fake = FakeSummariser()
            started = time.perf_counter()
            prepared = await _manager(Path(folder), 64_000, fake).prepare(msgs)
            took = time.perf_counter() - started
        assert prepared.overflow is None
        print(f"{mb:>5}MB {old:>19,} {len(fake.calls):>5} {took * 1000:>6.0f}ms")


async def fallback_cost() -> None:
    print("\n2. the model-free digest (32k window, 400 turns before the cut)")
    msgs = _turns(400, 2_000)
    with tempfile.TemporaryDirectory() as folder:
        save = output_saver(ProjectPaths.for_dir(Path(folder)), SessionState("bench"))
        started = time.perf_counter()
        out, report = digest_history(msgs, 3, reason="bench", save=save)
        took = time.perf_counter() - started
    print(f"   time {took * 1000:.0f} ms, model calls 0, tokens {estimate_request(msgs):,} → "
          f"{estimate_request(out):,}, digest {len(report.summary or ''):,} characters")


async def weak_summariser() -> None:
    print("\n3. a prose-only summariser over 30 turns (32k window)")
    window = 32_000
    model = SummaryModel("prose")
    with tempfile.TemporaryDirectory() as folder:
        manager = _manager(Path(folder), window, completer_for(model))
        history = [Message.system("system prompt")]
        largest = 0
        compactions = 0
        for turn in range(30):
            history += [Message.user(f"turn {turn}: " + "log line ok\n" * 600)]
            for step in range(2):
                call = ToolCall(f"t{turn}s{step}", "read_file", '{"path": "f.txt"}')
                history += [Message.assistant(tool_calls=[call]),
                            Message.tool(call.id, "read_file",
                                         wrap_tool_result("read_file", "y" * 10_000))]
                prepared = await manager.prepare(history)
                history = prepared.messages
                largest = max(largest, prepared.estimated_tokens)
                compactions += any(r.tier == "digest" and r.changed for r in prepared.reports)
            history += [Message.assistant(f"turn {turn} done")]
    print(f"   summary calls {len(model.requests)}, digests {compactions}, largest request "
          f"{largest:,} tokens = {largest / window:.2f} of the window")


async def main() -> None:
    await side_calls()
    await fallback_cost()
    await weak_summariser()


if __name__ == "__main__":
    asyncio.run(main())
