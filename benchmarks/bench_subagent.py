"""What a sub-agent saves the main history: one exploration task, done both ways.

    python benchmarks/bench_subagent.py

A project of 20 source files (~6 KB each). The task: read all 20, then answer. Run 1: the
main agent reads them itself. Run 2: the main agent delegates to one read-only sub-agent,
which reads them in its own history and hands back a short answer. An in-process model plays
the script (no network); everything else is real: tools, boundary, offload, ledger, the
context manager. Prints, side by side, the main history's estimated tokens after the task and
the model requests of each run. Asserts nothing.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from paicli_tui.config import load_settings
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.contracts.llm import StreamDone
from paicli_tui.core.messages import Message, ToolCall

FILES = 20
ANSWER = "All 20 modules define a Handler class with handle() and a module-level REGISTRY."


class Model:
    """Reads every file in one reply, then answers; the parent of run 2 delegates first."""

    provider, model, window = "bench", "bench-1", 128_000

    def __init__(self) -> None:
        self.requests: dict[str, int] = {"main": 0, "sub-agent": 0}

    async def stream(self, messages: Sequence[Message], tools: Sequence[dict] = (), *,
                     model: str | None = None) -> Any:
        who = "sub-agent" if "working as a sub-agent" in messages[0].content else "main"
        self.requests[who] += 1
        names = {t["function"]["name"] for t in tools}
        done_reading = any(m.role.value == "tool" and m.name == "read_file" for m in messages)
        delegated = any(m.role.value == "tool" and m.name == "run_subagent" for m in messages)
        user = next(m.content for m in messages if m.role.value == "user")
        if delegated or done_reading:
            calls: list[ToolCall] = []
            text = ANSWER
        elif who == "main" and "DELEGATE" in user and "run_subagent" in names:
            calls = [ToolCall("d1", "run_subagent", json.dumps(
                {"task": "Read src/m00.py … src/m19.py and say what they define.",
                 "label": "explore"}))]
            text = ""
        else:
            calls = [ToolCall(f"r{i}", "read_file", json.dumps({"path": f"src/m{i:02d}.py"}))
                     for i in range(FILES)]
            text = ""
        yield StreamDone(Message.assistant(text, calls), "tool_calls" if calls else "stop")

    async def aclose(self) -> None:
        pass


def make_project(root: Path) -> None:
    (root / "src").mkdir(parents=True)
    for i in range(FILES):
        body = [f'"""Module {i}: request handling for route {i}."""', "", "REGISTRY = {}", "",
                "class Handler:"]
        body += [f"    def step_{n}(self, value):\n        return value * {n} + {i}"
                 for n in range(60)]
        body += ["    def handle(self, request):", "        return self.step_1(request)"]
        (root / "src" / f"m{i:02d}.py").write_text("\n".join(body) + "\n")


async def run(project: Path, home: Path, delegate: bool) -> tuple[int, int, int]:
    settings = load_settings({}, {"PAICLI_HOME": str(home)})
    model = Model()
    session = await AgentSession.start(settings, project, client=model)
    prompt = ("DELEGATE: " if delegate else "") + "What do the 20 modules in src/ define?"
    async for _ in session.run_turn(prompt):
        pass
    tokens = session.estimate()
    await session.aclose()
    return tokens, model.requests["main"], model.requests["sub-agent"]


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        make_project(project)
        alone = await run(project, Path(tmp) / "home1", delegate=False)
        with_sub = await run(project, Path(tmp) / "home2", delegate=True)
    print(f"exploration task: read {FILES} files, then answer")
    print(f"{'':24}{'main history tokens':>22}{'main requests':>16}{'sub-agent requests':>20}")
    print(f"{'main agent reads':24}{alone[0]:>22,}{alone[1]:>16}{alone[2]:>20}")
    print(f"{'one sub-agent reads':24}{with_sub[0]:>22,}{with_sub[1]:>16}{with_sub[2]:>20}")
    print(f"main history with a sub-agent: {with_sub[0] / alone[0]:.1%} of reading in place")


if __name__ == "__main__":
    asyncio.run(main())
