"""English programming thesaurus: words interchangeable in code naming.

People ask for "the final item" when the code says ``last``, "spacing" when it says
``padding``. The table (``synonyms.tsv`` next to this module) holds small groups of words a
programmer would accept for the same thing in an identifier; :func:`expand` maps question
words to the other members of their groups so a full-text ranker can meet the code's word.

The table is read once, on first use; after that an expansion is a few dict lookups.
Nothing here is wired into search or query planning: callers decide whether and how to
weigh the extra words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files

from paicli_tui.core.code.query.terms import fold, stem

TABLE_NAME = "synonyms.tsv"
MAX_GROUPS_PER_WORD = 3

_VALID_WORD = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class _Table:
    groups: tuple[tuple[str, ...], ...]
    by_word: dict[str, tuple[int, ...]]  # member → indexes of its groups, in file order
    by_stem: dict[str, tuple[int, ...]]  # stem(member) → indexes of groups holding it


def parse_groups(text: str) -> tuple[tuple[str, ...], ...]:
    """Groups of a thesaurus text, in order.

    One group per line, words separated by spaces or tabs; ``#`` starts a comment; blank
    lines are skipped. Raises ``ValueError`` naming the line when a word is not a lower-case
    ASCII word, a group has fewer than two words or repeats a word, a group repeats an
    earlier group, or a word is in more than :data:`MAX_GROUPS_PER_WORD` groups.
    """
    groups: list[tuple[str, ...]] = []
    seen_groups: dict[frozenset[str], int] = {}
    uses: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        bad = [w for w in words if not _VALID_WORD.fullmatch(w)]
        if bad:
            raise ValueError(f"line {number}: not a lower-case ASCII word: {bad[0]!r}")
        if len(words) < 2:
            raise ValueError(f"line {number}: a group needs at least two words")
        if len(set(words)) != len(words):
            raise ValueError(f"line {number}: a word is repeated in the group")
        key = frozenset(words)
        if key in seen_groups:
            raise ValueError(f"line {number}: same group as line {seen_groups[key]}")
        seen_groups[key] = number
        for word in words:
            uses[word] = uses.get(word, 0) + 1
            if uses[word] > MAX_GROUPS_PER_WORD:
                raise ValueError(
                    f"line {number}: {word!r} is in more than {MAX_GROUPS_PER_WORD} groups"
                )
        groups.append(tuple(words))
    return tuple(groups)


@lru_cache(maxsize=1)
def _table() -> _Table:
    text = (files(__package__) / TABLE_NAME).read_text(encoding="utf-8")
    groups = parse_groups(text)
    by_word: dict[str, list[int]] = {}
    by_stem: dict[str, list[int]] = {}
    for index, group in enumerate(groups):
        for word in group:
            by_word.setdefault(word, []).append(index)
            holders = by_stem.setdefault(stem(word), [])
            if index not in holders:
                holders.append(index)
    return _Table(
        groups=groups,
        by_word={w: tuple(ix) for w, ix in by_word.items()},
        by_stem={s: tuple(ix) for s, ix in by_stem.items()},
    )


def groups() -> tuple[tuple[str, ...], ...]:
    """Every group of the packaged thesaurus, in file order, most common spelling first."""
    return _table().groups


def _base_forms(word: str) -> list[str]:
    """The word and its likely dictionary forms (``deleted`` → ``delete``, ``stopping`` →
    ``stop``, ``entries`` → ``entry``), tried as exact members before stem matching so that
    an inflected word finds its own group rather than a stem-sharing one (``terminated``
    is ``terminate``, not ``terminal``)."""
    forms = [word, fold(word)]
    if word.endswith("es") and len(word) > 4:
        forms.append(word[:-2])
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            base = word[: -len(suffix)]
            forms += [base, base + "e"]
            if len(base) > 2 and base[-1] == base[-2]:
                forms.append(base[:-1])  # stopping → stop
    return forms


def _group_indexes(word: str) -> tuple[int, ...]:
    table = _table()
    for form in _base_forms(word):
        if form in table.by_word:
            return table.by_word[form]
    return table.by_stem.get(stem(word), ())


@lru_cache(maxsize=8192)
def synonyms(word: str) -> tuple[str, ...]:
    """Synonyms of one word: the other members of all its groups, most common first.

    A word finds its groups as a member (also in a plural or -ed/-ing form), else through
    its stem (:func:`~paicli_tui.core.code.query.terms.stem`). Members are ranked by their
    place in their group, so every group's head comes before any group's second word. The
    word itself and any member with the same stem (which full-text matching already
    meets) are left out. An unknown word gives ``()``.
    """
    key = word.lower()
    indexes = _group_indexes(key)
    if not indexes:
        return ()
    own_stem = stem(key)
    table = _table()
    ranked: list[str] = []
    seen = {key}
    longest = max(len(table.groups[i]) for i in indexes)
    for place in range(longest):
        for index in indexes:
            group = table.groups[index]
            if place >= len(group):
                continue
            member = group[place]
            if member in seen or stem(member) == own_stem:
                continue
            seen.add(member)
            ranked.append(member)
    return tuple(ranked)


def expand(words: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Map each given lower-case word to its synonyms (see :func:`synonyms`).

    Every given word is a key, an unknown word with ``()``; the word itself is never among
    its own synonyms. Pure: the same words always give the same answer.
    """
    return {word: synonyms(word) for word in words}
