"""A call whose turn is cancelled while the person is asked to approve it never ran, and its
stand-in result says so.

Found in tmux: quitting (or Ctrl+C) with the approval dialog of `echo hello > out.txt` open
left the history saying "It may have run, in part or in full: check its effects", and the
resumed chat showed the call as failed, though nobody had approved it."""

from __future__ import annotations

import asyncio

from agent_script import ScriptedClient, Step, call, drain

from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.messages import Role


async def test_a_call_cancelled_at_its_approval_is_answered_as_not_run(settings,
                                                                      project_dir) -> None:
    asked = asyncio.Event()

    async def approve(request):
        asked.set()
        await asyncio.Event().wait()  # the person has not answered yet

    steps = [Step(calls=[call("execute_command", command="echo hello > out.txt")]),
             Step(text="never")]
    session = await AgentSession.start(settings, project_dir, client=ScriptedClient(steps),
                                       approve=approve)
    turn = asyncio.create_task(drain(session.run_turn("write the file")))
    await asyncio.wait_for(asked.wait(), 60)
    turn.cancel()
    await asyncio.gather(turn, return_exceptions=True)
    result = next(m for m in session.history if m.role is Role.TOOL)
    assert "Not run: the turn was cancelled while the person was asked to approve this call" \
        in result.content and "may have run" not in result.content
    assert result.meta["status"] == "denied"
    assert not (project_dir / "out.txt").exists()
