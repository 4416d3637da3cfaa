"""Which stored entries a new fact duplicates or conflicts with (behaviour §12).

One pass over the store. Each entry computes its forms once (``MemoryEntry.forms``; entries are
immutable and shared while the file is unchanged), so a save costs one cheap comparison per
stored memory: linear in the store.
"""

from __future__ import annotations

from collections.abc import Iterable

from .canonical import dice_enabled, forms, overlaps, relation
from .entry import MemoryEntry

BULK_BOUNDS_FROM = 2_000
"""From this many entries the signature bounds are computed for all of them in one numpy
pass (below it, importing numpy would cost more than it saves)."""


def scan(entries: Iterable[MemoryEntry], candidate: MemoryEntry, threshold: float
         ) -> tuple[MemoryEntry | None, list[MemoryEntry]]:
    """(the first duplicate, the conflicting entries) for ``candidate`` among entries of its
    type, scope and project, by the one rule :func:`~.canonical.relation`."""
    mine = forms(candidate.content)
    bucket = candidate.bucket
    pool = [e for e in entries if e.bucket == bucket and e.id != candidate.id]
    bounds: list[int | None] = [None] * len(pool)
    if dice_enabled(threshold) and len(pool) >= BULK_BOUNDS_FROM:
        bounds = list(overlaps(mine.signature, [e.forms.signature for e in pool]))
    duplicate = None
    found = []
    for entry, bound in zip(pool, bounds, strict=True):
        kind = relation(mine, entry.forms, threshold, shared_bound=bound)
        if kind == "conflict":
            found.append(entry)
        elif kind == "duplicate" and duplicate is None:
            duplicate = entry
    return duplicate, found
