"""Ollama embeddings through the ``ollama`` client (``/api/embed``, batched):
``nomic-embed-text`` by default, any embedding model by name. The host comes from settings
(OLLAMA_HOST)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from ..contracts.embedder import EmbedderError
from .normalise import l2_normalise

DEFAULT_MODEL = "nomic-embed-text"
DEFAULT_HOST = "http://127.0.0.1:11434"
KNOWN_DIMS = {"nomic-embed-text": 768, "mxbai-embed-large": 1024, "all-minilm": 384,
              "bge-m3": 1024, "snowflake-arctic-embed": 1024}

# nomic-embed-text was trained with task prefixes; they measurably help retrieval
_PREFIXES = {"nomic-embed-text": ("search_document: ", "search_query: ")}


def normalise_host(host: str | None) -> str:
    """``host``, ``host:port``, ``0.0.0.0`` or a full URL -> a base URL the client can use
    (a bare host gets Ollama's port 11434; a URL keeps the port it names, or none)."""
    host = (host or "").strip().rstrip("/") or DEFAULT_HOST
    bare = "://" not in host
    if bare:
        host = "http://" + host
    scheme, rest = host.split("://", 1)
    authority, slash, path = rest.partition("/")
    if authority.startswith("0.0.0.0"):
        authority = "127.0.0.1" + authority[len("0.0.0.0"):]
    if bare and ":" not in authority:
        authority += ":11434"
    return f"{scheme}://{authority}{slash}{path}"


class OllamaEmbedder:
    def __init__(self, model: str = DEFAULT_MODEL, host: str | None = None, *,
                 batch_size: int = 32, timeout_s: float = 120.0, **httpx_options: Any) -> None:
        import ollama  # imported here: only an Ollama user pays for it

        self.model = model
        self.base_url = normalise_host(host)
        self.batch_size = batch_size
        self.name = f"ollama:{model}"
        self._dim: int | None = KNOWN_DIMS.get(model.split(":")[0])
        self._ollama = ollama
        self._client = ollama.Client(host=self.base_url, timeout=timeout_s, **httpx_options)

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self._request(["dimension probe"]).shape[1])
        return self._dim

    def _prefix(self, query: bool) -> str:
        prefixes = _PREFIXES.get(self.model.split(":")[0])
        return prefixes[1 if query else 0] if prefixes else ""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, query=False)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, query=True)

    def _embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        prefix = self._prefix(query)
        parts = []
        for start in range(0, len(texts), self.batch_size):
            batch = [prefix + (t or " ") for t in texts[start : start + self.batch_size]]
            parts.append(self._request(batch))
        vectors = np.vstack(parts)
        self._dim = int(vectors.shape[1])
        return l2_normalise(vectors)

    def _request(self, batch: list[str]) -> np.ndarray:
        try:
            response = self._client.embed(model=self.model, input=batch)
        except self._ollama.ResponseError as exc:
            if exc.status_code == 404:
                raise EmbedderError(f"Ollama has no model {self.model!r}: run "
                                    f"`ollama pull {self.model}`") from None
            raise EmbedderError(f"Ollama answered {exc.status_code} for /api/embed: "
                                f"{str(exc.error)[:200]}") from None
        except (ConnectionError, httpx.HTTPError) as exc:  # refused, dropped, timed out
            raise EmbedderError(
                f"cannot reach Ollama at {self.base_url} ({type(exc).__name__}); start it "
                f"with `ollama serve` and `ollama pull {self.model}`, or set OLLAMA_HOST") \
                from None
        except ValueError:  # not JSON, or JSON without the vectors
            raise EmbedderError("Ollama's /api/embed answer had no 'embeddings'") from None
        embeddings = response.embeddings
        if len(embeddings) != len(batch):
            raise EmbedderError(f"Ollama returned {len(embeddings)} vectors for "
                                f"{len(batch)} texts")
        return np.asarray(embeddings, dtype=np.float32)

    def close(self) -> None:
        self._client.close()
