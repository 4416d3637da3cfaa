"""Choosing the memories worth showing for a question, and the block that carries them
(SPEC §13–14).

Visible entries only (global + this project). Score = (keyword overlap of jieba words +
vector similarity) × a time weight that falls with age. Entries scoring 0 are dropped; the best
ten are kept and cut to the token budget.
"""

from __future__ import annotations

import heapq
import logging
import threading
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from ...paths import HomePaths
from ...resources import load_prompt
from .budget import estimate_tokens
from .entry import SOURCE_AUTO, UNVERIFIED, MemoryEntry, parse_time
from .freshness import age_days
from .vectors import VectorCache

log = logging.getLogger(__name__)

MAX_RESULTS = 10
TIME_WEIGHT_DAYS = 90.0
"""Age at which the time weight has halved (1 / (1 + age / 90))."""
VECTOR_FLOOR = 0.3
"""Cosine below which two texts are treated as unrelated (sentence embedders rarely give 0)."""
FIRST_TURN_WAIT_S = 2.0
"""How long a turn waits for an embedder that is still loading before going on by keywords
(a one-off: a headless run usually gets vectors; call warm_up() early to avoid the wait)."""
MAX_QUERY_CHARS = 2_000
"""Only the start of a very long message (pasted logs, code) is used as the query."""
EMBED_PER_TURN = 256
"""Most memories embedded during one turn; a cold cache over a big store fills over turns."""
BLOCK_OPEN = "<long_term_memory>"
BLOCK_CLOSE = "</long_term_memory>"


@dataclass(frozen=True)
class ScoredEntry:
    entry: MemoryEntry
    score: float
    keyword: float
    vector: float
    stale: bool = False


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or unicodedata.category(ch).startswith("L")


class KeywordIndex:
    """jieba keywords per text (words of length ≥ 2, lower case, no punctuation) and an
    inverted index over every text seen, so a turn touches only the memories that share a
    word with the question."""

    def __init__(self, home: HomePaths | None) -> None:
        self.home = home
        self._words: dict[str, frozenset[str]] = {}
        self._postings: dict[str, set[str]] = {}
        self._indexed: set[str] = set()
        self._lock = threading.Lock()  # the agent turn and the memory browser may both search

    def words(self, text: str) -> frozenset[str]:
        """The keywords of ``text`` (cached; queries are not added to the index)."""
        cached = self._words.get(text)
        if cached is not None:
            return cached
        from ..text.jieba_setup import cut_words

        words = frozenset(
            w.lower() for w in cut_words(text, self.home)
            if len(w) >= 2 and any(_is_word_char(ch) for ch in w)
        )
        if len(self._words) > 200_000:  # a very long session: start the memo afresh
            self._words.clear()
            self._postings.clear()
            self._indexed.clear()
        self._words[text] = words
        return words

    def _index(self, text: str) -> None:
        for word in self.words(text):
            self._postings.setdefault(word, set()).add(text)
        self._indexed.add(text)

    def index_all(self, texts: Sequence[str], chunk: int = 200) -> None:
        """Index ``texts`` a chunk at a time, letting a concurrent search in between (used to
        prepare a large store in the background)."""
        pending = [t for t in texts if t not in self._indexed]
        for start in range(0, len(pending), chunk):
            with self._lock:
                for text in pending[start:start + chunk]:
                    if text not in self._indexed:
                        self._index(text)

    def overlap(self, query: str, texts: Sequence[str]) -> dict[str, float]:
        """For each text sharing a keyword with ``query``: the share of the query's keywords
        it contains (texts sharing none are left out)."""
        with self._lock:
            for text in texts:
                if text not in self._indexed:
                    self._index(text)
            query_words = self.words(query[:MAX_QUERY_CHARS])
            if not query_words:
                return {}
            counts: dict[str, int] = {}
            for word in query_words:
                for text in self._postings.get(word, ()):
                    counts[text] = counts.get(text, 0) + 1
        return {text: n / len(query_words) for text, n in counts.items()}


def time_weight(days: float) -> float:
    return 1.0 / (1.0 + days / TIME_WEIGHT_DAYS)


def rank(query: str, entries: Sequence[MemoryEntry], *, keywords: KeywordIndex,
         vectors: VectorCache | None, now: datetime, limit: int = MAX_RESULTS,
         wait: bool = True) -> list[ScoredEntry]:
    """The best ``limit`` entries for ``query`` with a score above zero, best first (ties: the
    more recently verified first). ``wait=False`` never waits for missing vectors: entries
    not embedded yet count by keywords alone this time."""
    if not entries or not query.strip():
        return []
    contents = [e.content for e in entries]
    overlaps = keywords.overlap(query, contents)
    vector_scores: dict[int, float] = {}
    if vectors is not None:
        try:
            vector_scores = _vector_scores(vectors, query, contents, wait)
        except Exception as exc:  # an embedder failure degrades to keywords, never fails a turn
            log.warning("memory vectors unavailable (%s); using keywords only",
                        type(exc).__name__)
    # Only entries with some relevance are looked at one by one (the time weight is positive,
    # so relevance alone decides "score > 0").
    candidates = set(vector_scores)
    if overlaps:
        candidates.update(i for i, text in enumerate(contents) if text in overlaps)
    scored = []
    for i in sorted(candidates):  # index order: ties resolve the same way every time
        entry = entries[i]
        overlap = overlaps.get(entry.content, 0.0)
        vector = vector_scores.get(i, 0.0)
        score = (overlap + vector) * time_weight(age_days(entry, now))
        scored.append(ScoredEntry(entry, score, overlap, vector))
    return heapq.nlargest(limit, scored, key=lambda s: (s.score, s.entry.last_verified_at))


def _vector_scores(vectors: VectorCache, query: str, contents: list[str], wait: bool
                   ) -> dict[int, float]:
    """Index → rescaled similarity for the entries above the floor."""
    import numpy as np

    if wait:
        matrix = vectors.matrix(contents, max_new=EMBED_PER_TURN)
    else:
        matrix = vectors.matrix_nowait(contents)
        if matrix is None and vectors.wait_ready(FIRST_TURN_WAIT_S):
            matrix = vectors.matrix_nowait(contents)
    if matrix is None:
        return {}
    cosines = matrix @ vectors.embed_query(query[:MAX_QUERY_CHARS])
    above = np.flatnonzero(cosines > VECTOR_FLOOR)
    scaled = (cosines[above] - VECTOR_FLOOR) / (1.0 - VECTOR_FLOOR)
    return dict(zip(above.tolist(), scaled.tolist(), strict=True))


def _date(text: str) -> str:
    moment = parse_time(text)
    return moment.date().isoformat() if moment else "unknown"


def format_line(entry: MemoryEntry, stale: bool) -> str:
    """One injected memory: id, scope, written and verified dates, marks, then the text."""
    marks = []
    if stale:
        marks.append("possibly stale")
    if entry.verification == UNVERIFIED:
        marks.append("auto-extracted, unverified" if entry.source == SOURCE_AUTO
                     else "unverified")
    mark = f" [{'; '.join(marks)}]" if marks else ""
    text = " ".join(entry.content.split())
    text = text.replace(BLOCK_CLOSE, "&lt;/long_term_memory>").replace(BLOCK_OPEN,
                                                                      "&lt;long_term_memory>")
    return (f"- [{entry.id}] ({entry.effective_scope}; written {_date(entry.created_at)}; "
            f"verified {_date(entry.last_verified_at)}){mark} {text}")


def build_block(ranked: Sequence[ScoredEntry], budget_tokens: int,
                is_stale: Callable[[MemoryEntry], bool]) -> str:
    """The injection block: a 'clues, not facts' header and one line per memory, as many of
    the ranked memories as fit in ``budget_tokens`` ('' when none fits)."""
    if not ranked:
        return ""
    header = load_prompt("memory_injection").strip()
    used = estimate_tokens(f"{BLOCK_OPEN}\n{header}\n{BLOCK_CLOSE}")
    lines = []
    for item in ranked:
        line = format_line(item.entry, is_stale(item.entry))
        cost = estimate_tokens(line) + 1
        if used + cost > budget_tokens:
            continue
        lines.append(line)
        used += cost
    if not lines:
        return ""
    return "\n".join([BLOCK_OPEN, header, *lines, BLOCK_CLOSE])
