"""Which stored entries a new fact duplicates or conflicts with (behaviour §12).

One pass over the store. Each entry computes its forms once (``MemoryEntry.forms``; entries are
immutable and shared while the file is unchanged), so a save costs one cheap comparison per
stored memory: linear in the store.
"""

from __future__ import annotations

from collections.abc import Iterable

from .canonical import forms, relation
from .entry import MemoryEntry


def scan(entries: Iterable[MemoryEntry], candidate: MemoryEntry, threshold: float
         ) -> tuple[MemoryEntry | None, list[MemoryEntry]]:
    """(the first duplicate, the conflicting entries) for ``candidate`` among entries of its
    type, scope and project, by the one rule :func:`~.canonical.relation`."""
    mine = forms(candidate.content)
    bucket = candidate.bucket
    duplicate = None
    found = []
    for entry in entries:
        if entry.bucket != bucket or entry.id == candidate.id:
            continue
        kind = relation(mine, entry.forms, threshold)
        if kind == "conflict":
            found.append(entry)
        elif kind == "duplicate" and duplicate is None:
            duplicate = entry
    return duplicate, found
