"""A weak model writes a tool call in ``<tool_call>`` tags that cannot be run (a tool it
made up, JSON missing a brace): the turn used to end on the raw tags as its answer, with
nothing run and nothing said. Now the person is told, and the model is told why and asked
once more in the turn. Faked at the protocol: the real client reads the SSE."""

from __future__ import annotations

import io
import json

import httpx
import pytest
from agent_script import drain
from doubles.llm_replay import Replay, client_for, text_reply

from paicli_tui.commands.exec_cmd import _Printer
from paicli_tui.core.agent.ledger_events import ledger_events
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.context.ledger import SessionLedger
from paicli_tui.core.contracts.events import TextCallUnread, text_call_unread_notice

BASH = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call>'
BROKEN = '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}</tool_call>'


def _replies(*texts: str) -> list[httpx.Response]:
    # and the background requests after the turn (fact extraction)
    return [httpx.Response(200, content=text_reply(t)) for t in (*texts, "[]", "[]", "[]")]


@pytest.mark.parametrize(("written", "why"), [
    (BASH, "no tool named 'bash'"),
    (BROKEN, "not valid JSON (Expecting ',' delimiter at position 51)"),
    ('<tool_call>{"function": "bash", "arguments": {"command": "ls"}}</tool_call>',
     "no tool named 'bash'"),
    ("I will look.\n<tool_call>[1, 2]</tool_call>",
     'not a {"name": …, "arguments": {…}} object'),
])
async def test_the_model_is_told_why_and_asked_again(settings, project_dir, written,
                                                     why) -> None:
    replay = Replay(_replies(written, "The folder holds a.py."))
    session = await AgentSession.start(settings, project_dir, client=client_for(replay))
    events = await drain(session.run_turn("what is in this folder?"))
    assert [e for e in events if isinstance(e, TextCallUnread)] == [TextCallUnread(why=why)]
    assert events[-1].reason == "done" and events[-1].final_text == "The folder holds a.py."
    asked = replay.bodies()[1]["messages"]
    assert asked[-2] == {"role": "assistant", "content": written}
    assert asked[-1]["role"] == "user" and why in asked[-1]["content"]
    assert "read_file" in asked[-1]["content"] and "Nothing ran" in asked[-1]["content"]
    recorded = ledger_events(SessionLedger.open(settings.home, session.session_id).path,
                             "tool_call_text_unread")
    assert [(r["why"], r["asked_again"]) for r in recorded] == [(why, True)]
    await session.aclose()


async def test_a_second_unreadable_call_stands_as_the_answer(settings, project_dir) -> None:
    replay = Replay(_replies(BASH, BASH))
    session = await AgentSession.start(settings, project_dir, client=client_for(replay))
    events = await drain(session.run_turn("list the files"))
    unread = [e for e in events if isinstance(e, TextCallUnread)]
    assert [e.asked_again for e in unread] == [True, False]
    assert events[-1].reason == "done" and events[-1].final_text == BASH
    assert sum("tools" in body for body in replay.bodies()) == 2  # asked once, not in a loop
    await session.aclose()


@pytest.mark.parametrize("written", [
    "Plain words, no call.",
    'Write `<tool_call>` tags? No: "<tool_call" is only a word here.',
])
async def test_no_tags_no_notice(settings, project_dir, written) -> None:
    replay = Replay(_replies(written))
    session = await AgentSession.start(settings, project_dir, client=client_for(replay))
    events = await drain(session.run_turn("hello"))
    assert not [e for e in events if isinstance(e, TextCallUnread)]
    assert events[-1].final_text == written
    await session.aclose()


@pytest.mark.parametrize(("event", "words"), [
    (TextCallUnread("no tool named 'bash'"),
     "The model wrote a tool call as text that could not be run (no tool named 'bash'); "
     "nothing ran, and the model is told so and asked again."),
    (TextCallUnread("no tool named 'bash'", asked_again=False),
     "The model wrote a tool call as text that could not be run (no tool named 'bash'); "
     "nothing ran again; its reply stands as the answer."),
])
def test_what_the_person_is_told(event: TextCallUnread, words: str) -> None:
    assert text_call_unread_notice(event) == words


def test_exec_shows_it_on_stderr_and_in_json() -> None:
    event = TextCallUnread("no tool named 'bash'")
    out, err = io.StringIO(), io.StringIO()
    _Printer(as_json=False, out=out, err=err).emit(event)
    assert err.getvalue().startswith("[tools] The model wrote a tool call as text")
    out = io.StringIO()
    _Printer(as_json=True, out=out, err=err).emit(event)
    record = json.loads(out.getvalue())
    assert (record["type"], record["why"]) == ("tool_call_text_unread", "no tool named 'bash'")
