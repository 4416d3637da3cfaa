"""``search --mode grep``: exact search turned into ranked results.

A question's words (or, for Chinese, their English reading) are grepped literally, case
insensitive, in one pass; lines are ranked by how many distinct words they hold, then by how
many the whole file holds. When an index exists, each hit line is reported as the smallest
chunk around it (method or class), so results name the code they are in. Works without an
index.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ...config import Settings
from .grep import GrepOptions, grep_code
from .search import SearchHit, SearchResponse

MAX_TERMS = 8
WINDOW_LINES = 30
"""Hits closer than this in one file count as one place."""


def grep_terms(settings: Settings, query: str) -> list[str]:
    """The literal words grep looks for: the query itself when it is one token, else its
    searchable words (English reading for Chinese), longest first."""
    if len(query.split()) == 1 and len(query) >= 2 and query.isascii():
        return [query]
    from .query import plan_query

    plan = plan_query(query, home=settings.home)
    words = [w for w in dict.fromkeys(plan.fulltext_query.split()) if len(w) >= 3]
    words.sort(key=len, reverse=True)
    return words[:MAX_TERMS]


def grep_search(settings: Settings, root: Path, query: str, top_k: int) -> SearchResponse:
    """Top ``top_k`` places for ``query`` found by literal grep."""
    terms = grep_terms(settings, query)
    response = SearchResponse(query, "grep", plan={"terms": terms})
    if not terms:
        response.note = "no searchable words in the query"
        return response
    pattern = "|".join(re.escape(t) for t in terms)
    result = grep_code(root, GrepOptions(pattern, regex=True, ignore_case=True, context=0,
                                         max_matches=500))
    lowered = [t.lower() for t in terms]
    file_terms: dict[str, set[str]] = {}
    line_terms: dict[tuple[str, int], set[str]] = {}
    for match in result.matches:
        text = result.lines[match.path][match.line - 1].lower()
        found = {t for t in lowered if t in text}
        line_terms[(match.path, match.line)] = found
        file_terms.setdefault(match.path, set()).update(found)
    ranked = sorted(line_terms, key=lambda key: (-len(line_terms[key]),
                                                 -len(file_terms[key[0]]), key[0], key[1]))
    chosen: list[tuple[str, int]] = []
    for path, line in ranked:
        if any(p == path and abs(n - line) < WINDOW_LINES for p, n in chosen):
            continue
        chosen.append((path, line))
        if len(chosen) >= top_k:
            break
    enclosing = _enclosing_chunks(settings, root, sorted({p for p, _ in chosen}))
    for path, line in chosen:
        score = len(line_terms[(path, line)]) + len(file_terms[path]) / (len(terms) + 1)
        chunk = _smallest_around(enclosing.get(path, []), line)
        if chunk is not None:
            hit = SearchHit(path, int(chunk["start_line"]), int(chunk["end_line"]),
                            chunk["name"], chunk["kind"], score, source=chunk["source"])
        else:
            text = result.lines[path][line - 1]
            hit = SearchHit(path, line, line, "", "line", score, source=text)
        hit.ranks = {"grep": len(response.hits) + 1}
        response.hits.append(hit)
    return response


def _enclosing_chunks(settings: Settings, root: Path, paths: list[str]
                      ) -> dict[str, list[dict[str, Any]]]:
    if not paths:
        return {}
    from .lance_store import index_location, open_index, path_filter

    try:
        tables = open_index(index_location(settings, root))
        if tables is None or tables.chunks is None:
            return {}
        rows = (tables.chunks.search().where(path_filter(paths))
                .select(["path", "start_line", "end_line", "name", "kind", "source"])
                .limit(None).to_list())
    except Exception:  # noqa: BLE001 - grep must work even when the index is unreadable
        return {}
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        grouped.setdefault(row["path"], []).append(row)
    return grouped


def _smallest_around(chunks: list[dict[str, Any]], line: int) -> dict[str, Any] | None:
    around = [c for c in chunks if c["start_line"] <= line <= c["end_line"]]
    if not around:
        return None
    return min(around, key=lambda c: (c["end_line"] - c["start_line"], c["start_line"]))
