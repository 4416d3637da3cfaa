"""Prefix stability of consecutive model requests over a scripted 20-turn session.

    python benchmarks/bench_prefix.py

A provider's prompt cache reuses the longest shared prefix of two requests. For each pair of
consecutive requests (outside compaction points, where the history is rewritten on purpose)
this prints the share of the earlier request's serialised bytes that is a prefix of the later
one. Requests are serialised in the order a model reads them: tool schemas, then messages.

Two placements of the same session, side by side:
- ours: byte-identical system prompt; date and retrieved memories ride in the newest user turn;
- reference: the system prompt is rebuilt every turn with that turn's memories and the date
  (the placement of the reference system), everything else equal.
Target for ours: ≥ 0.95. Prints figures; asserts nothing.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from paicli_tui.config import load_settings
from paicli_tui.core.agent.prompt import TURN_CONTEXT_CLOSE, TURN_CONTEXT_OPEN
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.contracts.asks import approve_all
from paicli_tui.core.contracts.events import ContextCompacted, RequestStarted
from paicli_tui.core.contracts.llm import StreamDone, UsageReport
from paicli_tui.core.contracts.services import ProjectRules
from paicli_tui.core.messages import Message, Role, ToolCall

TURNS = 20
WINDOW = 64_000


class ScriptClient:
    """Answers each turn with one or two tool calls, then text; records every request."""

    provider, model, window = "bench", "bench-1", WINDOW

    def __init__(self) -> None:
        self.requests: list[tuple[list[Message], list[dict[str, Any]]]] = []
        self.calls = 0

    async def stream(self, messages: Sequence[Message], tools: Sequence[dict] = (), *,
                     model: str | None = None) -> AsyncIterator[Any]:
        if not tools:  # summary or extraction request from the context engine
            titles = ("Current goal and success criteria",
                      "User requirements and confirmed decisions", "Work done and evidence",
                      "Open problems and next steps")
            yield StreamDone(Message.assistant("\n".join(f"## {t}\n- x" for t in titles)),
                             "stop")
            return
        self.requests.append((list(messages), list(tools)))
        since_user = 0
        for message in reversed(messages):
            if message.role is Role.USER:
                break
            since_user += message.role is Role.ASSISTANT
        if since_user < 2:
            self.calls += 1
            index = self.calls % 12
            call = ToolCall(f"c{self.calls}", "read_file", json.dumps({"path": f"m{index}.py"}))
            reply = Message.assistant("Looking.", [call])
        else:
            reply = Message.assistant(f"Done with step {self.calls}: the module looks fine.")
        yield StreamDone(reply, "stop", UsageReport(prompt_tokens=1, completion_tokens=1))

    async def aclose(self) -> None:
        pass


class VaryingMemory:
    """Different memories for every turn (as retrieval gives in a real session)."""

    def project_rules(self) -> ProjectRules:
        return ProjectRules("Use Python 3.11. Tests go in tests/.", files=("PAI.md",))

    def injection_block(self, query: str, budget_tokens: int) -> str:
        turn = query.split()[1].rstrip(":")
        return ("Long-term memories (clues to verify against the files):\n"
                f"- [2026-11-0{int(turn) % 9 + 1}] module m{turn} owns retry logic\n"
                f"- [2026-10-1{int(turn) % 9}] the person prefers small commits (turn {turn})")

    def tools(self) -> list:
        return []

    def note_tool_result(self, *args: object) -> None:
        pass

    async def after_turn(self, *args: object) -> list[str]:
        return []


def serialise(messages: Sequence[Message], tools: Sequence[dict]) -> bytes:
    wire = [m.to_openai() for m in messages]
    return (json.dumps(tools, ensure_ascii=False, separators=(",", ":")) +
            json.dumps(wire, ensure_ascii=False, separators=(",", ":"))).encode()


def as_reference(messages: Sequence[Message]) -> list[Message]:
    """The same request with per-turn context moved into the system prompt (reference)."""
    out = [m for m in messages]
    newest_block = ""
    for index, message in enumerate(out):
        if message.role is Role.USER and message.content.startswith(TURN_CONTEXT_OPEN):
            block, rest = message.content.split(TURN_CONTEXT_CLOSE, 1)
            newest_block = block + TURN_CONTEXT_CLOSE
            out[index] = message.evolve(content=rest.lstrip("\n"))
    if out and out[0].role is Role.SYSTEM and newest_block:
        out[0] = out[0].evolve(content=out[0].content + "\n\n" + newest_block)
    return out


def shared_prefix(a: bytes, b: bytes) -> int:
    low, high = 0, min(len(a), len(b))
    while low < high:  # binary search on equality of prefixes (bytes compare is fast)
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        for i in range(12):
            body = "".join(f"def f{i}_{n}(x):\n    return x * {n}  # step {n}\n"
                           for n in range(150))
            (project / f"m{i}.py").write_text(body)
        settings = load_settings({}, {"PAICLI_HOME": str(root / "home")})
        client = ScriptClient()
        session = await AgentSession.start(settings, project, client=client,
                                           memory=VaryingMemory(), approve=approve_all)
        compaction_before: set[int] = set()
        request_number = 0
        pending_compaction = False
        for turn in range(1, TURNS + 1):
            async for event in session.run_turn(f"turn {turn}: check module m{turn % 12}"):
                if isinstance(event, ContextCompacted) and event.tier != "offload":
                    pending_compaction = True
                elif isinstance(event, RequestStarted):
                    if pending_compaction:
                        compaction_before.add(request_number)
                    pending_compaction = False
                    request_number += 1
        await session.aclose()

    ours, reference, skipped = [], [], 0
    crossing: list[bool] = []  # the pair spans the start of a new user turn
    for i in range(len(client.requests) - 1):
        if i + 1 in compaction_before:
            skipped += 1
            continue
        (m1, t1), (m2, t2) = client.requests[i], client.requests[i + 1]
        a, b = serialise(m1, t1), serialise(m2, t2)
        ours.append(shared_prefix(a, b) / len(a))
        ra, rb = serialise(as_reference(m1), t1), serialise(as_reference(m2), t2)
        reference.append(shared_prefix(ra, rb) / len(ra))
        turns = [sum(m.is_real_user_turn for m in ms) for ms in (m1, m2)]
        crossing.append(turns[0] != turns[1])
    print(f"requests: {len(client.requests)} over {TURNS} turns; pairs compared: {len(ours)}; "
          f"pairs skipped at compaction points: {skipped}")
    print(f"{'placement':<34}{'mean':>8}{'min':>8}{'median':>8}{'new-turn pairs':>16}")
    for name, values in (("ours (memories in user turn)", ours),
                         ("reference (memories in system)", reference)):
        across = [v for v, c in zip(values, crossing, strict=True) if c]
        print(f"{name:<34}{statistics.mean(values):>8.3f}{min(values):>8.3f}"
              f"{statistics.median(values):>8.3f}{statistics.mean(across):>16.3f}")
    print("target for ours: mean >= 0.95")


if __name__ == "__main__":
    asyncio.run(main())
