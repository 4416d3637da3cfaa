"""The one small interface every embedder implements (code index, code search, memory)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # numpy is only a type here: the contracts stay light to import
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
