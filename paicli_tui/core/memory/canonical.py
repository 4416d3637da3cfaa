"""Canonical form, duplicates and conflicts between memories (behaviour §12).

All functions are pure and cached by text, so a save can scan a store of 10,000 entries
without recomputing the forms of the entries it already saw.
"""

from __future__ import annotations

import operator
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Literal

# Characters that carry meaning in paths, handles, percentages and identifiers: kept.
_KEEP = frozenset("#/@\\%_-")
# Filler characters of Chinese that change nothing about a fact.
_FILLER = frozenset("的地得是")
# Symbols that are only decoration in prose (backtick code marks).
_EXTRA_DROP = frozenset("`´")
_SPACES = re.compile(r"\s+")
_DIGIT = re.compile(r"\d")
# Numbers and version strings: 17, 3.12.1, v2, 1.0-rc1, 2.x. Removed to find "same sentence,
# different version" conflicts.
_VERSION = re.compile(
    r"(?<![a-z])v(?=\d)|\d+(?:\.(?:\d+|x))*(?:[-_.]?(?:rc|alpha|beta|snapshot|lts|final|ga)\d*)?",
    re.IGNORECASE,
)


def _drop_char(ch: str) -> bool:
    if ch in _KEEP:
        return False
    if ch in _FILLER or ch in _EXTRA_DROP:
        return True
    return unicodedata.category(ch).startswith("P")


class _Table(dict[int, "int | str | None"]):
    """str.translate table filled on first sight of each character: whitespace becomes a
    space, dropped characters vanish, the rest stay (C speed after the first time)."""

    def __missing__(self, code: int) -> int | str | None:
        ch = chr(code)
        value: int | str | None = " " if ch.isspace() else None if _drop_char(ch) else code
        self[code] = value
        return value


_TABLE = _Table()


@lru_cache(maxsize=65_536)
def canonical(text: str) -> str:
    """Lower case, whitespace runs collapsed, ordinary punctuation and 的地得是 removed,
    keeping ``# / @ \\ % _ -``."""
    kept = unicodedata.normalize("NFKC", text).lower().translate(_TABLE)
    return _SPACES.sub(" ", kept).strip()


@lru_cache(maxsize=65_536)
def version_skeleton(text: str) -> str:
    """The canonical form with numbers and version strings removed."""
    if not has_digit(text):  # every number or version needs a digit: nothing to remove
        return canonical(text)
    text = unicodedata.normalize("NFKC", text)
    return canonical(_VERSION.sub(" ", text))


@dataclass(frozen=True)
class _Bigrams:
    keys: frozenset[str]
    total: int
    repeats: int
    """total − distinct: how far the multiset exceeds its set."""


@lru_cache(maxsize=65_536)
def _bigrams(text: str) -> _Bigrams:
    form = canonical(text).replace(" ", "")
    keys = frozenset(map(operator.add, form[:-1], form[1:]))
    total = max(0, len(form) - 1)
    return _Bigrams(keys, total, total - len(keys))


@lru_cache(maxsize=4_096)
def _bigram_counts(text: str) -> Counter[str]:
    """The bigram multiset, needed only for the exact Dice value of close pairs."""
    form = canonical(text).replace(" ", "")
    return Counter(map(operator.add, form[:-1], form[1:]))


def dice(a: str, b: str) -> float:
    """Character-bigram Dice coefficient of the canonical forms (1.0 for equal forms)."""
    ca, cb = canonical(a).replace(" ", ""), canonical(b).replace(" ", "")
    if ca == cb:
        return 1.0
    ba, bb = _bigrams(a), _bigrams(b)
    total = ba.total + bb.total
    if total == 0:
        return 0.0
    ca_counts, cb_counts = _bigram_counts(a), _bigram_counts(b)
    small, large = (ca_counts, cb_counts) if len(ca_counts) <= len(cb_counts) \
        else (cb_counts, ca_counts)
    shared = 0
    for key, count in small.items():
        other = large.get(key, 0)
        shared += count if count < other else other
    return 2 * shared / total


SIGNATURE_BUCKETS = 128
"""Distinct bigrams are counted in this many buckets: the signature of a text."""


def _bucket(key: str) -> int:
    return (ord(key[0]) * 131 + ord(key[1])) % SIGNATURE_BUCKETS


def signature(keys: frozenset[str]) -> bytes:
    """How many distinct bigrams fall in each bucket. Two texts share at most
    ``overlap(sig_a, sig_b)`` distinct bigrams (a shared bigram lies in the same bucket on
    both sides), so the Dice bound can be checked without either bigram set."""
    counts = bytearray(SIGNATURE_BUCKETS)
    for key in keys:
        index = _bucket(key)
        if counts[index] < 255:
            counts[index] += 1
    return bytes(counts)


def overlap(a: bytes, b: bytes) -> int:
    """An upper bound of the distinct bigrams two texts share, from their signatures (a
    bucket holding 255 means "255 or more": such a text makes the bound loose, not wrong)."""
    return sum(map(min, a, b)) if 255 not in a and 255 not in b else 1 << 30


@dataclass(frozen=True)
class Forms:
    """Everything the duplicate/conflict rule needs about one text, computed once. The
    bigram sets are built only for the few pairs that pass the cheap bounds; the rest can
    come from a cache (see ``forms_cache``)."""

    text: str
    canonical: str
    skeleton: str
    has_digit: bool
    total: int
    """Bigrams of the canonical form without spaces, repeats counted."""
    repeats: int
    """total − distinct bigrams."""
    signature: bytes

    @cached_property
    def bigrams(self) -> _Bigrams:
        return _bigrams(self.text)


def forms(text: str) -> Forms:
    """The canonical form, version skeleton and bigrams of ``text``."""
    grams = _bigrams(text)
    made = Forms(text, canonical(text), version_skeleton(text), has_digit(text), grams.total,
                 grams.repeats, signature(grams.keys))
    made.__dict__["bigrams"] = grams  # computed already: the cached property's value
    return made


def has_digit(text: str) -> bool:
    """Numbers and versions need a digit: without one on either side, no version variant."""
    return _DIGIT.search(text) is not None


def dice_enabled(threshold: float) -> bool:
    """A threshold of 0.99 or more switches the Dice rule off (behaviour §12)."""
    return threshold < 0.99


Relation = Literal["duplicate", "conflict"]


def relation(mine: Forms, theirs: Forms, threshold: float, *,
             shared_bound: int | None = None) -> Relation | None:
    """The rule (behaviour §12), in one place: ``duplicate`` for the same canonical form;
    ``conflict`` for a numeric or version variant ("uses Java 17" / "uses Java 21"), or for
    bigram Dice ≥ ``threshold`` (off at 0.99 and above); else None. ``shared_bound``:
    ``overlap(mine.signature, theirs.signature)`` when the caller computed it already (for
    a whole store at once: :func:`overlaps`)."""
    if theirs.canonical == mine.canonical:
        return "duplicate"
    if _version_variant(mine, theirs):
        return "conflict"
    if dice_enabled(threshold) and _dice_reaches(mine, theirs, threshold, shared_bound):
        return "conflict"
    return None


def overlaps(mine: bytes, signatures: list[bytes]) -> list[int]:
    """``[overlap(mine, s) for s in signatures]`` in one numpy pass (a save compares its fact
    with every stored one: ~0.3 s of Python at 50,000 memories, ~0.02 s here)."""
    import numpy as np

    if not signatures:
        return []
    rows = np.frombuffer(b"".join(signatures), dtype=np.uint8).reshape(len(signatures), -1)
    own = np.frombuffer(mine, dtype=np.uint8)
    bounds = np.minimum(rows, own).sum(axis=1, dtype=np.int64)
    if 255 in mine:
        return [1 << 30] * len(signatures)
    bounds[(rows == 255).any(axis=1)] = 1 << 30
    return bounds.tolist()


def _version_variant(mine: Forms, theirs: Forms) -> bool:
    # Without a digit on either side the skeleton is the canonical form, which differs here.
    return bool(mine.skeleton) and (mine.has_digit or theirs.has_digit) \
        and theirs.skeleton == mine.skeleton


def _dice_reaches(mine: Forms, theirs: Forms, threshold: float,
                  shared_bound: int | None = None) -> bool:
    """dice ≥ threshold, answered from cheap upper bounds whenever they suffice: Dice ≤
    2·min/(|A|+|B|), and the shared multiset is at most the shared distinct bigrams plus either
    side's repeats; the shared distinct bigrams are bounded first from the signatures, then
    counted from the sets. Most pairs stop at the first two bounds."""
    total = mine.total + theirs.total
    smaller = min(mine.total, theirs.total)
    if not total or 2 * smaller / total < threshold:
        return False
    repeats = min(mine.repeats, theirs.repeats)
    # the signature bound spares building a bigram set; once both sets exist, counting
    # their intersection is cheaper than comparing signatures
    if "bigrams" not in theirs.__dict__ and 2 * min(
            (overlap(mine.signature, theirs.signature) if shared_bound is None
             else shared_bound) + repeats, smaller) / total < threshold:
        return False
    bound = len(mine.bigrams.keys & theirs.bigrams.keys) + repeats
    if 2 * min(bound, smaller) / total < threshold:
        return False
    return dice(mine.text, theirs.text) >= threshold


def is_version_variant(a: str, b: str) -> bool:
    """Equal once numbers and versions are removed, but not the same fact: "uses Java 17" vs
    "uses Java 21"."""
    mine, theirs = forms(a), forms(b)
    return mine.canonical != theirs.canonical and _version_variant(mine, theirs)


def conflicts(a: str, b: str, threshold: float) -> bool:
    """True when ``a`` and ``b`` are different facts about the same thing (behaviour §12)."""
    return relation(forms(a), forms(b), threshold) == "conflict"
