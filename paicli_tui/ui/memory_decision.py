"""Save a memory from the UI and, on a conflict, let the person decide in the conflict modal.

``/save`` and the memory browser both go through here; the answer itself is carried out by
the core (``MemoryBackend.decide``), the same path the save_memory tool and the CLI take.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..core.contracts.asks import ConflictDecision, ConflictRequest
from .backend import MemoryBackend, SaveOutcome


async def save_asking(app: Any, memory: MemoryBackend, text: str, scope: str, force: bool,
                      allow_sensitive: bool = False
                      ) -> tuple[ConflictDecision | None, SaveOutcome]:
    """(the person's decision, or None when nothing conflicted; what the save did). Runs in a
    worker: ``app.push_screen_wait`` needs one. A refused write raises ValueError."""
    from .modals.conflict import ConflictModal

    if allow_sensitive:  # the person typed /save --sensitive: their confirmation
        outcome = await asyncio.to_thread(memory.save, text, scope, force, True)
    else:
        outcome = await asyncio.to_thread(memory.save, text, scope, force)
    if not outcome.conflicts:
        return None, outcome
    decision, target = await app.push_screen_wait(
        ConflictModal(ConflictRequest(text, outcome.conflicts)))
    # a confirmed /save --sensitive stays confirmed through the answer's write
    done = await asyncio.to_thread(lambda: memory.decide(
        text, scope, decision, target, tuple(e.id for e in outcome.conflicts),
        allow_sensitive=allow_sensitive))
    return decision, done


async def confirm_sensitive(app: Any, text: str, reason: str, doing: str) -> bool:
    """The person's answer to keeping text that looks like a secret (the TUI's form of the
    command line's ``--sensitive``); ``doing`` names the write ("Replace the memory")."""
    from .modals.confirm import ConfirmModal

    return bool(await app.push_screen_wait(ConfirmModal(
        "Keep text that looks like a secret?",
        f"{quoted(text, 200)}\n\nThis looks like it holds a secret or personal data "
        f"({reason}). Memories are stored as plain text and go into the model's requests. "
        f"{doing} with it anyway?", yes="Keep it")))


def quoted(text: str, limit: int = 60) -> str:
    """A memory in a toast: on one line, its start when long."""
    text = " ".join(text.split())
    return f"“{text if len(text) <= limit else text[: limit - 1] + '…'}”"


def saved_message(decision: ConflictDecision | None, outcome: SaveOutcome, text: str,
                  scope: str) -> str:
    """What a save did, in words, quoting the memory (``/save`` said only its id)."""
    if decision is ConflictDecision.CANCEL:
        return "Nothing saved: the conflict was left as it was."
    if outcome.replaced_id:
        return f"Saved {quoted(text)} in place of the memory it conflicted with."
    if decision is ConflictDecision.KEEP_BOTH:
        return f"Saved {quoted(text)} beside the one it conflicts with (kept both)."
    if outcome.duplicate_of:
        return f"Already remembered (as {outcome.duplicate_of}); marked verified now."
    return outcome.message or f"Saved {quoted(text)} ({scope})."


def stored_in(decision: ConflictDecision | None, outcome: SaveOutcome, memory_file: str) -> str:
    """The end of /save's chat line: the file the memory is in (one file holds every
    project's memories and the global ones), to copy or open; empty when nothing was
    written."""
    if decision is ConflictDecision.CANCEL:
        return ""
    if not (outcome.saved_id or outcome.replaced_id or outcome.duplicate_of):
        return ""
    return f" Stored in `{memory_file}` (/memory lists it)."
