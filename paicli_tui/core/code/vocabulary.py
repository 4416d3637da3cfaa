"""The project's own words for a question asked in other words (corpus-adaptive expansion).

People describe behaviour in everyday words ("the answer", "a mistake", "influence") that a
given codebase may hardly use, while its code and docs say ``ask``, ``errors``, ``affects``.
For each content word of the question's English reading that the project uses in at most
RARE_CHUNKS chunks, the project's own words nearest to it (by the English/code embedder's
reading of single words) join the full-text query at a low weight (WEIGHT), and a word it
never uses also the project words it starts with (:func:`abbreviations`). Everything comes
from the index itself: its full-text column gives each word's chunk count, and its words are
embedded once and cached per index version (:func:`vocabulary_for`): a new or rebuilt index
pays it while indexing, the first search after an incremental run only counts again and embeds
the words new since, and a search embeds just its few rare words. Nothing is keyed to a
library or a language.

Measured on the five seen sets (dev, JDK, TypeScript, Go, jox; 160 questions): hybrid
recall@5 132 -> 136, no set lower, MRR up on every set (docs/search-quality.md).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ...paths import HomePaths
from .derived_cache import Held, file_stamp, stacked, with_vectors, write_npz_atomic
from .query.terms import STOP_WORDS, stem
from .vocabulary_prune import cache_folder

RARE_CHUNKS = 3
"""A question word found in at most this many chunks (0: the project never uses it) is
bridged to the project's nearest words. Measured 0 / 1 / 2 / 3 / 5: 133-136 of 160, 3 in the
middle of the plateau. Never more than RARE_SHARE of the chunks: in a small project most words
are that rare, and only the ones it never uses are bridged."""
RARE_SHARE = 0.01
NEIGHBOURS = 3
"""Project words added per rare question word (measured 1 / 2 / 3 / 4: one lowers the
TypeScript set; 2-4 hold)."""
MIN_SIMILARITY = 0.5
"""Cosine below which a word is not related (measured 0.4 / 0.45 / 0.5 / 0.55)."""
WEIGHT = 0.2
"""The added words' weight against the question's own words (full-text boost): 0.5 lowered
the TypeScript set, 0.1 gained less."""
ABBREVIATION_MIN = 4
"""Letters a project word needs to stand for a longer question word it starts
(``millis`` for milliseconds, ``config`` for configuration, but never ``mil``)."""
ABBREVIATIONS = 2
"""Such words per question word, longest first."""
ABBREVIATION_WEIGHT = 0.5
"""Their weight against a question word (measured 0.2 / 0.3 / 0.5 / 0.75 / 1.0: 136 / 137 /
137 / 137 / 136 of 160 on top of the related words)."""
MAX_SHARE = 0.05
"""A word more than this share of the chunks use (``value``, ``return``) says nothing about
which chunk is meant: never added (in a project of under 40 chunks, a word of 2 chunks still
may be)."""
EMBED_BATCH = 256
_WORD = re.compile(r"[a-z]{3,}")
CACHE_FORMAT = "1"


def word_counts(texts: Iterable[str]) -> Counter[str]:
    """Lower-case word (3+ letters) -> number of texts holding it."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(set(_WORD.findall(text.lower())))
    return counts


def content_words(english: str) -> list[str]:
    """The question's own words that can be bridged: lower case, 3+ letters, no stop
    words, each once, in question order."""
    words = (w.lower() for w in re.findall(r"[A-Za-z]{3,}", english))
    return list(dict.fromkeys(w for w in words if w not in STOP_WORDS))


def _same_word(a: str, b: str) -> bool:
    """One word in another form (``wait``/``waiting``) is not a related word: stems and
    prefixes already match it."""
    return a == b or stem(a) == stem(b) or a.startswith(b) or b.startswith(a)


@dataclass(frozen=True)
class Vocabulary:
    """The words of one index: how many chunks hold each, and the unit vectors of the words
    that may be added (``candidates``, aligned with ``vectors`` rows)."""

    version: str
    chunks: int
    counts: dict[str, int]
    candidates: tuple[str, ...]
    vectors: np.ndarray
    note: str = ""
    """Why this vocabulary could not be cached ("" when it was, or came from the cache)."""

    def uses(self, word: str) -> int:
        """Chunks holding ``word`` or its stem (indexed text carries stems)."""
        return max(self.counts.get(word, 0), self.counts.get(stem(word), 0))

    def is_rare(self, word: str) -> bool:
        """Used in at most RARE_CHUNKS chunks, and at most RARE_SHARE of them."""
        return self.uses(word) <= min(RARE_CHUNKS, RARE_SHARE * self.chunks)


def related_words(vocabulary: Vocabulary, english: str,
                  embed_words: Callable[[Sequence[str]], np.ndarray]) -> list[str]:
    """Project words to add to the full-text query for the English question ``english``:
    for each of its rare content words (:meth:`Vocabulary.is_rare`), up to NEIGHBOURS
    candidates at cosine >= MIN_SIMILARITY, best first, never another form of the word
    itself; each word once, in question order. ``embed_words`` gives unit query vectors."""
    asked = [w for w in content_words(english) if vocabulary.is_rare(w)]
    if not asked or not vocabulary.candidates:
        return []
    similarities = np.asarray(embed_words(asked), dtype=np.float32) @ vocabulary.vectors.T
    added: list[str] = []
    for word, row in zip(asked, similarities, strict=True):
        taken = 0
        for j in np.argsort(-row, kind="stable"):
            if row[j] < MIN_SIMILARITY or taken == NEIGHBOURS:
                break
            candidate = vocabulary.candidates[j]
            if _same_word(candidate, word):
                continue
            taken += 1
            if candidate not in added:
                added.append(candidate)
    return added


def abbreviations(vocabulary: Vocabulary, english: str, taken: Sequence[str] = ()) -> list[str]:
    """Project words that a content word of ``english`` the project never uses starts with,
    at least ABBREVIATION_MIN letters: code shortens words (``millis``, ``buf``fer is in the
    thesaurus) that people write out. At most ABBREVIATIONS per word, longest first, none
    of ``taken`` (already added as related words), each once."""
    added: list[str] = []
    for word in content_words(english):
        if vocabulary.uses(word):
            continue
        found = [word[:n] for n in range(len(word) - 1, ABBREVIATION_MIN - 1, -1)
                 if word[:n] in vocabulary.counts and word[:n] not in STOP_WORDS
                 and stem(word[:n]) != stem(word)]
        for short in found[:ABBREVIATIONS]:
            if short not in added and short not in taken:
                added.append(short)
    return added


def build_vocabulary(version: str, texts: Sequence[str],
                     embed_words: Callable[[Sequence[str]], np.ndarray],
                     known: dict[str, np.ndarray] | None = None) -> Vocabulary:
    """The vocabulary of ``texts`` (one full-text column value per chunk); a word already
    in ``known`` (the previous version's vectors) is not embedded again."""
    counts = word_counts(texts)
    limit = max(2.0, MAX_SHARE * len(texts))
    candidates = tuple(sorted(w for w, n in counts.items() if n <= limit))
    vectors = stacked(with_vectors(candidates, known, embed_words, EMBED_BATCH), candidates)
    return Vocabulary(version, len(texts), dict(counts), candidates, vectors)


def cache_file(home: HomePaths, location: str, embedder_name: str) -> Path:
    """Where the vocabulary of the index at ``location`` read by ``embedder_name`` is kept."""
    key = hashlib.sha1(f"{location}\n{embedder_name}".encode()).hexdigest()[:20]
    return cache_folder(home) / f"{key}.npz"


def read_cache(path: Path) -> Vocabulary | None:
    """The cached vocabulary, or None when there is none or it cannot be read (it is
    rebuilt from the index then; a damaged file is only ever replaced whole)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data["format"]) != CACHE_FORMAT:
                return None
            words = [str(w) for w in data["words"]]
            return Vocabulary(str(data["version"]), int(data["chunks"]),
                              dict(zip(words, (int(n) for n in data["counts"]), strict=True)),
                              tuple(str(w) for w in data["candidates"]),
                              np.asarray(data["vectors"], dtype=np.float32))
    except (OSError, ValueError, KeyError, EOFError):
        return None


def write_cache(path: Path, vocabulary: Vocabulary, location: str = "") -> None:
    """Write atomically (a temporary file renamed over the old one): a reader sees the old
    file or the new one, never half of it. ``location`` (the index's) is kept in the file, so
    the cache of an index that is gone can be found (:mod:`.vocabulary_prune`)."""
    words = sorted(vocabulary.counts)
    write_npz_atomic(path, {
        "format": np.asarray(CACHE_FORMAT), "version": np.asarray(vocabulary.version),
        "chunks": np.asarray(vocabulary.chunks), "words": np.asarray(words, dtype=str),
        "counts": np.asarray([vocabulary.counts[w] for w in words], dtype=np.int64),
        "candidates": np.asarray(vocabulary.candidates, dtype=str),
        "vectors": vocabulary.vectors, "location": np.asarray(location)})


def word_embedder(embedder: Any) -> Any:
    """The embedder that reads single words: the English/code part of a paired embedder
    (it was measured; USE gained less), else the embedder itself."""
    parts = getattr(embedder, "parts", None)
    if not parts:
        return embedder
    english = [p for p in parts if p.english_only]
    return (english or list(parts))[0].embedder


def vocabulary_for(tables: Any, location: str, home: HomePaths, embedder: Any) -> Vocabulary:
    """The vocabulary of the index's current chunks table, from the cache when it was built
    from this table version, else rebuilt (reusing the cached vectors of words already
    embedded) and cached. Raises what the embedder or the index raise; a cache that cannot
    be written costs the rebuild next time and says so in ``note``."""
    reader = word_embedder(embedder)
    path = cache_file(home, location, reader.name)
    from .lance_store import chunks_version

    version = chunks_version(tables)
    stamp = file_stamp(path)
    held = _held.get(path, stamp)
    if held is not None and held.version == version:
        return held  # the file is as it was read: no need to read it again
    cached = read_cache(path)
    if cached is not None and cached.version == version:
        return _held.put(path, stamp, cached)
    found = tables.chunks.search().select(["fulltext"]).limit(None).to_arrow()
    known = dict(zip(cached.candidates, cached.vectors, strict=True)) if cached else None
    vocabulary = build_vocabulary(version, found.column("fulltext").to_pylist(),
                                  reader.embed_queries, known)
    try:
        write_cache(path, vocabulary, location)
    except OSError as exc:  # an unwritable home: this search still runs, the next rebuilds
        return replace(vocabulary, note=f"not cached ({exc.strerror or exc})")
    return _held.put(path, file_stamp(path), vocabulary)


HELD = 4
"""Vocabularies kept in memory per process (one per index an agent session searches): each
search of a session would otherwise read its cache file again (a few MB, 15-60 ms). One is
used again only while its file is unchanged (size and modification time)."""
_held: Held[Vocabulary] = Held(HELD)
