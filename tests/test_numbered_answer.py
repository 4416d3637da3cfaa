"""One rule for a light model's answer naming numbered items (the memory choice, the search
rerank): the listed numbers in the answer's order, numbers past the list ignored and counted,
mostly such numbers or anything but numbers is unusable (None)."""

from __future__ import annotations

from typing import Any

import pytest

from paicli_tui.core.text.numbered_answer import NumberedAnswer, parse_numbered_answer

TWENTY = ", ".join(str(n) for n in range(1, 21))
TEN = tuple(range(1, 11))


@pytest.mark.parametrize(("answer", "count", "numbers", "ignored"), [
    # the forms a list takes
    ("3 1 2", 5, (3, 1, 2), 0),
    ("3, 1, 2", 5, (3, 1, 2), 0),
    ("5, 2", 6, (5, 2), 0),                          # the model's order
    ("[3] [1]", 5, (3, 1), 0),
    ("[1, 4]", 6, (1, 4), 0),
    ("#2 #3", 6, (2, 3), 0),
    ("3.\n1.\n", 5, (3, 1), 0),
    ("2.", 6, (2,), 0),
    ("3 > 1 > 2", 5, (3, 1, 2), 0),
    ("2; 5", 6, (2, 5), 0),
    ("2，5、6", 6, (2, 5, 6), 0),                    # Chinese commas
    ("`3`", 6, (3,), 0),
    ("  7  ", 30, (7,), 0),
    ("30 1", 30, (30, 1), 0),
    ("none", 6, (), 0),                              # no item: a valid choice
    ("None.", 6, (), 0),
    # repeats once, at most the limit (10)
    ("2 2 1 2", 5, (2, 1), 0),
    ("1 2 3 4 5 6 7 8 9 10 11 12", 30, TEN, 0),
    (TWENTY, 20, TEN, 0),
    # numbers past the list: ignored and counted, unless they are most of the answer
    ("3, 7, 99", 30, (3, 7), 1),
    ("2, 9", 6, (2,), 1),                            # half: still a choice
    ("0 1", 5, (1,), 1),                             # no item 0
    ("6 1", 5, (1,), 1),
    ("99, 99, 3", 30, (3,), 1),                      # a repeat counts once
    (TWENTY + ", 21, 99", 12, TEN, 10),              # 10 of 22 past the list
    ("0, 7", 6, None, None),                         # only numbers past the list
    ("31", 30, None, None),
    ("1234", 5, None, None),
    ("31 32 2", 30, None, None),                     # mostly past the list: garbage
    # anything but numbers: unusable
    ("", 5, None, None),
    ("   \n ", 5, None, None),
    ("none of them", 5, None, None),
    ("The best is 3, then 1.", 5, None, None),
    ("I think 2 and 5", 6, None, None),
    ("3 1 because", 5, None, None),
    ("Memories: 2", 6, None, None),
    ("1-20", 20, None, None),                        # a range is not a list
    ("-1 2", 5, None, None),
    ("1.5 2", 5, None, None),
    ("３ １", 5, None, None),                         # full-width digits are not our numbers
    ("2, " * 700, 6, None, None),                    # over 2,000 characters
    (None, 5, None, None),
    (3, 5, None, None),
    ("1", 0, None, None),                            # nothing was listed
])
def test_parse_numbered_answer(answer: Any, count: int, numbers: tuple[int, ...] | None,
                               ignored: int | None) -> None:
    expected = None if numbers is None else NumberedAnswer(numbers, ignored or 0)
    assert parse_numbered_answer(answer, count, 10) == expected


@pytest.mark.parametrize(("ignored", "note"), [
    (0, ""),
    (1, "1 number that is no card's ignored"),
    (3, "3 numbers that are no card's ignored"),
])
def test_the_note_says_how_many_were_ignored(ignored: int, note: str) -> None:
    assert NumberedAnswer((1,), ignored).ignored_note("card") == note
