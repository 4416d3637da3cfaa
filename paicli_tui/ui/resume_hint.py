"""The command that reopens a session, once there is something in it to come back to."""

from __future__ import annotations


def resume_hint(session: object) -> str:
    """``Resume this conversation: paicli-tui --resume ID`` once the person said something
    (before that the session has no ledger to resume)."""
    from ..core.messages import Role

    history = getattr(session, "history", None) or []
    if not any(m.role is Role.USER and m.internal is None for m in history):
        return ""
    return f"Resume this conversation: paicli-tui --resume {session.session_id}"
