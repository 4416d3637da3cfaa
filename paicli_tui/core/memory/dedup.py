"""Which stored entries a new fact duplicates or conflicts with (SPEC §12)."""

from __future__ import annotations

from collections.abc import Iterable

from .canonical import canonical, conflicts
from .entry import MemoryEntry


def find_duplicate(entries: Iterable[MemoryEntry], candidate: MemoryEntry) -> MemoryEntry | None:
    """The entry in the candidate's type/scope/project with the same canonical form, if any."""
    form = canonical(candidate.content)
    for entry in entries:
        if entry.id != candidate.id and entry.same_bucket(candidate) \
                and canonical(entry.content) == form:
            return entry
    return None


def find_conflicts(entries: Iterable[MemoryEntry], candidate: MemoryEntry,
                   threshold: float) -> list[MemoryEntry]:
    """Entries of the candidate's type/scope/project that state a different version of the same
    fact (numeric/version variant, or bigram Dice ≥ threshold)."""
    return [
        entry for entry in entries
        if entry.id != candidate.id and entry.same_bucket(candidate)
        and conflicts(entry.content, candidate.content, threshold)
    ]
