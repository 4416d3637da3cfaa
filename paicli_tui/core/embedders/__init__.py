"""Text embedders behind one small interface (shared by code retrieval and memory).

``get_embedder(settings)`` picks one from ``settings.embedder``: ``use`` (offline default,
multilingual), ``minilm`` (offline, English and code), ``use+minilm`` (both, searched as two
rankers: see paired.py), ``ollama:<model>`` or ``openai:<model>`` (an OpenAI-compatible host).
Heavy imports happen inside the embedders, on first use.
"""

from __future__ import annotations

from ...config import Settings
from ..contracts.embedder import Embedder, EmbedderError
from .normalise import l2_normalise

__all__ = ["Embedder", "EmbedderError", "code_embedder_spec", "get_code_embedder",
           "get_embedder", "l2_normalise"]

CODE_OFFLINE_DEFAULT = "use+minilm"
"""What the code index embeds with when the settings keep the offline default (``use``): the
multilingual USE plus the English/code MiniLM, searched as two rankers (dev set hybrid
recall@5 0.875 -> 0.90; see docs/search-quality.md). Memory keeps USE alone."""

_CACHE: dict[tuple[str, str | None], Embedder] = {}


def code_embedder_spec(settings: Settings) -> str:
    """The embedder the code index uses: ``settings.embedder``, except that the offline
    default ``use`` means CODE_OFFLINE_DEFAULT there (``use-m3`` names USE alone)."""
    spec = (settings.embedder or "use").strip()
    return CODE_OFFLINE_DEFAULT if spec in ("use", "offline") else spec


def get_code_embedder(settings: Settings) -> Embedder:
    """The code index's embedder (:func:`code_embedder_spec`)."""
    return get_embedder(settings.with_overrides(embedder=code_embedder_spec(settings)))


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
    elif spec in ("minilm", "minilm-l6-int8"):
        from .minilm import MiniLmEmbedder

        embedder = MiniLmEmbedder()
    elif spec in ("use+minilm", "use-m3+minilm-l6-int8"):
        from .paired import EmbedderPart, PairedEmbedder

        # the USE part is the same instance memory uses: one model in memory, not two
        use = get_embedder(settings.with_overrides(embedder="use"))
        embedder = PairedEmbedder([
            EmbedderPart("semantic", use),
            EmbedderPart("minilm", get_embedder(settings.with_overrides(embedder="minilm")),
                         english_only=True),
        ])
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
        raise EmbedderError(f"unknown embedder {spec!r}: use 'use', 'minilm' or "
                            "'use+minilm' (offline), 'ollama:<model>' (e.g. "
                            "ollama:nomic-embed-text) or 'openai:<model>' with "
                            "embedding_base_url")
    _CACHE[key] = embedder
    return embedder
