"""Carry out the person's answer to a memory conflict: replace one, keep both, or cancel.

The one path for every place that asks (behaviour §12): the save_memory tool, ``/save``, the memory
browser and ``paicli-tui memory save --force``. Whoever asked, the same answer does the same
thing to the store.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..contracts.asks import ConflictDecision
from .entry import SCOPE_PROJECT, SOURCE_EXPLICIT

if TYPE_CHECKING:
    from .book import MemoryBook, SaveResult


def carry_out(book: MemoryBook, content: str, decision: ConflictDecision, *,
              replace_id: str | None = None, conflicting: Sequence[str] = (),
              scope: str = SCOPE_PROJECT, source: str = SOURCE_EXPLICIT,
              source_file: str | None = None, allow_sensitive: bool = False) -> SaveResult:
    """Apply ``decision`` to a save of ``content`` that conflicted with ``conflicting`` (ids).

    - REPLACE: ``content`` takes the place of ``replace_id`` (the first conflicting entry when
      none was picked); still refused while another memory conflicts with the new text.
    - KEEP_BOTH: ``content`` is saved beside the entries it conflicts with.
    - CANCEL: nothing is written (status ``cancelled``).
    """
    from .book import SaveResult

    if decision is ConflictDecision.KEEP_BOTH:
        return book.save(content, scope=scope, source=source, force=True,
                         source_file=source_file, allow_sensitive=allow_sensitive)
    if decision is ConflictDecision.REPLACE:
        target = replace_id or (conflicting[0] if conflicting else None)
        if target is None:
            return SaveResult("refused", message="replace needs the id of the memory to replace")
        return book.replace(target, content, allow_sensitive=allow_sensitive)
    return SaveResult("cancelled", message="nothing saved: the person chose to cancel")
