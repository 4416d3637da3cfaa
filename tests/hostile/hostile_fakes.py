"""Small doubles for the hostile-input tests (imported by the modules of this folder)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np


class HashEmbedder:
    """Deterministic 8-d vectors from a hash of the text: no model, no download."""

    name = "hash-8"
    dim = 8

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha1(text.encode("utf-8", "surrogatepass"))
                                  .digest()[:4], "little")
            rows.append(np.random.default_rng(seed).standard_normal(self.dim))
        array = np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim)
        return array / np.linalg.norm(array, axis=1, keepdims=True)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed(texts)
