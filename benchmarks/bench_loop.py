"""The agent loop's own cost per model request on a long history.

    python benchmarks/bench_loop.py

A session holds a long history (~1,900 messages, ~97k estimated tokens: just under the
100k clearing trigger of a 1M window, so no compaction runs and every turn costs the same).
Each measured turn sends one request to an in-process model that answers at once; everything
else is real: turn context, ledger appends, the pre-request check, events, a view checkpoint
after every append. Side by side, in the same run: the time to serialise that
request to JSON (what any HTTP client must do anyway). Prints the ratio; asserts nothing.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from paicli_tui.config import load_settings
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.context.boundary import wrap_tool_result
from paicli_tui.core.contracts.llm import StreamDone
from paicli_tui.core.llm.openai_client import OpenAICompatibleClient
from paicli_tui.core.messages import Message, ToolCall

PAIRS = 600          # user / assistant-with-call / tool triples in the pre-built history
TURNS = 30


class InstantClient:
    provider, model, window = "bench", "bench-1", 1_000_000

    def __init__(self) -> None:
        self.seconds = 0.0

    async def stream(self, messages: Sequence[Message], tools: Sequence[dict] = (), *,
                     model: str | None = None) -> AsyncIterator[Any]:
        start = time.perf_counter()
        reply = StreamDone(Message.assistant("ok"), "stop")
        self.seconds += time.perf_counter() - start
        yield reply

    async def aclose(self) -> None:
        pass


def long_history(pairs: int) -> list[Message]:
    out: list[Message] = []
    for i in range(pairs):
        out.append(Message.user(f"请检查模块 {i} 的重试逻辑 and explain step {i}"))
        call = ToolCall(f"c{i}", "read_file", json.dumps({"path": f"src/m{i}.py"}))
        out.append(Message.assistant(f"Reading module {i}.", [call]))
        body = "".join(f"{n:>6}\tdef f_{i}_{n}(x): return x + {n}\n" for n in range(11))
        out.append(Message.tool(call.id, "read_file", wrap_tool_result("read_file", body)))
    return out


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "project").mkdir()
        settings = load_settings({}, {"PAICLI_HOME": str(root / "home")})
        client = InstantClient()
        session = await AgentSession.start(settings, root / "project", client=client)
        for message in long_history(PAIRS):
            session.append(message)
        wire = OpenAICompatibleClient(provider="x", base_url="http://127.0.0.1:9", model="m",
                                      window=1_000_000)
        loop_times, serialise_times = [], []
        # one warm-up turn fills the per-message estimate memo, as in a running session
        async for _ in session.run_turn("warm up"):
            pass
        for turn in range(TURNS):
            client.seconds = 0.0
            start = time.perf_counter()
            async for _ in session.run_turn(f"turn {turn}: next step"):
                pass
            loop_times.append(time.perf_counter() - start - client.seconds)
            start = time.perf_counter()
            json.dumps(wire.request_body(session.history, session.tool_schemas()))
            serialise_times.append(time.perf_counter() - start)
        tokens = session.estimate()
        messages = len(session.history)
        await wire.aclose()
        await session.aclose()
    loop_ms = statistics.median(loop_times) * 1000
    ser_ms = statistics.median(serialise_times) * 1000
    print(f"history: {messages:,} messages, ~{tokens:,} estimated tokens; {TURNS} turns of one "
          "request each")
    print(f"loop overhead per request (median):   {loop_ms:8.2f} ms")
    print(f"serialising the request (median):     {ser_ms:8.2f} ms")
    print(f"ratio loop / serialise:               {loop_ms / ser_ms:8.2f}")


if __name__ == "__main__":
    asyncio.run(main())
