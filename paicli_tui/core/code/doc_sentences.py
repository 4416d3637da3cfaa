"""Each chunk's doc sentence as a second, short text for the multilingual embedder.

A chunk's embedded text is its name, doc, signature and the start of its body, often most of
it the class's doc (a Java member carries its class summary). A sentence embedder reads a
short sentence best, and the first sentence of a doc comment says what the code does in the
words a question uses. So the multilingual embedder also reads every documented chunk's
first doc sentence, and a chunk ranks by the better of its two readings. The two
similarities live on different scales (a short sentence is nearer a question than a whole
chunk), so each is standardised over its own population first (a z-score over all chunks, and
over the documented ones); a chunk's reading is the larger of its z-scores. No parameter.

The sentences come from the index's own ``doc`` column and their vectors are cached per index
version in PAICLI_HOME/cache (core.code.derived_cache): a new or rebuilt index prepares them
while indexing, the first search after an incremental run embeds only the sentences new
since. Measured on the five seen sets (docs/search-quality.md).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ...paths import HomePaths
from .derived_cache import Held, file_stamp, stacked, with_vectors, write_npz_atomic

MAX_CHARS = 200
"""A doc sentence is cut here (the measured length; most are far shorter: 46-73 characters
on average on the dev and JDK sets)."""
EMBED_BATCH = 256
CACHE_FORMAT = "1"
# Each pattern stops within a line or a bound: a hostile doc comment of half a million blank
# lines, '<' or '{@code ' without their end made a pattern scan to the end from every start.
_INLINE_TAG = re.compile(r"\{@(?:link|linkplain|code|literal)\s+([^}]{0,500})\}")
_HTML = re.compile(r"<[^>]{1,500}>")
_BLOCK_TAG = re.compile(r"\n[^\S\n]*@\w+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def _inline(found: re.Match[str]) -> str:
    """``{@link Foo#bar(int) label}`` -> ``Foo.bar(int)``, ``{@code true}`` -> ``true``."""
    words = found.group(1).split()
    return words[0].replace("#", ".") if words else ""


def first_sentence(doc: str) -> str:
    """The first sentence of a doc comment as plain words: Javadoc inline tags read as their
    first word, HTML left out, nothing from the block tags (``@param`` ...) on, at most
    MAX_CHARS; "" for no doc."""
    text = _HTML.sub(" ", _INLINE_TAG.sub(_inline, doc or ""))
    text = " ".join(_BLOCK_TAG.split(text)[0].split())
    end = _SENTENCE_END.search(text)
    return (text[: end.start()] if end else text)[:MAX_CHARS]


@dataclass(frozen=True)
class DocVectors:
    """The documented chunks of one index version: ids, first sentences, unit vectors."""

    version: str
    ids: tuple[str, ...]
    sentences: tuple[str, ...]
    vectors: np.ndarray
    note: str = ""
    """Why these could not be cached ("" when they were, or came from the cache)."""


def build_doc_vectors(version: str, ids: Sequence[str], docs: Sequence[str | None],
                      embed: Callable[[Sequence[str]], np.ndarray],
                      known: dict[str, np.ndarray] | None = None) -> DocVectors:
    """Vectors of the first sentence of each chunk's doc (chunks without one are left out);
    a sentence already in ``known`` (the previous version's vectors) is not embedded again."""
    pairs = [(i, first_sentence(d or "")) for i, d in zip(ids, docs, strict=True)]
    pairs = [(i, sentence) for i, sentence in pairs if sentence]
    sentences = tuple(s for _, s in pairs)
    vectors = stacked(with_vectors(sentences, known, embed, EMBED_BATCH), sentences)
    return DocVectors(version, tuple(i for i, _ in pairs), sentences, vectors)


def best_of_two(ids: Sequence[str], similarities: np.ndarray, doc_ids: Sequence[str],
                doc_similarities: np.ndarray, depth: int) -> tuple[list[str], set[str]]:
    """The first ``depth`` of ``ids`` (every chunk, with its similarity to the question) by
    the larger of two z-scores: of its similarity among all chunks, and of its doc
    sentence's among the documented chunks (``doc_ids``); ties keep the order of ``ids``.
    Also the ranked chunks whose doc sentence gave the larger one (for --explain)."""
    scores = _z(np.asarray(similarities, dtype=np.float64))
    by_doc: set[str] = set()
    if len(doc_ids):
        position = {chunk: n for n, chunk in enumerate(ids)}
        doc_z = _z(np.asarray(doc_similarities, dtype=np.float64))
        for chunk, z in zip(doc_ids, doc_z, strict=True):
            n = position.get(chunk)
            if n is not None and z > scores[n]:
                scores[n] = z
                by_doc.add(chunk)
    ranked = [ids[n] for n in np.argsort(-scores, kind="stable")[:depth]]
    return ranked, by_doc.intersection(ranked)


def _z(values: np.ndarray) -> np.ndarray:
    spread = values.std()
    return (values - values.mean()) / spread if spread > 0 else np.zeros_like(values)


def cache_folder(home: HomePaths) -> Path:
    """Pruned like the project words' folder (core.code.vocabulary_prune) by index runs."""
    return home.cache_dir / "code_doc_sentences"


def cache_file(home: HomePaths, location: str, embedder_name: str) -> Path:
    """Where the doc sentences of the index at ``location`` read by ``embedder_name`` are."""
    key = hashlib.sha1(f"{location}\n{embedder_name}".encode()).hexdigest()[:20]
    return cache_folder(home) / f"{key}.npz"


def read_cache(path: Path) -> DocVectors | None:
    """The cached vectors, or None when there are none or they cannot be read (rebuilt from
    the index then; a damaged file is only ever replaced whole)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data["format"]) != CACHE_FORMAT:
                return None
            return DocVectors(str(data["version"]), tuple(str(i) for i in data["ids"]),
                              tuple(str(s) for s in data["sentences"]),
                              np.asarray(data["vectors"], dtype=np.float32))
    except (OSError, ValueError, KeyError, EOFError):
        return None


def write_cache(path: Path, found: DocVectors, location: str = "") -> None:
    """Written whole (core.code.derived_cache); ``location`` (the index's) is kept in the
    file so that the cache of an index that is gone can be found and removed."""
    write_npz_atomic(path, {
        "format": np.asarray(CACHE_FORMAT), "version": np.asarray(found.version),
        "ids": np.asarray(found.ids, dtype=str), "sentences": np.asarray(found.sentences, dtype=str),
        "vectors": found.vectors, "location": np.asarray(location)})


def sentence_embedder(embedder: Any) -> Any:
    """The embedder that reads doc sentences: the multilingual part of a paired embedder
    (the measured one), None for any other embedder."""
    parts = getattr(embedder, "parts", None)
    multilingual = [p for p in parts or () if not p.english_only]
    return multilingual[0].embedder if multilingual else None


_held: Held[DocVectors] = Held(4)


def doc_vectors_for(tables: Any, location: str, home: HomePaths, reader: Any) -> DocVectors:
    """The doc sentences' vectors of the index's current chunks table read by ``reader``,
    from the cache when built from this table version, else rebuilt (reusing the cached
    vectors of sentences already embedded) and cached. Raises what the embedder or the
    index raise; a cache that cannot be written says so in ``note``."""
    path = cache_file(home, location, reader.name)
    from .lance_store import chunks_version

    version = chunks_version(tables)
    stamp = file_stamp(path)
    held = _held.get(path, stamp)
    if held is not None and held.version == version:
        return held
    cached = read_cache(path)
    if cached is not None and cached.version == version:
        return _held.put(path, stamp, cached)
    found = tables.chunks.search().select(["id", "doc"]).limit(None).to_arrow()
    known = dict(zip(cached.sentences, cached.vectors, strict=True)) if cached else None
    built = build_doc_vectors(version, found.column("id").to_pylist(),
                              found.column("doc").to_pylist(), reader.embed, known)
    try:
        write_cache(path, built, location)
    except OSError as exc:  # an unwritable home: this search still runs, the next rebuilds
        return replace(built, note=f"not cached ({exc.strerror or exc})")
    return _held.put(path, file_stamp(path), built)
