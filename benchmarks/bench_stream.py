"""Render lag while a model streams 200 tokens/s into the chat (real AgentSession, scripted
model at the ChatClient protocol, headless 100×30).

Prints, per token: the lag from the model yielding it to the chat's Markdown stream taking
it (median, p95, max); the longest gap of a 10 ms UI ticker while streaming (how long the
interface could not react); and the wall time against the ideal tokens/rate.

``--history N`` puts N earlier turns on the screen first (each: a question, three tool
calls, a reply with a list and a code block: an hour of work is 40-60), and runs the stream
twice side by side: with far blocks parked (the product) and with parking switched off.

    python benchmarks/bench_stream.py [--tokens 1000] [--rate 200] [--history 60]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "ui"))
from ui_fakes import long_session_history  # noqa: E402 - the tests' hour of work

from paicli_tui.app import PaicliApp
from paicli_tui.config import load_settings
from paicli_tui.core.contracts.llm import StreamDelta, StreamDone, UsageReport
from paicli_tui.core.messages import Message
from paicli_tui.ui.core_backend import CoreBackend
from paicli_tui.ui.widgets import assistant_block
from paicli_tui.ui.widgets.prompt_input import PromptInput

# A reply shaped like a real one: sentences with inline code and bold, a paragraph break
# every ~40 tokens, a short list every ~120 and a code block every ~240.
WORDS = tuple(
    ("The ", "loader ", "reads ", "`config.toml` ", "then ", "the ", "**environment**, ",
     "and ", "flags ", "last. ") * 4
    + ("\n\n",)
) * 3 + ("\n\n- defaults\n- file\n- flags\n\n",) + tuple(
    ("Each ", "step ", "overrides ", "the ", "one ", "before. ") * 10
) + ("\n\n```python\nsettings = load_settings()\n```\n\n",)


class PacedClient:
    provider, model, window = "bench", "paced", 128_000

    def __init__(self, tokens: int, rate: float) -> None:
        self.tokens, self.rate = tokens, rate
        self.sent: list[tuple[float, int]] = []
        """(time, characters sent so far) for each token."""

    async def stream(self, messages: Any, tools: Any = (), *, model: str | None = None):
        start = time.perf_counter()
        text = []
        for i in range(self.tokens):
            # pace against the clock so slow handling cannot slow the producer down
            delay = start + i / self.rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            piece = WORDS[i % len(WORDS)]
            text.append(piece)
            self.sent.append((time.perf_counter(), sum(map(len, text))))
            yield StreamDelta(text=piece)
        yield StreamDone(Message.assistant("".join(text)), "stop",
                         UsageReport(1000, self.tokens, 0))

    async def aclose(self) -> None:
        return None


class Backend(CoreBackend):
    def __init__(self, settings: Any, root: Path, client: PacedClient) -> None:
        super().__init__(settings, root)
        self.client = client

    def build_client(self, settings: Any) -> Any:
        return self.client


async def run(tokens: int, rate: float, history: int = 0, parking: bool = True) -> None:
    from paicli_tui.ui.widgets import chat_parking

    if not parking:
        update = chat_parking.ChatParking.update
        chat_parking.ChatParking.update = lambda self, live: False  # type: ignore[method-assign]
    received: list[tuple[float, int]] = []
    """(time, characters shown so far) after each Markdown update."""
    original = assistant_block.AssistantBlock.append_text

    async def timed(self: Any, fragment: str) -> None:
        await original(self, fragment)
        received.append((time.perf_counter(), len(self.text)))

    assistant_block.AssistantBlock.append_text = timed  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        settings = load_settings({}, {"PAICLI_HOME": str(Path(tmp) / "home")})
        client = PacedClient(tokens, rate)
        app = PaicliApp(settings, project, backend=Backend(settings, project, client))
        ticks: list[float] = []
        async with app.run_test(size=(100, 30)) as pilot:
            for _ in range(40):
                await pilot.pause(0.05)
                if app.screen.session is not None:
                    break
            if history:
                await app.screen.render_history(long_session_history(history))
                await pilot.pause(1.0)
            app.set_interval(0.01, lambda: ticks.append(time.perf_counter()))
            app.screen.query_one(PromptInput).load_text("stream please")
            started = time.perf_counter()
            await pilot.press("enter")
            total = sum(len(WORDS[i % len(WORDS)]) for i in range(tokens))
            while (not received or received[-1][1] < total) and \
                    time.perf_counter() - started < tokens / rate * 5:
                await asyncio.sleep(0.05)
            finished = time.perf_counter()
            await app.workers.wait_for_complete()
    assistant_block.AssistantBlock.append_text = original  # type: ignore[method-assign]
    if not parking:
        chat_parking.ChatParking.update = update  # type: ignore[method-assign]
    if history:
        print(f"-- {history} earlier turns on the screen, parking {'on' if parking else 'off'}")
    lags = []
    for sent_at, chars in client.sent:  # when did the chat first show this token?
        shown = next((t for t, n in received if n >= chars), None)
        if shown is not None:
            lags.append((shown - sent_at) * 1000)
    lags.sort()
    window = [t for t in ticks if started <= t <= finished]
    gaps = [(b - a) * 1000 for a, b in zip(window, window[1:], strict=False)]
    print(f"tokens {tokens} at {rate:.0f}/s: {len(lags)} shown in {len(received)} "
          f"Markdown updates")
    print(f"lag model->chat  median {statistics.median(lags):6.1f} ms  "
          f"p95 {lags[int(len(lags) * 0.95) - 1]:6.1f} ms  max {lags[-1]:6.1f} ms")
    print(f"UI ticker (10 ms) longest gap while streaming: {max(gaps):6.1f} ms "
          f"(median {statistics.median(gaps):.1f} ms)")
    print(f"wall {finished - started:5.2f} s vs ideal {tokens / rate:5.2f} s "
          f"(ratio {(finished - started) / (tokens / rate):.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--history", type=int, default=0)
    args = parser.parse_args()
    if not args.history:
        asyncio.run(run(args.tokens, args.rate))
        return
    for parking in (True, False):
        asyncio.run(run(args.tokens, args.rate, args.history, parking))


if __name__ == "__main__":
    sys.exit(main())
