"""A method declared without a body (an interface or abstract method) is answered by its
implementation.

A question describes what code does; a declaration without a body does nothing, and its
Javadoc usually describes what every implementation does. When such a declaration ranks and
a method with the same name and parameter types in another class (its override, as far as
names tell) ranks too, the implementation takes the declaration's place. Like a class hit
answered by its best member (``search.members_for_classes``), it needs no type graph and
changes nothing when no implementation was found.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

_PARAMS = re.compile(r"\((.*)\)\s*$", re.S)


def is_bodiless(row: dict[str, Any]) -> bool:
    """A method chunk whose source ends at ``;``: no body (``double area();``,
    ``abstract void run();``, an annotation element). A method with a body ends at ``}``."""
    return row.get("kind") == "method" and str(row.get("source", "")).rstrip().endswith(";")


def signature_key(row: dict[str, Any]) -> tuple[str, str, tuple[str, ...]] | None:
    """(language, method name, parameter types) from a chunk name like
    ``Shape.area(double scale, int[] steps)``; Java parameters lose their names (an
    override may name them differently), other languages keep the list as written."""
    name = str(row.get("name", ""))
    found = _PARAMS.search(name)
    if found is None:
        return None
    head = name[: found.start()]
    method = head.rsplit(".", 1)[-1]
    params = found.group(1).strip()
    language = str(row.get("language", ""))
    if not params:
        return language, method, ()
    parts = [p.strip() for p in _split_top_level(params)]
    if language == "java":
        parts = [" ".join(p.split()[:-1]) or p for p in parts]
    return language, method, tuple(parts)


def _split_top_level(params: str) -> list[str]:
    """Split at commas outside ``<>``, ``()`` and ``[]`` (``Map<K, V> m, int n``)."""
    out: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(params):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(params[start:i])
            start = i + 1
    out.append(params[start:])
    return out


def implementations_for_declarations(fused: Sequence[Any], rows: dict[str, dict[str, Any]]
                                     ) -> list[tuple[Any, str]]:
    """``fused`` (hits with an ``id``, best first) with each bodiless declaration replaced by
    the best-ranked method with a body, the same name and parameter types, in another
    class; each result once. The second item is the declaration's name for a replaced hit,
    else ''. A declaration without such an implementation in ``fused`` stays."""
    best: dict[tuple[str, str, tuple[str, ...]], Any] = {}
    for hit in fused:
        row = rows[hit.id]
        if row.get("kind") == "method" and not is_bodiless(row):
            key = signature_key(row)
            if key is not None:
                best.setdefault(key, hit)
    out: list[tuple[Any, str]] = []
    seen: set[str] = set()
    for hit in fused:
        row = rows[hit.id]
        via = ""
        if is_bodiless(row):
            key = signature_key(row)
            found = best.get(key) if key is not None else None
            if found is not None and rows[found.id].get("parent") != row.get("parent"):
                hit, via = found, str(row.get("name", ""))
        if hit.id not in seen:
            seen.add(hit.id)
            out.append((hit, via))
    return out
