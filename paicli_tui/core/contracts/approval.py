"""Asking the person before a tool acts: one rule for every tool in every layer."""

from __future__ import annotations

import asyncio
import dataclasses

from .asks import ApprovalDecision, ApprovalRequest, Permission
from .tools import ToolContext

IN_SUCH_A_SUBAGENT = "a sub-agent started by a call written as text"
EDIT_TOOLS = frozenset({"write_file", "edit_file"})
"""What the accept-edits mode approves: changes to files the person sees as a diff and can
put back with /undo. A command can do anything, so it still asks."""


def asked_every_time(context: ToolContext) -> str:
    """Why this call must be asked whatever covers its tool otherwise ("" when nothing
    does): the model wrote it as text unasked, or a sub-agent such a call started makes it.
    A tool that runs without asking (an MCP server's ``allowed_tools``) asks then too."""
    return context.session.unasked_text_calls.get(context.call_id) or \
        (IN_SUCH_A_SUBAGENT if context.session.every_call_asked else "")


async def ask_approval(context: ToolContext, request: ApprovalRequest, *,
                       read_only: bool = False, always_covers: bool = True) -> bool:
    """True when the call may go ahead.

    ``--yes`` (settings.auto_approve), an earlier "always" for this tool, the accept-edits
    mode for a file write and a command the caller found read-only approve without asking; otherwise the session's approval callback
    decides (headless default: deny). How a call went ahead unasked is recorded in
    ``context.granted`` so its block can say so. ``always_covers=False``: this call is asked
    about even after an "always" for its tool (a write into the git folder). A call the
    model wrote as text unasked is approved by the person only (``--yes``, "always" and the
    accept-edits mode do not cover it; headless, nobody is asked, so it is denied), and so is every call of a
    sub-agent such a call started.
    """
    why = asked_every_time(context)
    written = bool(why)
    unasked = (Permission.READ_ONLY if read_only else None) if written else \
        (Permission.AUTO if context.settings.auto_approve
         else Permission.ALWAYS if always_covers
         and request.tool in context.session.always_approved
         else Permission.EDITS if always_covers and request.tool in EDIT_TOOLS
         and context.session.approval_mode.accept_edits
         else Permission.READ_ONLY if read_only else None)
    if written and unasked is None:
        request = dataclasses.replace(
            request, summary=f"{request.summary} ({why}: asked every time)",
            asked_every_time=why)
    if unasked is not None:
        context.granted.append(unasked)
        return True
    if context.call_id and not request.call_id:
        request = dataclasses.replace(request, call_id=context.call_id)
    try:
        decision = await context.approve(request)
    except asyncio.CancelledError:  # the turn stopped at the question: the call never runs
        if request.call_id:
            context.session.not_run.add(request.call_id)
        raise
    if decision is ApprovalDecision.ALWAYS:
        context.session.always_approved.add(request.tool)
        return True
    return decision is ApprovalDecision.ONCE
