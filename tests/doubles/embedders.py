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
