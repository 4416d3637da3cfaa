"""Several embedders stored as one vector, searched as separate rankers.

A chunk's stored vector is its parts' unit vectors side by side, each scaled by 1/sqrt(n), so
it is unit length and the index keeps one vector column (incremental re-indexing reuses it by
text hash like any other). A query vector that holds one part's unit vector and zeros
elsewhere has, against every stored vector, a cosine equal to that part's own cosine divided
by sqrt(n): a vector search with it ranks exactly as that part alone would. So each part is
its own ranker (``--explain`` shows each rank) and hybrid search fuses them by rank.

Each part may read its own text of a chunk (:func:`ranking_texts`): an embedder names the
text that suits it with a ``ranking_text`` attribute (``plain`` without one), and the indexer
hands :meth:`PairedEmbedder.embed_parts` one text per part.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..contracts.embedder import Embedder


@dataclass(frozen=True)
class EmbedderPart:
    label: str
    """The ranker's name in rankings and ``--explain`` (``semantic``, ``minilm``)."""
    embedder: Embedder
    english_only: bool = False
    """Asked only in English: a Chinese question reaches it through its English reading."""


class PairedEmbedder:
    """The parts' vectors concatenated (see the module doc); ``name`` is the parts' names
    joined by ``+`` so the index records exactly what built it."""

    def __init__(self, parts: Sequence[EmbedderPart]) -> None:
        if len(parts) < 2:
            raise ValueError("PairedEmbedder needs at least two parts")
        self.parts = tuple(parts)
        self.name = "+".join(p.embedder.name for p in self.parts)
        self._offsets: list[int] = []
        offset = 0
        for part in self.parts:
            self._offsets.append(offset)
            offset += part.embedder.dim
        self._dim = offset
        self._scale = 1.0 / math.sqrt(len(self.parts))

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._joined([p.embedder.embed(texts) for p in self.parts], len(texts))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._joined([p.embedder.embed_queries(texts) for p in self.parts], len(texts))

    def embed_parts(self, texts: Sequence[Sequence[str]]) -> np.ndarray:
        """Stored vectors where each part embeds its own text: ``texts[i][j]`` is chunk i's
        text for part j (in :func:`ranking_texts` order)."""
        for row in texts:
            if len(row) != len(self.parts):
                raise ValueError(f"embed_parts: {len(row)} texts for {len(self.parts)} parts")
        return self._joined([p.embedder.embed([row[j] for row in texts])
                             for j, p in enumerate(self.parts)], len(texts))

    def part_queries(self, label: str, texts: Sequence[str]) -> np.ndarray:
        """Query vectors that rank as part ``label`` alone: its vectors in its slot, zeros
        elsewhere (full dimension, unit length)."""
        part = self._part(label)
        return self.in_slot(label, part.embedder.embed_queries(texts) if texts else
                            np.zeros((0, part.embedder.dim), dtype=np.float32))

    def in_slot(self, label: str, vectors: np.ndarray) -> np.ndarray:
        """Part ``label``'s own vectors (e.g. its query vectors, already made) placed in its
        slot of the full dimension, zeros elsewhere."""
        index = self.parts.index(self._part(label))
        out = np.zeros((len(vectors), self._dim), dtype=np.float32)
        if len(vectors):
            start = self._offsets[index]
            out[:, start : start + self.parts[index].embedder.dim] = vectors
        return out

    def _part(self, label: str) -> EmbedderPart:
        part = next((p for p in self.parts if p.label == label), None)
        if part is None:
            raise KeyError(f"no embedder part {label!r}")
        return part

    def _joined(self, blocks: list[np.ndarray], count: int) -> np.ndarray:
        if count == 0:
            return np.zeros((0, self._dim), dtype=np.float32)
        return (np.concatenate(blocks, axis=1) * self._scale).astype(np.float32)


def ranking_texts(embedder: Embedder) -> tuple[str, ...]:
    """The chunk text each part of ``embedder`` reads (one name for a single embedder): its
    ``ranking_text`` attribute, ``plain`` when it has none."""
    parts = getattr(embedder, "parts", None)
    members = [p.embedder for p in parts] if parts else [embedder]
    return tuple(getattr(m, "ranking_text", "plain") for m in members)
