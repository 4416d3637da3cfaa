"""Text embedders behind one small interface (shared by code retrieval and memory).

``get_embedder(settings)`` picks one from ``settings.embedder``: ``use`` (offline default),
``ollama:<model>`` or ``openai:<model>`` (an OpenAI-compatible host). Heavy imports happen inside the embedders, on first use.
"""

from __future__ import annotations

from ...config import Settings
from ..contracts.embedder import Embedder, EmbedderError
from .normalise import l2_normalise

__all__ = ["Embedder", "EmbedderError", "get_embedder", "l2_normalise"]

_CACHE: dict[tuple[str, str | None], Embedder] = {}


def get_embedder(settings: Settings) -> Embedder:
    """The embedder the settings name (one instance per name and host per process)."""
    spec = (settings.embedder or "use").strip()
    key = (spec, settings.ollama_host if spec.startswith("ollama") else
           settings.embedding_base_url)
    if key in _CACHE:
        return _CACHE[key]
    if spec in ("use", "use-m3", "offline"):
        from .use import UseEmbedder

        embedder: Embedder = UseEmbedder(cache_dir=settings.home.cache_dir)
    elif spec == "ollama" or spec.startswith("ollama:"):
        from .ollama import DEFAULT_MODEL, OllamaEmbedder

        model = spec.partition(":")[2] or DEFAULT_MODEL
        embedder = OllamaEmbedder(model, settings.ollama_host)
    elif spec.startswith("openai:") and spec.partition(":")[2]:
        from .openai_compat import OpenAICompatibleEmbedder

        embedder = OpenAICompatibleEmbedder(spec.partition(":")[2],
                                            settings.embedding_base_url or "",
                                            settings.embedding_api_key)
    else:
        raise EmbedderError(f"unknown embedder {spec!r}: use 'use' (offline), "
                            "'ollama:<model>' (e.g. ollama:nomic-embed-text) or "
                            "'openai:<model>' with embedding_base_url")
    _CACHE[key] = embedder
    return embedder
