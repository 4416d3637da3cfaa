"""Undoing a compaction: the view as it was before it, then what was said since.

The ledger's checkpoint before the last compaction ends where that compaction happened. Put
back alone, it dropped every turn after it: an 'undo' pressed an hour after a summary took an
hour of conversation out of what the model sees (the ledger kept it, the model did not).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..messages import InternalKind, Message, Role
from .pairing import repair_pairing
from .summary import ACKNOWLEDGEMENT


def made_by_compaction(view: Sequence[Message]) -> set[str]:
    """Ids of the messages a summary or digest put into ``view``: its summary and the
    acknowledgement after it."""
    made: set[str] = set()
    for index, message in enumerate(view):
        if message.internal is InternalKind.SUMMARY:
            made.add(message.id)
            after = view[index + 1] if index + 1 < len(view) else None
            if after is not None and after.role is Role.ASSISTANT and \
                    after.content == ACKNOWLEDGEMENT and not after.tool_calls:
                made.add(after.id)
    return made


def said_since(before: Sequence[Message], now: Sequence[Message]) -> list[Message]:
    """The messages of ``now`` that came after ``before`` (the view just before the last
    compaction): neither in ``before`` (what was cleared keeps its id, and comes back whole
    from ``before``) nor made by the compaction, and no system prompt twice."""
    kept = {m.id for m in before} | made_by_compaction(now)
    return [m for m in now if m.id not in kept and m.role is not Role.SYSTEM]


def undone_view(before: Sequence[Message], now: Sequence[Message]) -> list[Message]:
    """The view before the last compaction, then what was said since."""
    return repair_pairing([*before, *said_since(before, now)])[0]
