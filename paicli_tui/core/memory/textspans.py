"""Where sentences, code fences, block quotes and quoted passages sit in a text (behaviour §15).

Everything works on character offsets into one string, so a quote found at an offset can be
checked against the regions around it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HARD_ENDS = frozenset("。！？；;!?\n")
_PAIRS = (("“", "”"), ("‘", "’"), ("「", "」"), ("『", "』"), ("«", "»"), ("„", "“"),
          ('"', '"'), ("`", "`"))
# 'single quotes' around a passage: the opening mark follows no letter or digit and the closing
# one precedes none, so apostrophes (don't, users') never pair up.
_SINGLE_QUOTED = re.compile(r"(?<![\w'])'(?=\S)[^'\n]*?(?<=\S)'(?![\w'])")
FENCE_LINE = re.compile(r"^\s*(```|~~~)")
"""A line that opens or closes a Markdown code fence."""
_BLOCKQUOTE = re.compile(r"^\s*[>＞]")


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int
    """Offset just after the terminator (or the end of the text)."""
    text: str
    terminator: str
    """The closing character: one of 。！？；; ! ? . a newline, or '' at the end of the text."""


def _glued(text: str, i: int) -> bool:
    """An ASCII ? or ! with a word or = right after it is part of a token (a URL query
    ``/?lang=zh``, ``!=``), not the end of a sentence."""
    nxt = text[i + 1] if i + 1 < len(text) else ""
    return text[i] in "?!" and (nxt == "=" or (nxt.isascii() and nxt.isalnum()))


def split_sentences(text: str) -> list[Sentence]:
    """Sentences end at 。！？；; ! ? a newline, or a '.' followed by whitespace or the end
    (an ASCII ? or ! glued to the next word, as in a URL query, does not end one)."""
    out: list[Sentence] = []
    start = 0
    for i, ch in enumerate(text):
        ends = (ch in _HARD_ENDS and not _glued(text, i)) or (
            ch == "." and (i + 1 == len(text) or text[i + 1].isspace()))
        if ends:
            out.append(Sentence(start, i + 1, text[start:i + 1], ch))
            start = i + 1
    if start < len(text):
        out.append(Sentence(start, len(text), text[start:], ""))
    return out


def line_bounds(text: str) -> list[tuple[int, int]]:
    """(start, end) of every line, end excluding the newline."""
    bounds, start = [], 0
    for line in text.split("\n"):
        bounds.append((start, start + len(line)))
        start += len(line) + 1
    return bounds


def fenced_mask(text: str) -> list[bool]:
    """Per character: inside a ``` or ~~~ code fence (fence lines included). An unclosed fence
    runs to the end of the text."""
    mask = [False] * len(text)
    inside = False
    for start, end in line_bounds(text):
        line = text[start:end]
        is_fence = bool(FENCE_LINE.match(line))
        if inside or is_fence:
            for i in range(start, min(end + 1, len(text))):
                mask[i] = True
        if is_fence:
            inside = not inside
    return mask


def blockquote_mask(text: str) -> list[bool]:
    """Per character: on a line that starts with '>' (a quoted message)."""
    mask = [False] * len(text)
    for start, end in line_bounds(text):
        if _BLOCKQUOTE.match(text[start:end]):
            for i in range(start, end):
                mask[i] = True
    return mask


def quoted_regions(text: str) -> list[tuple[int, int]]:
    """(start, end) of passages in paired quotation marks (‘’ “” "" 「」 『』 «» „“, `code`,
    and 'single quotes' that are not apostrophes), marks included. Pairs do not span lines;
    an opening mark without its closing mark quotes nothing."""
    regions: list[tuple[int, int]] = []
    for start, end in line_bounds(text):
        line = text[start:end]
        for opening, closing in _PAIRS:
            pos = 0
            while True:
                a = line.find(opening, pos)
                if a < 0:
                    break
                b = line.find(closing, a + 1)
                if b < 0:
                    break
                regions.append((start + a, start + b + 1))
                pos = b + 1
        regions.extend((start + m.start(), start + m.end())
                       for m in _SINGLE_QUOTED.finditer(line))
    return regions


def without_regions(text: str, regions: list[tuple[int, int]]) -> str:
    """``text`` with the given regions blanked out (offsets of the rest unchanged)."""
    chars = list(text)
    for a, b in regions:
        for i in range(a, b):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)
