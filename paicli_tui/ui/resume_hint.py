"""The command that reopens a session, once there is something in it to come back to."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.plural import counted, noun_for

if TYPE_CHECKING:
    from ..core.agent.shell_notes import ShellNote


def resume_hint(session: object) -> str:
    """``Resume this conversation: paicli-tui --resume ID`` once the person said something
    (before that the session has no ledger to resume), or how to continue a plan that was
    interrupted before it ended."""
    from ..core.messages import Role

    history = getattr(session, "history", None) or []
    if any(m.role is Role.USER and m.internal is None for m in history):
        return f"Resume this conversation: paicli-tui --resume {session.session_id}"
    if _interrupted_plan(session):  # nothing in the history yet: the plan joins it at its end
        return f"Continue the interrupted plan: paicli-tui --resume {session.session_id}"
    waiting = getattr(session, "pending_shell", None)
    if waiting:  # only !commands so far: their output waits in the ledger for a message
        return (f"The output of your {noun_for(len(waiting), 'command')} waits for your next "
                f"message: paicli-tui --resume {session.session_id}")
    return ""


def _interrupted_plan(session: object) -> bool:
    find = getattr(session, "interrupted_plan", None)
    try:
        return find is not None and find() is not None
    except Exception:  # noqa: BLE001 — an unreadable ledger: no hint, the quit goes on
        return False


def resumed_line(session_id: str, history: list) -> str:
    """The line under a reopened conversation: how many of the person's messages it holds,
    and, once a summary replaced the older ones, that the count starts there (a day's
    session said "5 messages from you" with no hint that dozens came before)."""
    from ..core.messages import InternalKind, Role

    users = sum(1 for m in history if m.role is Role.USER and m.internal is None)
    if not users:  # a session of !commands (or a plan) only: the picker says "only commands"
        return f"Resumed session {session_id} · no message from you yet."
    since = " since the summary of the older turns" if any(
        m.internal is InternalKind.SUMMARY for m in history) else ""
    return f"Resumed session {session_id} · {counted(users, 'message')} from you{since}."


def waiting_commands_line(notes: Sequence[ShellNote]) -> str:
    """Under a reopened conversation: the ``!command`` outputs that go with the next message
    (run before quitting and not sent yet), which nothing on screen showed; empty when none
    wait."""
    if not notes:
        return ""
    commands = ", ".join(f"`!{' '.join(note.command.split())[:40]}`" for note in notes[-3:])
    more = f" and {len(notes) - 3} more" if len(notes) > 3 else ""
    its = "its output goes" if len(notes) == 1 else "their outputs go"
    return (f"{counted(len(notes), 'command')} you ran before quitting ({commands}{more}): "
            f"{its} with your next message.")
