"""Test doubles for code-index tests (imported by the test modules of this folder)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np


class CountingEmbedder:
    """Deterministic hash-seeded vectors; counts every text it is asked to embed."""

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
            seed = int.from_bytes(hashlib.sha1(text.encode()).digest()[:4], "little")
            rows.append(np.random.default_rng(seed).standard_normal(self.dim))
        array = np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim)
        return array / np.linalg.norm(array, axis=1, keepdims=True)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed(texts)
