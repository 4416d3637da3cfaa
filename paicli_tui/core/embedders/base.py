"""The one small interface every embedder implements."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


class EmbedderError(RuntimeError):
    """The embedder cannot run (model missing, server unreachable); the message says how to
    fix it."""


@runtime_checkable
class Embedder(Protocol):
    name: str
    """Stable identity recorded in the index (``use-m3``, ``ollama:nomic-embed-text``)."""

    @property
    def dim(self) -> int:
        """Vector dimension."""
        ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Document vectors: float32, shape (len(texts), dim), every row L2-normalised."""
        ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Query vectors (some models embed questions differently from documents)."""
        ...


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim == 1:
        array = array.reshape(1, -1)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (array / norms).astype(np.float32, copy=False)
