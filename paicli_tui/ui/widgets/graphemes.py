"""Where a character as a person sees it begins and ends in a line of text.

Textual's text box moves and deletes by code point: ← and → stopped inside an emoji made of
joined characters (👨‍👩‍👧 is five code points, 👍🏽 two, 🇨🇳 two), and Backspace took it apart one
piece at a time, leaving a lone 👨 or a skin-tone square. This is the part of Unicode's
grapheme rules (UAX #29) that text typed or pasted into a prompt meets: combining marks,
variation selectors, skin tones, emoji tags, joiners and flag pairs; Hangul syllables and
Chinese characters are one code point each already.
"""

from __future__ import annotations

import unicodedata

ZERO_WIDTH_JOINER = "\u200d"


def _extends(char: str) -> bool:
    """True for a code point that belongs to the character before it."""
    point = ord(char)
    return (0xFE00 <= point <= 0xFE0F or 0xE0100 <= point <= 0xE01EF   # variation selectors
            or 0x1F3FB <= point <= 0x1F3FF                              # skin tones
            or 0xE0020 <= point <= 0xE007F                              # emoji tags
            or char == ZERO_WIDTH_JOINER
            or unicodedata.category(char) in ("Mn", "Me", "Mc"))        # combining marks


def _regional(char: str) -> bool:
    return 0x1F1E6 <= ord(char) <= 0x1F1FF


def _joined(line: str, column: int) -> bool:
    """True when the code point at ``column`` is part of the character before it."""
    return 0 < column < len(line) and (_extends(line[column])
                                       or line[column - 1] == ZERO_WIDTH_JOINER)


def next_boundary(line: str, column: int) -> int:
    """The column just after the character that starts at (or contains) ``column``."""
    if column >= len(line):
        return len(line)
    end = column + 1
    if _regional(line[column]) and end < len(line) and _regional(line[end]) \
            and _regionals_before(line, column) % 2 == 0:
        end += 1  # a flag: two regional indicators
    while _joined(line, end):
        end += 1
    return end


def previous_boundary(line: str, column: int) -> int:
    """The column where the character that ends at ``column`` starts."""
    if column <= 0:
        return 0
    start = min(column, len(line)) - 1
    while _joined(line, start):
        start -= 1
    if start > 0 and _regional(line[start]) and _regional(line[start - 1]) \
            and _regionals_before(line, start) % 2 == 1:
        start -= 1  # the second half of a flag
    return start


def character_start(line: str, column: int) -> int:
    """``column`` when a character starts there, else where the character holding it
    starts (a place inside a joined emoji is no place for the cursor)."""
    start = previous_boundary(line, column)
    return column if next_boundary(line, start) <= column else start


def _regionals_before(line: str, column: int) -> int:
    count = 0
    while column - count - 1 >= 0 and _regional(line[column - count - 1]):
        count += 1
    return count
