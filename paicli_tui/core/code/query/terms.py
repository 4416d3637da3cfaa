"""Words out of code and questions: identifier splitting, stop words, plural folding.

Both sides of full-text ranking use these rules, so a question word ("colors") meets the
code word it names (``get_color_system``) whatever the index's own tokenizer does.
"""

from __future__ import annotations

import re

from ...text.english import STOP_WORDS, fold, stem

__all__ = ["STOP_WORDS", "fold", "stem", "split_identifier", "has_cjk", "code_terms",
           "expand_identifiers", "stem_line", "one_form_per_word"]

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def split_identifier(token: str) -> list[str]:
    """Lower-case word parts of one identifier: ``getHTTPResponse_code2`` → get, http,
    response, code, 2. A plain word gives itself; punctuation-only input gives nothing."""
    parts: list[str] = []
    for piece in re.split(r"[_\W]+", token):
        parts.extend(m.group(0).lower() for m in _CAMEL.finditer(piece))
    return [p for p in parts if p]


def has_cjk(text: str) -> bool:
    """True when ``text`` holds at least one Chinese (CJK ideograph) character."""
    return _CJK.search(text) is not None


def code_terms(text: str, *, keep_compounds: bool = True) -> list[str]:
    """Searchable lower-case words of ASCII text or code, in order.

    Every identifier gives its split parts; a compound identifier (``cell_len``,
    ``ColorSystem``) is also kept whole when ``keep_compounds`` so an exact name still wins.
    Stop words and one-letter words are dropped; a part whose stem (:func:`stem`) differs
    is followed by its stem, which :func:`stem_line` puts in indexed text.
    """
    out: list[str] = []
    for m in _WORD.finditer(text):
        token = m.group(0)
        parts = split_identifier(token)
        if keep_compounds and len(parts) > 1:
            out.append(token.lower())
        for p in parts:
            if len(p) > 1 and p not in STOP_WORDS:
                out.append(p)
                s = stem(p)
                if s != p:
                    out.append(s)
    return out


def expand_identifiers(text: str) -> str:
    """The split parts of every compound identifier in ``text``, space separated and each
    compound listed once, so a word-level index also matches the parts."""
    seen: set[str] = set()
    out: list[str] = []
    for m in _WORD.finditer(text):
        token = m.group(0)
        if token in seen:
            continue
        seen.add(token)
        parts = split_identifier(token)
        if len(parts) > 1:
            out.append(" ".join(parts))
    return " ".join(out)


def stem_line(text: str) -> str:
    """Each distinct stem of the words in ``text`` that differs from its word, space
    separated: appended to indexed text so stemmed query words (:func:`code_terms`) match
    whatever the index's own tokenizer does."""
    seen: set[str] = set()
    out: list[str] = []
    for m in _WORD.finditer(text):
        for part in split_identifier(m.group(0)):
            if part in seen or len(part) < 3 or part.isdigit():
                continue
            seen.add(part)
            s = stem(part)
            if s != part and s not in seen:
                seen.add(s)
                out.append(s)
    return " ".join(out)


def one_form_per_word(terms: list[str]) -> list[str]:
    """``terms`` with a word dropped when its stem, a different string, is also there
    (``colors color`` → ``color``): each word of a question then counts once in full-text
    ranking instead of twice, and the stem still matches every inflection, because indexed
    text carries its stems (:func:`stem_line`). Order kept."""
    present = set(terms)
    return [t for t in terms if not (stem(t) != t and stem(t) in present)]
