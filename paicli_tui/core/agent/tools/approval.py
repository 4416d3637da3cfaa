"""Asking the person before a tool changes anything (writes, commands)."""

from __future__ import annotations

from ...contracts.asks import ApprovalDecision, ApprovalRequest
from ...contracts.tools import ToolContext


async def ask_approval(context: ToolContext, request: ApprovalRequest) -> bool:
    """True when the change may go ahead.

    ``--yes`` (settings.auto_approve) and an earlier "always" for this tool approve without
    asking; otherwise the session's approval callback decides (headless default: deny).
    """
    if context.settings.auto_approve or request.tool in context.session.always_approved:
        return True
    decision = await context.approve(request)
    if decision is ApprovalDecision.ALWAYS:
        context.session.always_approved.add(request.tool)
        return True
    return decision is ApprovalDecision.ONCE


def denied(what: str) -> str:
    """The result text for a refused change (the model should not retry it blindly)."""
    return (f"The person declined: {what}. Nothing was changed. Do not try the same change "
            "again; ask the person how to proceed if it is needed.")
