"""Arguments a weak model wraps in a fence or encodes twice still reach the tool; what is
not JSON still gets the clear error (table), and a whole turn shows it end to end."""

from __future__ import annotations

import json

import pytest
from agent_script import ScriptedClient, Step, drain

from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.agent.tool_registry import read_arguments
from paicli_tui.core.contracts.events import ToolCallFinished
from paicli_tui.core.messages import ToolCall

OBJECT = {"path": "a.py", "注": "中文"}


@pytest.mark.parametrize(("raw", "read"), [
    (json.dumps(OBJECT), OBJECT),
    ("", {}),
    ("```json\n" + json.dumps(OBJECT) + "\n```", OBJECT),
    ("```\n" + json.dumps(OBJECT) + "\n```", OBJECT),
    (json.dumps(json.dumps(OBJECT)), OBJECT),  # encoded twice
    (json.dumps("just words"), "just words"),  # a string, not an object: left for the check
    (json.dumps("{not json"), "{not json"),
    (json.dumps(json.dumps([1, 2])), json.dumps([1, 2])),  # only an object is unwrapped
    ("[1, 2]", [1, 2]),
])
def test_what_is_read(raw, read) -> None:
    assert read_arguments(raw) == read


@pytest.mark.parametrize("raw", ["{path: a.py}", "```json\n{bad}\n```", "``` ``` ```"])
def test_what_is_still_not_json(raw) -> None:
    with pytest.raises(json.JSONDecodeError):
        read_arguments(raw)


async def test_a_fenced_and_a_double_encoded_call_both_read_the_file(settings,
                                                                     project_dir) -> None:
    (project_dir / "a.py").write_text("print('fenced')\n")
    fenced = "```json\n{\"path\": \"a.py\"}\n```"
    twice = json.dumps(json.dumps({"path": "a.py"}))

    class RawCalls(ScriptedClient):
        async def stream(self, messages, tools=(), *, model=None):
            async for part in super().stream(messages, tools, model=model):
                if getattr(part, "tool_calls", ()):
                    calls = (ToolCall("c1", "read_file", fenced),
                             ToolCall("c2", "read_file", twice))
                    part = type(part)(part.message.evolve(tool_calls=calls),
                                      part.finish_reason, part.usage, calls)
                yield part

    client = RawCalls([Step(calls=[("read_file", {}), ("read_file", {})]), Step(text="ok")])
    session = await AgentSession.start(settings, project_dir, client=client)
    events = await drain(session.run_turn("read a.py"))
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [e.status for e in finished] == ["done", "done"]
    assert all("fenced" in e.preview for e in finished)
    assert client.problems == []
