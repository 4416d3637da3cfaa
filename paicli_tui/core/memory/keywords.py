"""Keyword evidence for memory retrieval: BM25-style weights over the visible store.

A memory's keywords (:mod:`.terms`) are computed once per text and kept beside the vectors in
``PAICLI_HOME/memory/keywords/terms-<version>-<concept table>.tsv`` (one line per content
hash, appended), so
neither a new process nor a turn segments and glosses thousands of texts again. It is a
cache: deleting it costs time, never data; a torn or foreign line is skipped.

Scoring: each word of the message (a group of terms: the word, its stem, its gloss) counts
once, by its best-matching term, weighted by how rare that term is among the visible
memories (IDF, scaled by the store size so the bar means the same for 50 or 50,000
memories) and by a BM25 length factor. A word found in every memory is worth nearly
nothing; a rare shared identifier is worth the most.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...paths import HomePaths
from ...private_files import write_private
from .terms import POINTED_WEIGHT, Terms, has_words, text_terms

log = logging.getLogger(__name__)

TERMS_VERSION = 4
"""Bumped whenever the term rules change: older cache files are then ignored (a new concept
table changes the file name by itself: :func:`~.terms.concepts_digest`)."""
MAX_QUERY_CHARS = 2_000
BM25_K1 = 1.2
BM25_B = 0.5
STRONG = 1.0
WEAK = 0.7


def terms_file_name() -> str:
    """The keyword cache's file name: the term rules' version and the concept table's."""
    from .terms import concepts_digest

    return f"terms-{TERMS_VERSION}-{concepts_digest()}.tsv"


def content_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class _Corpus:
    """Postings (as arrays), document frequencies and BM25 length factors for one list of
    texts, built once per store version."""

    def __init__(self, texts: list[str], bags: list[dict[str, float]]) -> None:
        import numpy as np

        self.texts = texts
        self.bags = bags
        lists: dict[str, tuple[list[int], list[float]]] = {}
        for i, bag in enumerate(bags):
            for term, weight in bag.items():
                ids, weights = lists.setdefault(term, ([], []))
                ids.append(i)
                weights.append(weight)
        self.postings = {t: (np.array(ids, dtype=np.int64), np.array(ws, dtype=np.float32))
                         for t, (ids, ws) in lists.items()}
        lengths = np.array([max(1, len(bag)) for bag in bags], dtype=np.float32)
        self.size = len(texts)
        average = float(lengths.mean()) if self.size else 1.0
        norm = 1 - BM25_B + BM25_B * lengths / average
        self.factor = (BM25_K1 + 1) / (1 + BM25_K1 * norm)
        # "the and of to is a": words, every one a stop word. Such a memory says nothing,
        # and its vectors sit near any other empty message ("ok", "lol", an emoji)
        self.contentless = np.array([not bag and has_words(text)
                                     for text, bag in zip(texts, bags, strict=True)], dtype=bool)

    def idf(self, term: str, rarity: float = 1.0) -> float:
        """ln(1 + N/df) ÷ ln(1 + N): 1 for a word only one memory has, falling with how
        many share it, never 0 (a word every memory of a small store has still counts);
        raised to ``rarity`` (see :meth:`KeywordIndex.match`)."""
        posting = self.postings.get(term)
        df = len(posting[0]) if posting is not None else 0
        n = max(self.size, 1)
        return (math.log(1 + n / df) / math.log(1 + n)) ** rarity if df else 0.0


@dataclass(frozen=True)
class KeywordScores:
    """Keyword evidence for every text of one search, as arrays indexed like the texts."""

    score: Any
    """Sum over the message's words of IDF × weights, times a BM25 length factor."""
    coverage: Any
    """Share of the message's keyword weight (each word's best IDF) the text matches: 1.0
    when it holds every word of the message."""
    terms: Terms
    corpus: _Corpus
    words: Any = None
    """Per text: how many of the message's words it shares."""
    named: Any = None
    """Per text: True when it shares a concept or an identifier / version with the message
    (not only plain words, which can mean something else in another sentence)."""

    @property
    def contentless(self) -> Any:
        """Per text: True when it holds words but every one is a stop word."""
        return self.corpus.contentless

    rarity: float = 1.0
    """The power the rarity weights were raised to (see :meth:`KeywordIndex.match`)."""

    def matched(self, i: int) -> tuple[str, ...]:
        """The terms text ``i`` shares with the message, best first (for --explain)."""
        bag = self.corpus.bags[i]
        found = []
        for group in self.terms.groups:
            # on a tie the word itself names the match better than its concept
            hits = [(self.corpus.idf(t, self.rarity) * w * bag[t], not t.startswith("§"), t)
                    for t, w in group if t in bag]
            if hits:
                found.append(max(hits))
        return tuple(t for *_, t in sorted(found, reverse=True))


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
        return self.home.memory_dir / "keywords" / terms_file_name()

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
            # the person's only, like the store it is made from (its terms are the memories'
            # words); a file an earlier version created 0644 is narrowed too
            write_private(path, "".join(lines).encode("utf-8"), append=True)
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
        """A message's keywords: the words a demonstrative points at weigh less
        (:data:`~.terms.POINTED_WEIGHT`)."""
        return text_terms(query[:MAX_QUERY_CHARS], self.home, pointed=POINTED_WEIGHT)

    def _corpus_for(self, texts: list[str]) -> _Corpus:
        corpus = self._corpus
        if corpus is None or corpus.texts != texts:
            corpus = self._corpus = _Corpus(list(texts), self.bags(texts))
        return corpus

    def match(self, query: str | Terms, texts: Sequence[str], *, rarity: float = 1.0
              ) -> KeywordScores:
        """Keyword evidence of every text for ``query``. ``rarity``: the power each word's
        rarity weight (IDF, at most 1) is raised to; above 1, a word many memories share
        counts for less against a rare one (for a message the embedders lead, see
        :data:`~.retrieval.UNNAMED_BARS`)."""
        import numpy as np

        terms = self.query_terms(query) if isinstance(query, str) else query
        with self._lock:
            corpus = self._corpus_for(list(texts))
        gained = np.zeros(corpus.size, dtype=np.float32)
        words = np.zeros(corpus.size, dtype=np.int16)
        named = np.zeros(corpus.size, dtype=bool)
        total = 0.0
        for group in terms.groups:
            best = None
            potential = 0.0
            for term, q_weight in group:
                posting = corpus.postings.get(term)
                if posting is None:
                    potential = max(potential, q_weight)  # a word no memory has: idf 1
                    continue
                idf = corpus.idf(term, rarity)
                potential = max(potential, idf * q_weight)
                ids, weights = posting
                if not term.isalpha():  # a concept (§…) or an identifier / version
                    named[ids] = True
                if best is None:
                    best = np.zeros(corpus.size, dtype=np.float32)
                best[ids] = np.maximum(best[ids], idf * q_weight * weights)
            total += potential
            if best is not None:
                gained += best
                words += best > 0
        return KeywordScores(gained * corpus.factor, np.minimum(1.0, gained / (total or 1.0)),
                             terms, corpus, words, named, rarity)


def _plain(term: str) -> bool:
    """Terms are stored space- and tab-separated: one holding either cannot be stored."""
    return bool(term) and not any(ch.isspace() for ch in term)
