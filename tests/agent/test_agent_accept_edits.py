"""The accept-edits mode (Shift+Tab in the TUI, ``--accept-edits``): file writes go ahead
unasked and say so on their block; commands still ask, and so does every write that is asked
about every time (the agent's own instructions, a git folder, a call the model wrote as text).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from paicli_tui.core.agent.tools import EditFileTool, ExecuteCommandTool, WriteFileTool
from paicli_tui.core.contracts.asks import ApprovalDecision, ApprovalRequest
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.contracts.tools import ToolContext


class Asked:
    """An approval callback that records each question and denies it."""

    def __init__(self) -> None:
        self.requests: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        return ApprovalDecision.DENY


def _context(project: Path, settings: Any, asked: Asked, *, mode: bool,
             always: tuple[str, ...] = (), written: bool = False) -> ToolContext:
    state = SessionState("s1")
    state.approval_mode.accept_edits = mode
    state.always_approved.update(always)
    if written:
        state.unasked_text_calls["c1"] = "written as text, not through the tool interface"
    return ToolContext(project_root=project, settings=settings, session=state,
                       approve=asked, call_id="c1")


WRITE = (WriteFileTool, {"path": "notes.txt", "content": "new\n"})
EDIT = (EditFileTool, {"path": "app.py", "old_string": "x = 1", "new_string": "x = 2"})
INSTRUCTIONS = (WriteFileTool, {"path": "PAI.md", "content": "Always push to main.\n"})
COMMAND = (ExecuteCommandTool, {"command": "touch made-by-command"})


@pytest.mark.parametrize(("call", "mode", "always", "written", "asked", "permission"), [
    (WRITE, False, (), False, True, None),
    (WRITE, True, (), False, False, "accept-edits"),
    (EDIT, True, (), False, False, "accept-edits"),
    (EDIT, False, (), False, True, None),
    (COMMAND, True, (), False, True, None),  # a command can do anything: it still asks
    (INSTRUCTIONS, True, (), False, True, None),  # every later session reads it
    (WRITE, True, (), True, True, None),  # the model wrote the call as text
    (WRITE, True, ("write_file",), False, False, "always"),  # "Always" was given first
], ids=["write-off", "write-on", "edit-on", "edit-off", "command-on", "instructions-on",
        "written-as-text-on", "always-and-on"])
async def test_what_the_mode_approves(project_dir: Path, settings: Any, call: Any,
                                      mode: bool, always: tuple[str, ...], written: bool,
                                      asked: bool, permission: str | None) -> None:
    (project_dir / "app.py").write_text("x = 1\n")
    tool, arguments = call
    questions = Asked()
    context = _context(project_dir, settings, questions, mode=mode, always=always,
                       written=written)
    out = await tool().run(arguments, context)
    assert bool(questions.requests) is asked
    if asked:
        assert out.status == "denied" and not context.granted
        assert not (project_dir / "notes.txt").exists()
        assert not (project_dir / "made-by-command").exists()
    else:
        assert out.status == "done", out.content
        assert [p.value for p in context.granted] == [permission]


async def test_sub_agents_follow_a_switch_while_they_run(project_dir: Path,
                                                         settings: Any) -> None:
    from paicli_tui.core.agent.session import AgentSession

    session = await AgentSession.start(settings, project_dir, client=None, memory=None)
    child = await session.spawn_subagent("helper", read_only=False)
    assert not child.state.approval_mode.accept_edits
    session.set_accept_edits(True)
    assert child.accept_edits and session.accept_edits
    session.set_accept_edits(False)
    assert not child.state.approval_mode.accept_edits
    await child.aclose()
    await session.aclose()


async def test_the_ledger_records_each_switch(project_dir: Path, settings: Any) -> None:
    from paicli_tui.core.agent.ledger_events import ledger_events
    from paicli_tui.core.agent.session import AgentSession

    session = await AgentSession.start(settings.with_overrides(accept_edits=True),
                                       project_dir, client=None, memory=None)
    assert session.accept_edits  # --accept-edits starts the session in the mode
    session.set_accept_edits(True)  # no change: nothing recorded
    session.set_accept_edits(False)
    session.set_accept_edits(True)
    switches = [e.get("accept_edits") for e in ledger_events(session.ledger.path,
                                                             "approval_mode")]
    assert switches == [False, True]
    await session.aclose()
