"""General developer vocabulary that CC-CEDICT translates in its everyday sense.

CC-CEDICT is a general dictionary: 异常 is "unusual", 调用 "to transfer", 遍历 "everywhere".
The table (``devvocab.tsv`` next to this module, shipped in the wheel) holds common programming
words, as used across languages and codebases, with the English words code spells them with.
It must stay generic: no word in it may be chosen for one project or question set.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources

DATA_FILE = "devvocab.tsv"
_PACKAGE = __name__.rpartition(".")[0]


def vocabulary_entries(text: str) -> Iterator[tuple[int, str, tuple[str, ...]]]:
    """Every entry line of a glossary file as ``(line number, Chinese word, English words)``,
    unvalidated: a line without a tab gives an empty English tuple. Blank lines and ``#``
    comment lines are skipped."""
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        word, tab, english = line.partition("\t")
        words = tuple(english.lower().split()) if tab else ()
        yield number, word.strip(), words


def parse_vocabulary(text: str) -> dict[str, tuple[str, ...]]:
    """The glossary in ``text`` as a dict. Lenient, because a bad line must not break code
    search: lines without a word or English are skipped, and the first of repeated words
    wins (the tests keep the shipped file free of both)."""
    table: dict[str, tuple[str, ...]] = {}
    for _, word, english in vocabulary_entries(text):
        if word and english and word not in table:
            table[word] = english
    return table


def read_vocabulary_text() -> str:
    """The text of the shipped glossary file."""
    return (resources.files(_PACKAGE) / DATA_FILE).read_text(encoding="utf-8")


DEV_VOCABULARY: dict[str, tuple[str, ...]] = parse_vocabulary(read_vocabulary_text())
"""Chinese developer word → English code words, most likely first (about 1,400 entries, read
once at import: the file is ~30 KB)."""
