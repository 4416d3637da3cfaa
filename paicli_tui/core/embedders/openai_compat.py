"""Embeddings from any OpenAI-compatible host (``POST {base}/embeddings``): OpenAI, TEI,
vLLM, DashScope, LiteLLM... Batched, retried on rate limits, server errors and dropped
connections (bounded: 3 retries, backoff 0.5 / 1 / 2 s, a Retry-After of at most 10 s is
honoured), and every error says what to fix. The key goes in the Authorization header only;
no message, log line or exception ever holds it (an error body that echoes it is redacted)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import httpx
import numpy as np

from ...config import Secret
from ..contracts.embedder import EmbedderError
from .normalise import l2_normalise

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
MAX_RETRIES = 3
MAX_RETRY_AFTER_S = 10.0


class OpenAICompatibleEmbedder:
    """``openai:<model>`` against ``base_url`` (e.g. ``http://gpu-box:8080/v1``)."""

    def __init__(self, model: str, base_url: str, api_key: Secret | None = None, *,
                 batch_size: int = 64, timeout_s: float = 60.0,
                 transport: httpx.BaseTransport | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if not base_url:
            raise EmbedderError("embedder 'openai:<model>' needs embedding_base_url in "
                                "config.toml (or PAICLI_EMBEDDING_BASE_URL), e.g. "
                                "http://gpu-box:8080/v1")
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.name = f"openai:{model}"
        self.batch_size = batch_size
        self._key = api_key.reveal() if api_key else ""
        self._sleep = sleep
        self._dim: int | None = None
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        self._client = httpx.Client(timeout=timeout_s, transport=transport, headers=headers)

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self._request(["dimension probe"]).shape[1])
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [self._request([t or " " for t in texts[start: start + self.batch_size]])
                 for start in range(0, len(texts), self.batch_size)]
        vectors = np.vstack(parts)
        self._dim = int(vectors.shape[1])
        return l2_normalise(vectors)

    embed_queries = embed

    def _safe(self, text: str) -> str:
        return text.replace(self._key, "****") if self._key else text

    def _post(self, batch: list[str]) -> httpx.Response:
        """The answer to one batch, retrying what a retry can fix."""
        url = f"{self.base_url}/embeddings"
        for attempt in range(MAX_RETRIES + 1):
            try:
                response = self._client.post(url, json={"model": self.model, "input": batch})
            except httpx.HTTPError as exc:
                if attempt == MAX_RETRIES:
                    raise EmbedderError(
                        f"cannot reach the embeddings host {self.base_url} "
                        f"({type(exc).__name__}, {MAX_RETRIES + 1} tries); check "
                        "embedding_base_url") from None
                self._sleep(0.5 * 2 ** attempt)
                continue
            if response.status_code not in RETRY_STATUS or attempt == MAX_RETRIES:
                return response
            self._sleep(_retry_after(response, 0.5 * 2 ** attempt))
        raise AssertionError("unreachable")  # pragma: no cover

    def _request(self, batch: list[str]) -> np.ndarray:
        response = self._post(batch)
        status = response.status_code
        if status in (401, 403):
            raise EmbedderError(f"the embeddings host {self.base_url} refused the key "
                                f"(HTTP {status}): set embedding_api_key or "
                                "PAICLI_EMBEDDING_API_KEY")
        if status == 404:
            raise EmbedderError(f"the embeddings host has no {self.base_url}/embeddings or no "
                                f"model {self.model!r} (HTTP 404)")
        if status >= 400:
            raise EmbedderError(f"the embeddings host answered HTTP {status}: "
                                f"{self._safe(response.text[:200])}")
        try:
            data = sorted(response.json()["data"], key=lambda item: item["index"])
            vectors = np.asarray([item["embedding"] for item in data], dtype=np.float32)
        except (ValueError, KeyError, TypeError):
            raise EmbedderError("the embeddings host's answer is not an OpenAI embeddings "
                                "response (no data[].embedding)") from None
        if vectors.ndim != 2 or len(vectors) != len(batch):
            raise EmbedderError(f"the embeddings host returned {len(vectors)} vectors for "
                                f"{len(batch)} texts")
        if self._dim is not None and vectors.shape[1] != self._dim:
            raise EmbedderError(f"the embeddings host changed dimension ({self._dim} -> "
                                f"{vectors.shape[1]})")
        return vectors

    def close(self) -> None:
        self._client.close()


def _retry_after(response: httpx.Response, default: float) -> float:
    try:
        return min(MAX_RETRY_AFTER_S, max(0.0, float(response.headers["retry-after"])))
    except (KeyError, ValueError):
        return default
