"""A count and its noun in words: "1 file", "2 files", never "file(s)"."""

from __future__ import annotations


def noun_for(n: int, noun: str, plural: str = "") -> str:
    """``noun`` for one, else ``plural`` (by default the noun with an s)."""
    return noun if n == 1 else plural or noun + "s"


def counted(n: int, noun: str, plural: str = "") -> str:
    """``1 file``, ``2 files``, ``1,204 files``; ``plural`` for a noun that does not take an
    s (``counted(3, "memory", "memories")``)."""
    return f"{n:,} {noun_for(n, noun, plural)}"
