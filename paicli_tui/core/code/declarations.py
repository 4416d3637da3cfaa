"""A method declared without a body (an interface or abstract method) is answered by its
implementation.

A question describes what code does; a declaration without a body does nothing, and its
Javadoc usually describes what every implementation does. When such a declaration ranks and
a method with the same name and parameter types ranks too, in a class that extends or
implements the declaring type (directly or through its supertypes, as the index's graph
edges record them), the implementation takes the declaration's place. A same-named method of
an unrelated class (``HttpServer.run()`` for ``Task.run()``) never does; nothing changes when
no implementation was found.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

Supertypes = Callable[[str], Iterable[str]]
"""A class's simple name -> the names its ``extends`` / ``implements`` edges point to."""

MAX_SUPERTYPE_DEPTH = 6
"""How far up the type graph an implementation's class may reach the declaring type."""

def _params(name: str) -> tuple[int, str] | None:
    r"""(where the parameter list opens, its text) of a chunk name, as the pattern
    ``\((.*)\)\s*$`` (dot matching line breaks) finds them, or None; in one pass: the
    pattern scanned to the end from every ``(`` (a name of 100,000 of them: a minute)."""
    stripped = name.rstrip()
    start = name.find("(")
    if start == -1 or not stripped.endswith(")") or start >= len(stripped) - 1:
        return None
    return start, stripped[start + 1:-1]


def is_bodiless(row: dict[str, Any]) -> bool:
    """A method chunk whose source ends at ``;``: no body (``double area();``,
    ``abstract void run();``, an annotation element). A method with a body ends at ``}``."""
    return row.get("kind") == "method" and str(row.get("source", "")).rstrip().endswith(";")


def signature_key(row: dict[str, Any]) -> tuple[str, str, tuple[str, ...]] | None:
    """(language, method name, parameter types) from a chunk name like
    ``Shape.area(double scale, int[] steps)``; Java parameters lose their names (an
    override may name them differently), other languages keep the list as written."""
    name = str(row.get("name", ""))
    found = _params(name)
    if found is None:
        return None
    head = name[: found[0]]
    method = head.rsplit(".", 1)[-1]
    params = found[1].strip()
    language = str(row.get("language", ""))
    if not params:
        return language, method, ()
    parts = [p.strip() for p in _split_top_level(params)]
    if language == "java":
        parts = [_java_type(p) for p in parts]
    return language, method, tuple(parts)


_MODIFIER = re.compile(r"(?:@[\w.]+(?:\([^)]*\))?|\bfinal\b)\s*")


def _java_type(parameter: str) -> str:
    """``final @Nullable Map<K, V> m`` -> ``Map<K, V>``: modifiers and annotations are not part
    of the type an override must match, nor is the parameter's name."""
    bare = _MODIFIER.sub("", parameter).strip()
    return " ".join(bare.split()[:-1]) or bare


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


def _simple(name: str) -> str:
    """``java.util.List<String>`` -> ``List``; ``Outer.Inner`` -> ``Inner``."""
    return name.split("<", 1)[0].rsplit(".", 1)[-1].strip()


def reaches(cls: str, declaring: str, supertypes: Supertypes) -> bool:
    """Whether ``cls`` extends or implements ``declaring``, directly or through its own
    supertypes (names compared without package or outer class, at most MAX_SUPERTYPE_DEPTH
    steps, cycles in a broken tree ignored)."""
    target, frontier, seen = _simple(declaring), {_simple(cls)}, set()
    for _ in range(MAX_SUPERTYPE_DEPTH):
        step = {_simple(parent) for name in frontier for parent in supertypes(name)}
        if target in step:
            return True
        seen |= frontier
        frontier = step - seen
        if not frontier:
            return False
    return False


def implementations_for_declarations(fused: Sequence[Any], rows: dict[str, dict[str, Any]],
                                     supertypes: Supertypes) -> list[tuple[Any, str]]:
    """``fused`` (hits with an ``id``, best first) with each bodiless declaration replaced by
    the best-ranked method with a body and the same name and parameter types in a class that
    extends or implements the declaring type (:func:`reaches`); each result once. The second
    item is the declaration's name for a replaced hit, else ''. A declaration without such an
    implementation in ``fused`` stays."""
    candidates: dict[tuple[str, str, tuple[str, ...]], list[Any]] = {}
    for hit in fused:
        row = rows[hit.id]
        if row.get("kind") == "method" and not is_bodiless(row):
            key = signature_key(row)
            if key is not None:
                candidates.setdefault(key, []).append(hit)
    out: list[tuple[Any, str]] = []
    seen: set[str] = set()
    for hit in fused:
        row = rows[hit.id]
        via = ""
        if is_bodiless(row):
            key, declaring = signature_key(row), str(row.get("parent", ""))
            found = next((c for c in candidates.get(key, []) if declaring and reaches(
                str(rows[c.id].get("parent", "")), declaring, supertypes)), None)
            if found is not None:
                hit, via = found, str(row.get("name", ""))
        if hit.id not in seen:
            seen.add(hit.id)
            out.append((hit, via))
    return out
