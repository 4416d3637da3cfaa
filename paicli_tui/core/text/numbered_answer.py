"""A light model's answer that names numbered items: the memory choice (core.memory.selection)
and the search rerank (core.code.rerank) read it with the same rule.

Usable: ``none`` (no item: ``()``), or numbers separated by spaces, commas (also ``，`` and
``、``), semicolons or ``>``, each optionally written ``[3]``, ``#3`` or ``3.``; the whole may
sit in backticks. Repeats count once; numbers past the list (a weak model answering
``3, 7, 99`` out of 30) are left out and counted, so the caller can say so. When most of the
distinct numbers are past the list, the answer is garbage, not a choice: unusable. Unusable
too: not text, empty, longer than :data:`MAX_ANSWER_CHARS`, any word that is not a number
(prose, a range such as ``1-20``), or no number of a listed item.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_ANSWER_CHARS = 2_000
"""A longer answer is not a short list of numbers: unusable."""

_NONE = re.compile(r"none\.?", re.IGNORECASE)
# ASCII digits only: \d would take full-width and other scripts' digits as numbers too
_NUMBER = re.compile(r"#?\[?([0-9]{1,6})\]?\.?")
_SEPARATORS = re.compile(r"[\s,，、;；>]+")


@dataclass(frozen=True)
class NumberedAnswer:
    """The listed items an answer names (1-based, in its order, each once, at most the
    caller's limit) and how many distinct numbers it gave that name no listed item."""

    numbers: tuple[int, ...]
    ignored: int = 0

    def ignored_note(self, what: str) -> str:
        """``'2 numbers that are no candidate's ignored'``; '' when none was."""
        if not self.ignored:
            return ""
        return f"{self.ignored} number{'s' if self.ignored > 1 else ''} that " \
               f"{'are' if self.ignored > 1 else 'is'} no {what}'s ignored"


def parse_numbered_answer(answer: object, count: int, limit: int) -> NumberedAnswer | None:
    """The items 1..``count`` that ``answer`` names, at most ``limit``; None when the answer
    is unusable (the module docstring says when)."""
    if not isinstance(answer, str) or len(answer) > MAX_ANSWER_CHARS or count < 1:
        return None
    text = answer.strip().strip("`").strip()
    if _NONE.fullmatch(text):
        return NumberedAnswer(())
    tokens = [t for t in _SEPARATORS.split(text.rstrip(".")) if t]
    if not tokens:
        return None
    numbers: list[int] = []
    for token in tokens:
        match = _NUMBER.fullmatch(token)
        if match is None:
            return None
        numbers.append(int(match.group(1)))
    distinct = list(dict.fromkeys(numbers))
    listed = [n for n in distinct if 1 <= n <= count]
    ignored = len(distinct) - len(listed)
    if not listed or ignored > len(listed):
        return None
    return NumberedAnswer(tuple(listed[:limit]), ignored)
