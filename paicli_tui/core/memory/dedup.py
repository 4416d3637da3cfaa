"""Which stored entries a new fact duplicates or conflicts with (SPEC §12).

One pass over the store with the candidate's forms computed once; every per-entry form comes
from the caches in :mod:`canonical`, so a save scales linearly with the store.
"""

from __future__ import annotations

from collections.abc import Iterable

from .canonical import (
    bigram_total,
    canonical,
    dice_at_least,
    dice_enabled,
    has_digit,
    version_skeleton,
)
from .entry import MemoryEntry


def scan(entries: Iterable[MemoryEntry], candidate: MemoryEntry, threshold: float
         ) -> tuple[MemoryEntry | None, list[MemoryEntry]]:
    """(the duplicate, the conflicting entries) for ``candidate`` among entries of its type,
    scope and project. A duplicate has the same canonical form; a conflict is a numeric or
    version variant, or has bigram Dice ≥ ``threshold`` (off at 0.99 and above)."""
    text = candidate.content
    form = canonical(text)
    skeleton = version_skeleton(text)
    bucket = candidate.bucket
    use_dice = dice_enabled(threshold)
    size = bigram_total(text)
    digits = has_digit(text)
    duplicate = None
    found = []
    for entry in entries:
        if entry.id == candidate.id or entry.bucket != bucket:
            continue
        other = entry.content
        if canonical(other) == form:
            if duplicate is None:
                duplicate = entry
            continue
        if skeleton and (digits or has_digit(other)) and version_skeleton(other) == skeleton:
            found.append(entry)
            continue
        if use_dice:
            # Dice can never exceed 2·min/(|A|+|B|): most pairs stop at this bound.
            other_size = bigram_total(other)
            total = size + other_size
            if total and 2 * min(size, other_size) / total >= threshold \
                    and dice_at_least(text, other, threshold):
                found.append(entry)
    return duplicate, found


def find_duplicate(entries: Iterable[MemoryEntry], candidate: MemoryEntry) -> MemoryEntry | None:
    """The entry in the candidate's type/scope/project with the same canonical form, if any."""
    return scan(entries, candidate, 1.0)[0]


def find_conflicts(entries: Iterable[MemoryEntry], candidate: MemoryEntry,
                   threshold: float) -> list[MemoryEntry]:
    """Entries of the candidate's type/scope/project that state a different version of the same
    fact."""
    return scan(entries, candidate, threshold)[1]
