"""``search --mode grep``: exact search turned into ranked results.

A question's words (or, for Chinese, their English reading) are grepped literally, case
insensitive, in one pass over the live files. Each hit line is attributed to the smallest
indexed chunk around it (a method rather than its class) when an index exists, else to a
window of lines. A place scores, for each query word it contains, the word's rarity (log
inverse frequency over the places found), half as much again when the word stands whole
(``Progress``, not only ``ProgressType``), and as much again when a line there defines it
(``class Progress``, ``def progress``, ``Progress = …`` at the top level, or an indexed chunk
named so): the definition of a word ranks above its uses. Each result keeps its best line
(``match_line``/``match_text``) and the response the raw count of matching lines and files.
Works without an index.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...config import Settings
from .grep import GrepOptions, matching_lines, read_text_lines
from .hits import SearchHit, SearchResponse

MAX_TERMS = 12
WINDOW_LINES = 40
"""Without an index, hits in the same 40-line window of a file form one place."""


def grep_terms(settings: Settings, query: str) -> list[str]:
    """The literal words grep looks for: the query itself when it is one token, else its
    searchable words (English reading for Chinese), longest first."""
    if len(query.split()) == 1 and len(query) >= 2 and query.isascii():
        return [query]
    from .query import code_terms, plan_query

    plan = plan_query(query, home=settings.home)
    # grep is literal: the question's own words, not the thesaurus words ranking adds
    added = set(code_terms(" ".join(plan.synonyms))) - set(code_terms(plan.original))
    # three letters at least for English (no "is", "of"); two for Chinese, where most words
    # have two characters (计算, 日期)
    words = [w for w in dict.fromkeys(plan.fulltext_query.lower().split())
             if (len(w) >= 3 or (len(w) == 2 and not w.isascii())) and w not in added]
    words.sort(key=len, reverse=True)
    return words[:MAX_TERMS]


@dataclass
class _Place:
    path: str
    start: int
    end: int
    name: str = ""
    kind: str = "line"
    source: str = ""
    terms: set[str] = field(default_factory=set)
    whole: set[str] = field(default_factory=set)
    """Terms found as whole words (not inside a longer name)."""
    defined: set[str] = field(default_factory=set)
    """Terms a line of this place defines."""
    hits: int = 0
    best_line: int = 0
    best_text: str = ""
    best_key: tuple[int, int, int, int] = (-1, -1, -1, -1)


WHOLE_WORD_SHARE = 0.5
DEFINITION_SHARE = 1.0
HITS_TIEBREAK = 0.01
_DEFINERS = (r"class|def|function|interface|struct|enum|trait|type|fn|func|object|record"
             r"|module|namespace|const|let|var|val|macro")
_MODIFIERS = (r"(?:(?:export|default|public|private|protected|internal|static|abstract|final"
              r"|sealed|open|data|async|pub(?:\([^)]*\))?|unsafe|inline)\s+)*")


def _definition_pattern(term: str) -> re.Pattern[str]:
    """A line defining ``term``: a definer keyword before it, or a top-level assignment."""
    word = re.escape(term)
    return re.compile(rf"^\s*{_MODIFIERS}(?:{_DEFINERS})\s+(?:\([^)]*\)\s*)?\*?{word}\b"
                      rf"|^{word}\s*(?::[^=]*)?=(?!=)", re.IGNORECASE)


def _chunk_defines(place: _Place, term: str) -> bool:
    """The indexed chunk of this place is named ``term`` (``parse_config(path)``,
    ``Pay.shippingFee(int weight)``, ``Progress``)."""
    if place.kind in ("line", "", "module", "file"):
        return False
    base = re.split(r"[(<\s]", place.name, maxsplit=1)[0].rsplit(".", 1)[-1]
    return base.lower() == term


def grep_search(settings: Settings, root: Path, query: str, top_k: int) -> SearchResponse:
    """Top ``top_k`` places for ``query`` found by literal grep."""
    terms = grep_terms(settings, query)
    response = SearchResponse(query, "grep", plan={"terms": terms})
    if not terms:
        response.note = "no searchable words in the query"
        return response
    pattern = "|".join(re.escape(t) for t in terms)
    hits, _ = matching_lines(root, GrepOptions(pattern, regex=True, ignore_case=True))
    lowered = [t.lower() for t in terms]
    whole_words = {t.lower(): re.compile(rf"(?<!\w){re.escape(t)}(?!\w)", re.IGNORECASE)
                   for t in terms}
    as_typed = {t.lower(): re.compile(rf"(?<!\w){re.escape(t)}(?!\w)") for t in terms}
    definitions = {t: _definition_pattern(t) for t in lowered}
    chunks = _chunks_by_path(settings, root, sorted(hits))
    places: dict[tuple[str, int, int], _Place] = {}
    for path, numbers in hits.items():
        lines = read_text_lines(root / path)
        if lines is None:
            continue
        for number in numbers:
            if number > len(lines):
                continue
            text = lines[number - 1]
            found = {t for t in lowered if t in text.lower()}
            if not found:
                continue
            response.match_lines += 1
            whole = {t for t in found if whole_words[t].search(text)}
            defined = {t for t in whole if definitions[t].search(text)}
            place = _place_for(places, chunks.get(path, []), path, number, lines)
            place.terms |= found
            place.whole |= whole
            place.defined |= defined
            place.hits += 1
            # the line shown: a definition, then whole words, then the words as typed
            key = (len(defined), len(whole), sum(1 for t in whole if as_typed[t].search(text)),
                   len(found))
            if key > place.best_key:
                place.best_line, place.best_text, place.best_key = number, text, key
    response.match_files = len({p.path for p in places.values()})
    if not places:
        return response
    frequency = {t: sum(t in p.terms for p in places.values()) for t in lowered}
    total = len(places)

    def score(place: _Place) -> float:
        rarity = {t: math.log(1 + total / frequency[t]) for t in place.terms}
        defined = place.defined | {t for t in place.terms if _chunk_defines(place, t)}
        return (sum(rarity.values())
                + WHOLE_WORD_SHARE * sum(rarity[t] for t in place.whole)
                + DEFINITION_SHARE * sum(rarity[t] for t in defined)
                + HITS_TIEBREAK * math.log(1 + place.hits))

    scored = sorted(((score(p), p) for p in places.values()),
                    key=lambda item: (-item[0], item[1].path, item[1].start))[:top_k]
    for number, (value, place) in enumerate(scored, 1):
        start, end = (place.start, place.end) if place.kind != "line" else \
            (place.best_line, place.best_line)
        hit = SearchHit(place.path, start, end, place.name, place.kind, value,
                        source=place.source, match_line=place.best_line,
                        match_text=place.best_text.strip())
        hit.ranks = {"grep": number}
        response.hits.append(hit)
    return response


def _place_for(places: dict[tuple[str, int, int], _Place], chunks: list[dict[str, Any]],
               path: str, line: int, lines: list[str]) -> _Place:
    chunk = _smallest_around(chunks, line)
    if chunk is not None:
        key = (path, int(chunk["start_line"]), int(chunk["end_line"]))
        if key not in places:
            places[key] = _Place(path, key[1], key[2], chunk["name"], chunk["kind"],
                                 chunk["source"])
        return places[key]
    window = (line - 1) // WINDOW_LINES
    key = (path, -1, window)
    if key not in places:
        places[key] = _Place(path, window * WINDOW_LINES + 1, (window + 1) * WINDOW_LINES)
    place = places[key]
    if not place.source:
        place.source = lines[line - 1]
    return place


def _chunks_by_path(settings: Settings, root: Path, paths: list[str]
                    ) -> dict[str, list[dict[str, Any]]]:
    if not paths:
        return {}
    from .lance_store import index_location, open_index, path_filter

    try:
        tables = open_index(index_location(settings, root))
        if tables is None or tables.chunks is None:
            return {}
        rows = []
        for start in range(0, len(paths), 500):
            rows += (tables.chunks.search().where(path_filter(paths[start : start + 500]))
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
