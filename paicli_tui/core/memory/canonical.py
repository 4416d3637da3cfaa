"""Canonical form, duplicates and conflicts between memories (SPEC §12).

All functions are pure and cached by text, so a save can scan a store of 10,000 entries
without recomputing the forms of the entries it already saw.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import lru_cache

# Characters that carry meaning in paths, handles, percentages and identifiers: kept.
_KEEP = frozenset("#/@\\%_-")
# Filler characters of Chinese that change nothing about a fact.
_FILLER = frozenset("的地得是")
# Symbols that are only decoration in prose (backtick code marks).
_EXTRA_DROP = frozenset("`´")
_SPACES = re.compile(r"\s+")
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


@lru_cache(maxsize=65_536)
def canonical(text: str) -> str:
    """Lower case, whitespace runs collapsed, ordinary punctuation and 的地得是 removed,
    keeping ``# / @ \\ % _ -``."""
    text = unicodedata.normalize("NFKC", text).lower()
    kept = "".join(" " if ch.isspace() else ch for ch in text if not _drop_char(ch))
    return _SPACES.sub(" ", kept).strip()


@lru_cache(maxsize=65_536)
def version_skeleton(text: str) -> str:
    """The canonical form with numbers and version strings removed."""
    text = unicodedata.normalize("NFKC", text)
    return canonical(_VERSION.sub(" ", text))


@lru_cache(maxsize=65_536)
def _bigrams(text: str) -> Counter[str]:
    form = canonical(text).replace(" ", "")
    return Counter(form[i:i + 2] for i in range(len(form) - 1))


def dice(a: str, b: str) -> float:
    """Character-bigram Dice coefficient of the canonical forms (1.0 for equal forms)."""
    ca, cb = canonical(a).replace(" ", ""), canonical(b).replace(" ", "")
    if ca == cb:
        return 1.0
    ba, bb = _bigrams(a), _bigrams(b)
    total = sum(ba.values()) + sum(bb.values())
    if total == 0:
        return 0.0
    return 2 * sum((ba & bb).values()) / total


def is_duplicate(a: str, b: str) -> bool:
    """Same canonical form."""
    return canonical(a) == canonical(b)


def is_version_variant(a: str, b: str) -> bool:
    """Equal once numbers and versions are removed, but not the same fact: "uses Java 17" vs
    "uses Java 21"."""
    if canonical(a) == canonical(b):
        return False
    skeleton = version_skeleton(a)
    return bool(skeleton) and skeleton == version_skeleton(b)


def dice_enabled(threshold: float) -> bool:
    """A threshold of 0.99 or more switches the Dice rule off (SPEC §12)."""
    return threshold < 0.99


def conflicts(a: str, b: str, threshold: float) -> bool:
    """True when ``a`` and ``b`` are different facts about the same thing (SPEC §12)."""
    if canonical(a) == canonical(b):
        return False
    if is_version_variant(a, b):
        return True
    if not dice_enabled(threshold):
        return False
    # Cheap bound first: Dice can never exceed 2·min/(|A|+|B|), so most pairs stop here.
    na, nb = sum(_bigrams(a).values()), sum(_bigrams(b).values())
    if na + nb == 0 or 2 * min(na, nb) / (na + nb) < threshold:
        return False
    return dice(a, b) >= threshold
