"""A weak model that repeats one tool call whatever it is told: after the runaway notice has
been ignored a whole round, the tools are taken away and one last request asks for an
answer, so the loop ends in a few requests instead of at the request cap (or, with no cap,
when the window is full). Faked at the protocol: the real client reads the SSE."""

from __future__ import annotations

import httpx
import pytest
from agent_script import drain
from doubles.llm_replay import Replay, client_for, delta, sse, text_reply

from paicli_tui.core.agent.ledger_events import ledger_events
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.agent.tool_calls import RunawayGuard
from paicli_tui.core.context.ledger import SessionLedger
from paicli_tui.core.context.pairing import pairing_problems
from paicli_tui.core.contracts.events import AgentError, ToolCallStarted
from paicli_tui.core.messages import InternalKind, ToolCall


def _read_readme(number: int) -> httpx.Response:
    call = {"index": 0, "id": f"c{number}", "type": "function",
            "function": {"name": "read_file", "arguments": '{"path": "README.md"}'}}
    return httpx.Response(200, content=sse([delta(tool_calls=[call]),
                                            delta(finish="tool_calls")]))


@pytest.mark.parametrize("cap", [40, 0])
async def test_a_model_deaf_to_the_notice_is_stopped_after_six_calls(settings, project_dir,
                                                                     cap) -> None:
    (project_dir / "README.md").write_text("# Demo\n")
    loop = [_read_readme(n) for n in range(40)]
    replay = Replay([*loop[:6], httpx.Response(200, content=text_reply("I kept reading it.")),
                     *loop[6:]])
    session = await AgentSession.start(settings.with_overrides(max_iterations=cap),
                                       project_dir, client=client_for(replay))
    events = await drain(session.run_turn("what does the readme say?"))
    assert sum(isinstance(e, ToolCallStarted) for e in events) == 6
    bodies = replay.bodies()
    assert len(bodies) == 7 and "tools" in bodies[5] and "tools" not in bodies[6]
    assert "read_file" in bodies[6]["messages"][-1]["content"]
    errors = [e.message for e in events if isinstance(e, AgentError)]
    assert errors == ["The model called read_file with the same arguments 6 times in a row, "
                      "past the notice that repeating it would not help: asking for a final "
                      "answer without tools. Say 'continue' to go on."]
    assert (events[-1].reason, events[-1].final_text) == ("runaway", "I kept reading it.")
    # one notice at three calls; at six the wrap-up says it, never two user messages in
    # a row (a template that wants turns to alternate refuses them)
    notices = [m for m in session.history if m.internal is InternalKind.RUNAWAY_GUARD]
    assert len(notices) == 1 and pairing_problems(session.history) == []
    roles = [m["role"] for m in bodies[6]["messages"]]
    assert roles[-3:] == ["assistant", "tool", "user"], roles
    recorded = ledger_events(SessionLedger.open(settings.home, session.session_id).path,
                             "runaway_stop")
    assert [(r["tool"], r["repeats"]) for r in recorded] == [("read_file", 6)]
    await session.aclose()


def _call(path: str) -> ToolCall:
    return ToolCall("c", "read_file", f'{{"path": "{path}"}}')


@pytest.mark.parametrize(("paths", "notices", "stuck"), [
    ("aa", 0, False),
    ("aaa", 1, False),
    ("aaaaa", 1, False),
    ("aaaaaa", 2, True),
    ("aaabaaa", 1, False),  # another call between: a new run, counted afresh
    ("aaaaabaaaaaa", 2, True),
    ("abababababab", 0, False),  # alternating is not one call repeated
])
def test_when_the_guard_gives_up(paths: str, notices: int, stuck: bool) -> None:
    guard = RunawayGuard()
    sent = sum(guard.observe(_call(path)) for path in paths)
    assert (guard.notices, guard.stuck) == (notices, stuck)
    assert sent >= notices
