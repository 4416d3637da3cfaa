"""Full-text words of a chunk that come from other files: who calls it, and a Go method's type doc.

A function's own text says what it does in its own words; the names of the functions that
call it say what it is *for* (``enqueue`` is called by ``put`` and ``offer``; ``validate…``
by ``ValidateFlagGroups``). A Go method may sit in another file than its type, so the type's
doc summary (the class purpose other chunks get from :func:`ranking_text.attach_parent_docs`)
never reaches it while one file is parsed. Both depend on files other than the chunk's own,
so they are computed once over the whole index after every change (:func:`sections`) and
appended to the chunk's full-text column behind :data:`SECTION_MARK`; the embedded texts
never hold them (a change elsewhere must not re-embed a chunk). A full build and an
incremental one compute the same sections from the same final tables, so they agree.

Measured on the four seen sets (dev, JDK, TypeScript, Go; bench_search_rankers.py):
hybrid recall@5 hits 106 -> 111 of 130 with callers' names (no set lower), Go type docs in
other files one more on the Go set.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping

from .query.terms import split_identifier, stem_line
from .ranking_text import doc_summary

SECTION_MARK = "\n\x1d\n"
"""Starts the cross-file section of a full-text column (a control character the full-text
tokenizer skips), so the section can be replaced without re-reading the chunk's file."""
MAX_CALLERS = 8
"""Callers' names kept per chunk (alphabetical, so the text does not depend on row order):
measured 4 / 8 / 16 -> 110 / 111 / 112 of 130; 8 keeps the text short."""
MAX_NAMESAKES = 3
"""A called name that more chunks than this carry (``get``, ``close``) cannot say which one is
called: it adds no caller to any of them (measured 1 / 3 / 5 -> 110 / 111 / 111)."""

_PARAMS = re.compile(r"\(.*$", re.DOTALL)
_CALLABLE = ("method", "function")


def _short(name: str) -> str:
    return _PARAMS.sub("", name).strip()


def _last(name: str) -> str:
    return _short(name).rsplit(".", 1)[-1]


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def caller_names(chunks: Iterable[Mapping[str, str]], calls: Iterable[tuple[str, str]]
                 ) -> dict[str, list[str]]:
    """Chunk id -> the names (last dotted part) of what calls it, sorted, at most
    MAX_CALLERS. ``calls`` are (caller, called) names as the graph stores them; a called
    name is matched to the method/function chunks whose own name ends in it, when there are
    at most MAX_NAMESAKES of them; a call between namesakes (recursion, an override calling
    its super) is not counted."""
    by_name: dict[str, list[str]] = defaultdict(list)
    for chunk in chunks:
        if chunk["kind"] in _CALLABLE:
            by_name[_last(chunk["name"])].append(chunk["id"])
    found: dict[str, set[str]] = defaultdict(set)
    for caller, called in calls:
        name, by = _last(called), _last(caller)
        targets = by_name.get(name, ())
        if by and by != name and 0 < len(targets) <= MAX_NAMESAKES:
            for target in targets:
                found[target].add(by)
    return {chunk_id: sorted(names)[:MAX_CALLERS] for chunk_id, names in found.items()}


def go_type_docs(chunks: Iterable[Mapping[str, str]]) -> dict[str, str]:
    """Chunk id -> the doc summary of its Go type, for methods declared in another file of
    the type's package (folder) than the type itself; methods in the type's own file already
    carry it (attach_parent_docs)."""
    rows = list(chunks)
    types: dict[tuple[str, str], tuple[str, str]] = {}
    for row in rows:
        if row["language"] == "go" and row["kind"] == "class" and (row["doc"] or "").strip():
            types[(_folder(row["path"]), _short(row["name"]))] = (row["path"],
                                                                  doc_summary(row["doc"]))
    out: dict[str, str] = {}
    for row in rows:
        if row["language"] != "go" or row["kind"] == "class" or not row["parent"]:
            continue
        found = types.get((_folder(row["path"]), row["parent"]))
        if found and found[0] != row["path"] and found[1]:
            out[row["id"]] = found[1]
    return out


def sections(chunks: Iterable[Mapping[str, str]], calls: Iterable[tuple[str, str]]
             ) -> dict[str, str]:
    """Chunk id -> its cross-file full-text section (chunks without one are left out):
    the callers' names, their words and stems; then a Go type's doc summary and its stems.
    ``chunks`` need id, path, kind, name, parent, language and doc."""
    rows = list(chunks)
    callers = caller_names(rows, calls)
    type_docs = go_type_docs(rows)
    out: dict[str, str] = {}
    for chunk_id in sorted(set(callers) | set(type_docs)):
        lines: list[str] = []
        names = callers.get(chunk_id)
        if names:
            words = " ".join(p for name in names for p in split_identifier(name))
            lines += [" ".join(names), words, stem_line(words)]
        doc = type_docs.get(chunk_id)
        if doc:
            lines += [doc, stem_line(doc)]
        out[chunk_id] = "\n".join(line for line in lines if line)
    return out


def section_of(fulltext: str | None) -> str:
    """The cross-file section a full-text column holds ("" for none)."""
    parts = (fulltext or "").split(SECTION_MARK, 1)
    return parts[1] if len(parts) == 2 else ""


def with_section(fulltext: str, section: str) -> str:
    """``fulltext`` with its cross-file section replaced by ``section`` (removed when
    empty); applying it twice gives the same text."""
    own = fulltext.split(SECTION_MARK, 1)[0]
    return own + SECTION_MARK + section if section else own
