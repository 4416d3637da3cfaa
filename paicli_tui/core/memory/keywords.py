"""Keyword evidence for memory retrieval: BM25-style weights over the visible store.

A memory's keywords (:mod:`.terms`) are computed once per text and kept beside the vectors in
``PAICLI_HOME/memory/keywords/terms-<version>.tsv`` (one line per content hash, appended), so
neither a new process nor a turn segments and glosses thousands of texts again. It is a
cache: deleting it costs time, never data; a torn or foreign line is skipped.

Scoring: each word of the message (a group of terms: the word, its stem, its gloss) counts
once, by its best-matching term, weighted by how rare that term is among the visible
memories (IDF, scaled by the store size so the bar means the same for 50 or 50,000
memories) and by a BM25 length factor. A word found in every memory is worth nearly
nothing; a rare shared identifier is worth the most.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import math
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ...paths import HomePaths
from .terms import Terms, text_terms

log = logging.getLogger(__name__)

TERMS_VERSION = 1
"""Bumped whenever the term rules change: older cache files are then ignored."""
MAX_QUERY_CHARS = 2_000
BM25_K1 = 1.2
BM25_B = 0.5
STRONG = 1.0
WEAK = 0.7


def content_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class KeywordMatch:
    score: float
    """Sum over the message's words of IDF × weights × length factor (0–~3 typical)."""
    matched: tuple[str, ...]
    """The terms that matched, best first (for --explain)."""
    coverage: float = 0.0
    """Share of the message's keyword weight (IDF of each word's best term) this memory
    matches: 1.0 when it holds every word of the message."""


class _Corpus:
    """Postings and document frequencies for one list of texts."""

    def __init__(self, texts: list[str], bags: list[dict[str, float]]) -> None:
        self.texts = texts
        self.bags = bags
        self.postings: dict[str, list[int]] = {}
        for i, bag in enumerate(bags):
            for term in bag:
                self.postings.setdefault(term, []).append(i)
        self.lengths = [max(1, len(bag)) for bag in bags]
        self.avg_length = sum(self.lengths) / max(1, len(self.lengths))
        self.size = len(texts)

    def idf(self, term: str) -> float:
        """ln(1 + N/df) ÷ ln(1 + N): 1 for a word only one memory has, falling with how
        many share it, never 0 (a word every memory of a small store has still counts)."""
        df = len(self.postings.get(term, ()))
        n = max(self.size, 1)
        return math.log(1 + n / df) / math.log(1 + n) if df else 0.0


class KeywordIndex:
    """Keywords per text (memory and disk cache) and BM25 scoring over a list of texts."""

    def __init__(self, home: HomePaths | None) -> None:
        self.home = home
        self._terms: dict[str, dict[str, float]] = {}
        self._loaded = False
        self._corpus: _Corpus | None = None
        self._lock = threading.Lock()  # the agent turn and the memory browser may both search

    # -- the cache file -----------------------------------------------------------------------
    @property
    def path(self) -> Path | None:
        if self.home is None:
            return None
        return self.home.memory_dir / "keywords" / f"terms-{TERMS_VERSION}.tsv"

    def _load(self) -> None:
        self._loaded = True
        path = self.path
        if path is None:
            return
        try:
            with open(path, encoding="utf-8") as fh:
                for line in fh:
                    key, tab, rest = line.rstrip("\n").partition("\t")
                    strong, tab2, weak = rest.partition("\t")
                    if len(key) != 40 or not tab or not tab2:
                        continue  # a torn last line or a foreign one
                    bag = dict.fromkeys(weak.split(), WEAK)
                    bag.update(dict.fromkeys(strong.split(), STRONG))
                    self._terms[key] = bag
        except FileNotFoundError:
            return
        except (OSError, UnicodeDecodeError) as exc:
            log.warning("ignoring unreadable keyword cache %s (%s)", path, type(exc).__name__)

    def _append(self, rows: list[tuple[str, dict[str, float]]]) -> None:
        path = self.path
        if path is None or not rows:
            return
        lines = []
        for key, bag in rows:
            strong = " ".join(t for t, w in bag.items() if w >= STRONG and _plain(t))
            weak = " ".join(t for t, w in bag.items() if w < STRONG and _plain(t))
            lines.append(f"{key}\t{strong}\t{weak}\n")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # one write per batch in append mode: concurrent writers interleave whole lines
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            with contextlib.closing(os.fdopen(fd, "a", encoding="utf-8")) as fh:
                fh.write("".join(lines))
        except OSError as exc:
            log.warning("could not write keyword cache %s: %s", path, exc.strerror or exc)

    # -- terms --------------------------------------------------------------------------------
    def bags(self, texts: Sequence[str]) -> list[dict[str, float]]:
        """Each text's terms, computing (and caching) only the ones never seen."""
        if not self._loaded:
            self._load()
        keys = [content_key(t) for t in texts]
        fresh: list[tuple[str, dict[str, float]]] = []
        for key, text in zip(keys, texts, strict=True):
            if key not in self._terms:
                bag = {t: (STRONG if w >= STRONG else WEAK)
                       for t, w in text_terms(text, self.home).bag.items()}
                self._terms[key] = bag
                fresh.append((key, bag))
        self._append(fresh)
        return [self._terms[k] for k in keys]

    def index_all(self, texts: Sequence[str], chunk: int = 200) -> None:
        """Compute the terms of ``texts`` a chunk at a time, letting a search in between (a
        large store is prepared in the background)."""
        for start in range(0, len(texts), chunk):
            with self._lock:
                self.bags(texts[start:start + chunk])

    def query_terms(self, query: str) -> Terms:
        return text_terms(query[:MAX_QUERY_CHARS], self.home)

    def _corpus_for(self, texts: list[str]) -> _Corpus:
        corpus = self._corpus
        if corpus is None or corpus.texts != texts:
            corpus = self._corpus = _Corpus(list(texts), self.bags(texts))
        return corpus

    def match(self, query: str | Terms, texts: Sequence[str]) -> dict[int, KeywordMatch]:
        """Index of each text sharing a keyword with ``query`` → its keyword evidence."""
        terms = self.query_terms(query) if isinstance(query, str) else query
        with self._lock:
            corpus = self._corpus_for(list(texts))
            best: dict[int, dict[int, tuple[float, str]]] = {}
            for g, group in enumerate(terms.groups):
                for term, q_weight in group:
                    postings = corpus.postings.get(term)
                    if not postings:
                        continue
                    idf = corpus.idf(term)
                    for i in postings:
                        value = idf * q_weight * corpus.bags[i][term]
                        per_doc = best.setdefault(i, {})
                        if value > per_doc.get(g, (0.0, ""))[0]:
                            per_doc[g] = (value, term)
            # what each word of the message could earn at most (a word no memory has: 1)
            potential = [max((corpus.idf(t) if t in corpus.postings else 1.0) * w
                             for t, w in group) for group in terms.groups]
            total = sum(potential) or 1.0
            out = {}
            for i, groups in best.items():
                norm = 1 - BM25_B + BM25_B * corpus.lengths[i] / corpus.avg_length
                factor = (BM25_K1 + 1) / (1 + BM25_K1 * norm)
                ranked = sorted(groups.values(), reverse=True)
                gained = sum(v for v, _ in ranked)
                out[i] = KeywordMatch(gained * factor, tuple(t for _, t in ranked),
                                      min(1.0, gained / total))
        return out


def _plain(term: str) -> bool:
    """Terms are stored space- and tab-separated: one holding either cannot be stored."""
    return bool(term) and not any(ch.isspace() for ch in term)
