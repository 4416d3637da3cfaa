"""A query that only names code (``Progress``, ``class Progress``, ``Progress.update``,
``get_console()``, ``Progress 类``) is answered by those definitions first.

Exact search first: a person who types a name into code search wants its definition, not
what ranks near it. The full-text reading splits ``Progress`` into words and the embedders
read it as a topic, so ``class Progress`` in rich listed ``ProgressBar.__repr__`` and
``BarColumn.render`` and not ``class Progress`` at all. Only a short query whose every word
is an identifier (or a kind word: class, def, 类, 方法 …) counts as naming code; a question
in words is ranked as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

NAMED_FIRST_MAX = 10
"""At most this many definitions are put first (a name many methods share: ``render``)."""

MAX_NAMES = 2
"""A query naming more identifiers than this is read as words (``foo bar baz qux``)."""

# A name may start with any letter, not only a Latin one: Java, Go, TypeScript and Python
# take ``class 订单`` or ``func 结算()``, and such a name was read as words and not looked up.
_PART = r"(?:[^\W\d]|\$)[\w$]*"
_IDENTIFIER = re.compile(rf"{_PART}(?:\.{_PART})*(?:\(\))?")
_TYPE_WORDS = {"class", "interface", "struct", "type", "enum", "record", "trait", "类",
               "接口", "结构体", "枚举"}
_FUNCTION_WORDS = {"def", "function", "func", "fn", "函数"}
_METHOD_WORDS = {"method", "方法"}


@dataclass(frozen=True)
class NamedQuery:
    """The identifiers a query names and the kinds of definition it asks for."""

    names: tuple[str, ...]
    kinds: frozenset[str]


def named_query(query: str) -> NamedQuery | None:
    """The names ``query`` consists of, or None when it is a question in words."""
    words = query.replace("（", " ").replace("）", " ").split()
    kinds: set[str] = set()
    names: list[str] = []
    for word in words:
        lowered = word.lower()
        if lowered in _TYPE_WORDS:
            kinds.add("class")
        elif lowered in _FUNCTION_WORDS:  # a method is a function too (def, func)
            kinds.update(("function", "method"))
        elif lowered in _METHOD_WORDS:
            kinds.add("method")
        elif _IDENTIFIER.fullmatch(word):
            names.append(word.removesuffix("()"))
        else:
            return None
    if not names or len(names) > MAX_NAMES:
        return None
    if not kinds and len(names) > 1:
        return None  # two plain words are a phrase ("retry policy"), not two names
    return NamedQuery(tuple(names), frozenset(kinds or ("class", "function", "method")))


def definition_filter(named: NamedQuery) -> str:
    """A filter on the chunk table for the definitions ``named`` names."""
    from .lance_store import sql_string

    clauses = []
    for name in named.names:
        if "class" in named.kinds:  # a type, nested ones by their last part too
            clauses.append(f"(kind = 'class' AND (name = {sql_string(name)} "
                           f"OR name LIKE {_like_pattern('%.' + name)}))")
        callable_kinds = sorted(named.kinds - {"class"})
        if callable_kinds:
            listed = ", ".join(sql_string(k) for k in callable_kinds)
            clauses.append(f"(kind IN ({listed}) AND (name LIKE {_like_pattern(name + '(%')} "
                           f"OR name LIKE {_like_pattern('%.' + name + '(%')}))")
    return " OR ".join(clauses)


def _like_pattern(pattern: str) -> str:
    """A LIKE pattern whose ``_`` (in most identifiers) matches only itself."""
    from .lance_store import sql_string

    escaped = pattern.replace("\\", "\\\\").replace("_", "\\_")
    return f"{sql_string(escaped)} ESCAPE '\\'"


_KIND_ORDER = {"class": 0, "function": 1, "method": 2}


def named_definitions(table: Any, query: str, columns: list[str]) -> list[dict[str, Any]]:
    """The rows of the definitions ``query`` names, types before functions before methods,
    then by path and line; [] when the query is a question in words."""
    named = named_query(query)
    if named is None:
        return []
    rows = (table.search().where(definition_filter(named)).select(columns)
            .limit(NAMED_FIRST_MAX * 5).to_list())
    rows.sort(key=lambda r: (_KIND_ORDER.get(r["kind"], 3), r["path"], int(r["start_line"])))
    return rows[:NAMED_FIRST_MAX]
