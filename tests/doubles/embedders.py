"""Deterministic embedders: no model, no download, the ``Embedder`` protocol."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np


class HashEmbedder:
    """Unit vectors drawn from a generator seeded by a hash of each text: equal texts get
    equal vectors, different texts unrelated ones. Counts its calls and keeps every text."""

    def __init__(self, name: str = "fake-8", dim: int = 8) -> None:
        self.name = name
        self.dim = dim
        self.calls = 0
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts.extend(texts)
        rows = []
        for text in texts:
            digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).digest()
            rows.append(np.random.default_rng(int.from_bytes(digest[:4], "little"))
                        .standard_normal(self.dim))
        array = np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim)
        return array / np.linalg.norm(array, axis=1, keepdims=True)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed(texts)


class WordsEmbedder:
    """A bag of lower-cased words hashed into ``dim`` dimensions, L2-normalised: texts that
    share words are near. ``spaces`` are characters read as spaces first. Keeps every text it
    was asked to embed in ``embedded``."""

    def __init__(self, name: str = "fake/bag-of-words", dim: int = 64, spaces: str = "") -> None:
        self.name = name
        self.dim = dim
        self.spaces = spaces
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded.extend(texts)
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for mark in self.spaces:
                text = text.replace(mark, " ")
            for word in text.lower().split():
                rows[i, int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim] += 1
            norm = np.linalg.norm(rows[i])
            rows[i] = rows[i] / norm if norm else rows[i]
        return rows
