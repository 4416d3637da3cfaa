"""Asking the person before a tool acts: one rule for every tool in every layer."""

from __future__ import annotations

from .asks import ApprovalDecision, ApprovalRequest
from .tools import ToolContext


async def ask_approval(context: ToolContext, request: ApprovalRequest) -> bool:
    """True when the call may go ahead.

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
