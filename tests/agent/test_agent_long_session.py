"""A long session at a small scale, as properties: many turns of a random mix (reads of
small and large files, listings, edits, /compact now and then) in a small window, with a
summariser that sometimes answers prose instead of the four sections (so the model-free
digest runs too). After every request and at the end:

- every request the model receives fits the window;
- every tool call has exactly its result (the pairing holds after every compaction);
- nothing the person wrote is silently lost: each message of theirs is still in the view,
  or was in the text handed to the summariser, or is in a digest's transcript file;
- the session file resumes to exactly the history the session ended with.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from agent_script import valid_summary
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paicli_tui.config import load_settings
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.context.pairing import pairing_problems
from paicli_tui.core.contracts.asks import ApprovalDecision
from paicli_tui.core.contracts.llm import StreamDone
from paicli_tui.core.messages import Message, ToolCall
from paicli_tui.core.tokens import estimate_request

WINDOW = 8_000

TOOLS = {
    "small": ("read_file", {"path": "small.py"}),
    "large": ("read_file", {"path": "large.txt"}),
    "list": ("list_dir", {"path": "."}),
    "edit": ("edit_file", {"path": "small.py", "old_string": "# end\n",
                           "new_string": "# edited\n# end\n"}),
}

turn_plans = st.lists(st.sampled_from(sorted(TOOLS)), max_size=3)
sessions = st.lists(st.tuples(turn_plans, st.booleans(), st.integers(0, 400)),
                    min_size=6, max_size=12)


class LongModel:
    """Follows the drawn plan of each turn; records every request."""

    provider, model, window = "long", "long-1", WINDOW

    def __init__(self, prose_summaries: bool) -> None:
        self.plan: list[str] = []
        self.step = 0
        self.prose = prose_summaries
        self.sizes: list[int] = []
        self.problems: list[str] = []
        self.summarised: list[str] = []
        """The text of every request to the summariser."""

    async def stream(self, messages: Sequence[Message], tools: Sequence[dict] = (), *,
                     model: str | None = None) -> AsyncIterator[Any]:
        if not tools:  # the summariser (and the wrap-up, which this plan never reaches)
            self.summarised.append("\n".join(m.content for m in messages))
            text = "I looked at the history." if self.prose else valid_summary("kept")
            yield StreamDone(Message.assistant(text), "stop")
            return
        self.sizes.append(estimate_request(messages, tools))
        self.problems += pairing_problems(messages)
        if self.step < len(self.plan):
            name, arguments = TOOLS[self.plan[self.step]]
            self.step += 1
            call = ToolCall(f"call{len(self.sizes)}", name, json.dumps(arguments))
            yield StreamDone(Message.assistant("", [call]), "tool_calls")
            return
        yield StreamDone(Message.assistant("Done: " + "x" * 200), "stop")

    async def aclose(self) -> None:
        pass


async def always(request: Any) -> ApprovalDecision:
    return ApprovalDecision.ALWAYS


async def run_session(turns: list[tuple[list[str], bool, int]], prose: bool,
                      root: Path) -> None:
    project = root / "project"
    project.mkdir()
    (project / "small.py").write_text("def f():\n    return 1\n# end\n", encoding="utf-8")
    body = "".join(f"line {n:>5}: 数据 data {'payload ' * 6}\n" for n in range(3_000))
    (project / "large.txt").write_text(body, encoding="utf-8")
    env = {"PAICLI_HOME": str(root / "home")}
    config = load_settings({"auto_extract": False}, env)
    model = LongModel(prose)
    session = await AgentSession.start(config, project, client=model, approve=always)
    said: list[str] = []
    for number, (plan, compact, pad) in enumerate(turns, start=1):
        words = f"request {number}: keep the retry cap at {number} " + "请" * (pad // 10)
        said.append(words)
        model.plan, model.step = plan, 0
        async for _ in session.run_turn(words):
            pass
        if compact:
            await session.compact_now()
        assert pairing_problems(session.history) == []
    assert model.problems == []
    assert max(model.sizes) <= WINDOW, (max(model.sizes), WINDOW)
    view = "\n".join(m.content for m in session.history)
    outputs = project / ".paicli" / "tool-outputs"
    saved = "\n".join(p.read_text(encoding="utf-8") for p in outputs.rglob("*.txt")) \
        if outputs.is_dir() else ""
    handed = "\n".join(model.summarised)
    lost = [w for w in said if w not in view and w not in handed and w not in saved]
    assert lost == []
    ended = [m.to_record() for m in session.history]
    session_id = session.session_id
    await session.aclose()
    resumed = await AgentSession.start(config, project, client=LongModel(prose),
                                       resume=session_id)
    try:
        assert [m.to_record() for m in resumed.history] == ended
    finally:
        await resumed.aclose()


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(turns=sessions, prose=st.booleans())
def test_a_long_session_keeps_its_invariants(turns, prose) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(run_session(turns, prose, Path(tmp)))
