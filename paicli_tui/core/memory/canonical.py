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
from functools import lru_cache
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


@dataclass(frozen=True)
class Forms:
    """Everything the duplicate/conflict rule needs about one text, computed once."""

    text: str
    canonical: str
    skeleton: str
    has_digit: bool
    bigrams: _Bigrams


def forms(text: str) -> Forms:
    """The canonical form, version skeleton and bigrams of ``text``."""
    return Forms(text, canonical(text), version_skeleton(text), has_digit(text), _bigrams(text))


def has_digit(text: str) -> bool:
    """Numbers and versions need a digit: without one on either side, no version variant."""
    return _DIGIT.search(text) is not None


def dice_enabled(threshold: float) -> bool:
    """A threshold of 0.99 or more switches the Dice rule off (behaviour §12)."""
    return threshold < 0.99


Relation = Literal["duplicate", "conflict"]


def relation(mine: Forms, theirs: Forms, threshold: float) -> Relation | None:
    """The rule (behaviour §12), in one place: ``duplicate`` for the same canonical form;
    ``conflict`` for a numeric or version variant ("uses Java 17" / "uses Java 21"), or for
    bigram Dice ≥ ``threshold`` (off at 0.99 and above); else None."""
    if theirs.canonical == mine.canonical:
        return "duplicate"
    if _version_variant(mine, theirs):
        return "conflict"
    if dice_enabled(threshold) and _dice_reaches(mine, theirs, threshold):
        return "conflict"
    return None


def _version_variant(mine: Forms, theirs: Forms) -> bool:
    # Without a digit on either side the skeleton is the canonical form, which differs here.
    return bool(mine.skeleton) and (mine.has_digit or theirs.has_digit) \
        and theirs.skeleton == mine.skeleton


def _dice_reaches(mine: Forms, theirs: Forms, threshold: float) -> bool:
    """dice ≥ threshold, answered from cheap upper bounds whenever they suffice: Dice ≤
    2·min/(|A|+|B|), and the shared multiset is at most the shared distinct bigrams plus either
    side's repeats. Most pairs stop at the bounds."""
    ours, other = mine.bigrams, theirs.bigrams
    total = ours.total + other.total
    if not total or 2 * min(ours.total, other.total) / total < threshold:
        return False
    bound = len(ours.keys & other.keys) + min(ours.repeats, other.repeats)
    if 2 * min(bound, ours.total, other.total) / total < threshold:
        return False
    return dice(mine.text, theirs.text) >= threshold


def is_duplicate(a: str, b: str) -> bool:
    """Same canonical form."""
    return canonical(a) == canonical(b)


def is_version_variant(a: str, b: str) -> bool:
    """Equal once numbers and versions are removed, but not the same fact: "uses Java 17" vs
    "uses Java 21"."""
    mine, theirs = forms(a), forms(b)
    return mine.canonical != theirs.canonical and _version_variant(mine, theirs)


def conflicts(a: str, b: str, threshold: float) -> bool:
    """True when ``a`` and ``b`` are different facts about the same thing (behaviour §12)."""
    return relation(forms(a), forms(b), threshold) == "conflict"
