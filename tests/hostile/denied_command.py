"""Run one command through ``execute_command`` with a person who denies every question
(not a test module): what the tool returned and the questions asked."""

from __future__ import annotations

from paicli_tui.core.agent.tools import ExecuteCommandTool
from paicli_tui.core.contracts.asks import ApprovalDecision
from paicli_tui.core.contracts.read_only import read_only_verdict
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.contracts.tools import ToolContext, ToolOutput


async def run_denied(command: str, project, settings, reason: str
                     ) -> tuple[ToolOutput, list[str]]:
    """The command must not be read-only (its reason opening with ``reason``)."""
    verdict = read_only_verdict(command, settings.read_only_commands, project)
    assert not verdict.read_only and verdict.reason.startswith(reason), verdict
    asked: list[str] = []

    async def deny(request):
        asked.append(request.summary)
        return ApprovalDecision.DENY

    context = ToolContext(project_root=project, settings=settings, session=SessionState("s"),
                          approve=deny).for_one_call()
    return await ExecuteCommandTool().run({"command": command}, context), asked
