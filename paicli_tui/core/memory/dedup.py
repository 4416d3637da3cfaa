"""Which stored entries a new fact duplicates or conflicts with (SPEC §12).

One pass over the store. Each entry computes its forms once (``MemoryEntry.forms``; entries are
immutable and shared while the file is unchanged), so a save costs one cheap comparison per
stored memory: linear in the store.
"""

from __future__ import annotations

from collections.abc import Iterable

from .canonical import dice, dice_enabled, forms
from .entry import MemoryEntry


def scan(entries: Iterable[MemoryEntry], candidate: MemoryEntry, threshold: float
         ) -> tuple[MemoryEntry | None, list[MemoryEntry]]:
    """(the duplicate, the conflicting entries) for ``candidate`` among entries of its type,
    scope and project. A duplicate has the same canonical form; a conflict is a numeric or
    version variant, or has bigram Dice ≥ ``threshold`` (off at 0.99 and above)."""
    mine = forms(candidate.content)
    bucket = candidate.bucket
    use_dice = dice_enabled(threshold)
    size, keys, repeats = mine.bigrams.total, mine.bigrams.keys, mine.bigrams.repeats
    duplicate = None
    found = []
    for entry in entries:
        if entry.bucket != bucket or entry.id == candidate.id:
            continue
        theirs = entry.forms
        if theirs.canonical == mine.canonical:
            if duplicate is None:
                duplicate = entry
            continue
        if mine.skeleton and (mine.has_digit or theirs.has_digit) \
                and theirs.skeleton == mine.skeleton:
            found.append(entry)
            continue
        if not use_dice:
            continue
        # Upper bounds first: Dice ≤ 2·min/(|A|+|B|), and the shared multiset is at most the
        # shared distinct bigrams plus either side's repeats. Most pairs stop here.
        other = theirs.bigrams
        total = size + other.total
        if not total or 2 * min(size, other.total) / total < threshold:
            continue
        bound = len(keys & other.keys) + min(repeats, other.repeats)
        if 2 * min(bound, size, other.total) / total < threshold:
            continue
        if dice(candidate.content, entry.content) >= threshold:
            found.append(entry)
    return duplicate, found

