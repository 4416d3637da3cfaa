"""Embedders: the pinned offline USE model, and Ollama through a replayed HTTP exchange."""

from __future__ import annotations

import hashlib
import json

import httpx
import numpy as np
import pytest

from paicli_tui.config import load_settings
from paicli_tui.core.contracts.embedder import EmbedderError
from paicli_tui.core.embedders import get_embedder
from paicli_tui.core.embedders.ollama import OllamaEmbedder, normalise_host
from paicli_tui.core.embedders.use import USE_WEIGHTS_SHA256, UseEmbedder, weights_path


def test_use_weight_file_is_the_pinned_one() -> None:
    digest = hashlib.sha256()
    with open(weights_path(), "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    assert digest.hexdigest() == USE_WEIGHTS_SHA256


@pytest.mark.slow
def test_use_vectors_are_normalised_multilingual_and_order_preserving() -> None:
    embedder = UseEmbedder()
    texts = ["parse the configuration file", "解析配置文件", "the cat sleeps on the sofa",
             "x" * 10_000, ""]
    vectors = embedder.embed(texts)
    assert vectors.shape == (5, 512) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # sorting by length inside must not reorder the answer
    assert np.allclose(embedder.embed([texts[2]])[0], vectors[2], atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]  # English ~ Chinese paraphrase
    assert embedder.embed([]).shape == (0, 512)


def _replay(exchanges: list[dict]) -> tuple[httpx.MockTransport, list[dict]]:
    """A transport answering recorded /api/embed requests in order, logging what was sent."""
    sent: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        sent.append({"url": str(request.url), "body": body})
        recorded = exchanges[len(sent) - 1]
        return httpx.Response(recorded["status"], json=recorded["response"])

    return httpx.MockTransport(handler), sent


def test_ollama_embeds_in_batches_with_nomic_prefixes() -> None:
    transport, sent = _replay([
        {"status": 200, "response": {"model": "nomic-embed-text",
                                     "embeddings": [[3.0, 4.0, 0.0], [0.0, 0.0, 2.0]]}},
        {"status": 200, "response": {"model": "nomic-embed-text",
                                     "embeddings": [[1.0, 0.0, 0.0]]}},
        {"status": 200, "response": {"model": "nomic-embed-text",
                                     "embeddings": [[0.0, 1.0, 0.0]]}},
    ])
    embedder = OllamaEmbedder(host="gpu-box:11500", batch_size=2, transport=transport)
    vectors = embedder.embed(["alpha", "beta", "gamma"])
    assert np.allclose(vectors, [[0.6, 0.8, 0], [0, 0, 1], [1, 0, 0]])
    assert embedder.dim == 3 and embedder.name == "ollama:nomic-embed-text"
    assert [s["url"] for s in sent] == ["http://gpu-box:11500/api/embed"] * 2
    assert sent[0]["body"] == {"model": "nomic-embed-text",
                               "input": ["search_document: alpha", "search_document: beta"]}
    embedder.embed_queries(["where is alpha"])
    assert sent[2]["body"]["input"] == ["search_query: where is alpha"]


def test_ollama_other_models_get_no_prefix_and_learn_their_dimension() -> None:
    transport, sent = _replay([{"status": 200, "response": {"embeddings": [[1.0, 1.0]]}}])
    embedder = OllamaEmbedder("my-embedder:latest", transport=transport)
    assert embedder.dim == 2
    assert sent[0]["body"]["input"] == ["dimension probe"]


@pytest.mark.parametrize(("status", "response", "message"), [
    (404, {"error": "model not found"}, "ollama pull nomic-embed-text"),
    (500, {"error": "boom"}, "answered 500"),
    (200, {"nothing": []}, "no 'embeddings'"),
    (200, {"embeddings": []}, "returned 0 vectors for 1 texts"),
])
def test_ollama_errors_are_clear(status: int, response: dict, message: str) -> None:
    transport, _ = _replay([{"status": status, "response": response}])
    with pytest.raises(EmbedderError, match=message):
        OllamaEmbedder(transport=transport).embed(["x"])


def test_ollama_unreachable_says_how_to_start_it() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    embedder = OllamaEmbedder(transport=httpx.MockTransport(refuse))
    with pytest.raises(EmbedderError, match="ollama serve"):
        embedder.embed(["x"])


@pytest.mark.parametrize(("raw", "url"), [
    (None, "http://127.0.0.1:11434"),
    ("", "http://127.0.0.1:11434"),
    ("0.0.0.0", "http://127.0.0.1:11434"),
    ("example:9999", "http://example:9999"),
    ("https://ollama.example.com/", "https://ollama.example.com"),
    ("localhost", "http://localhost:11434"),
    ("http://10.0.0.2:11434", "http://10.0.0.2:11434"),
])
def test_ollama_host_forms(raw: str | None, url: str) -> None:
    assert normalise_host(raw) == url


def test_get_embedder_by_name(paicli_home) -> None:
    env = {"PAICLI_HOME": str(paicli_home)}
    assert get_embedder(load_settings({}, env)).name == "use-m3"
    ollama = get_embedder(load_settings({}, {**env, "PAICLI_EMBEDDER": "ollama:bge-m3",
                                             "OLLAMA_HOST": "box:1"}))
    assert ollama.name == "ollama:bge-m3" and ollama.dim == 1024
    assert ollama.base_url == "http://box:1"
    with pytest.raises(EmbedderError, match="unknown embedder"):
        get_embedder(load_settings({}, {**env, "PAICLI_EMBEDDER": "word2vec"}))
