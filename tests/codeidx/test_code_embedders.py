"""Embedders: the pinned offline USE model, and Ollama through its client against a fake
Ollama server on 127.0.0.1."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import numpy as np
import pytest
from doubles.closed_port import refusing_port
from doubles.ollama_server import FakeOllama, vector_for

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


@pytest.fixture
def ollama_server() -> Iterator[FakeOllama]:
    server = FakeOllama({"nomic-embed-text": 3, "my-embedder:latest": 2})
    yield server
    server.close()


def _unit(vector: list[float]) -> np.ndarray:
    array = np.asarray(vector, dtype=np.float32)
    return array / np.linalg.norm(array)


def test_ollama_embeds_in_batches_with_nomic_prefixes(ollama_server: FakeOllama) -> None:
    """Through the ollama client against a fake server: batches of two, the nomic task
    prefixes, vectors normalised and in input order."""
    embedder = OllamaEmbedder(host=ollama_server.host, batch_size=2)
    vectors = embedder.embed(["alpha", "beta", "gamma"])
    expected = [_unit(vector_for(f"search_document: {t}", 3)) for t in ("alpha", "beta",
                                                                         "gamma")]
    assert np.allclose(vectors, expected, atol=1e-6)
    assert embedder.dim == 3 and embedder.name == "ollama:nomic-embed-text"
    assert embedder.base_url == f"http://{ollama_server.host}"
    assert ollama_server.paths == ["/api/embed"] * 2
    assert ollama_server.requests[0] == {
        "model": "nomic-embed-text", "input": ["search_document: alpha",
                                               "search_document: beta"]}
    assert ollama_server.requests[1]["input"] == ["search_document: gamma"]
    embedder.embed_queries(["where is alpha"])
    assert ollama_server.requests[2]["input"] == ["search_query: where is alpha"]
    assert embedder.embed([]).shape == (0, 3)
    embedder.close()


def test_ollama_other_models_get_no_prefix_and_learn_their_dimension(
        ollama_server: FakeOllama) -> None:
    embedder = OllamaEmbedder("my-embedder:latest", host=f"http://{ollama_server.host}/")
    assert embedder.dim == 2
    assert ollama_server.requests[0]["input"] == ["dimension probe"]
    assert embedder.embed(["x"]).shape == (1, 2)
    assert ollama_server.requests[1]["input"] == ["x"]


@pytest.mark.parametrize(("answer", "message"), [
    ((404, {"error": "model not found"}), "ollama pull nomic-embed-text"),
    ((500, {"error": "boom"}), "answered 500 for /api/embed: boom"),
    ((200, {"nothing": []}), "no 'embeddings'"),
    ((200, b"<html>not json</html>"), "no 'embeddings'"),
    ((200, {"embeddings": []}), "returned 0 vectors for 1 texts"),
    ("drop", "cannot reach Ollama"),
])
def test_ollama_errors_are_clear(ollama_server: FakeOllama, answer: object,
                                 message: str) -> None:
    ollama_server.script.append(answer)
    with pytest.raises(EmbedderError, match=message):
        OllamaEmbedder(host=ollama_server.host).embed(["x"])


def test_ollama_unknown_model_says_how_to_pull_it(ollama_server: FakeOllama) -> None:
    with pytest.raises(EmbedderError, match=r"no model 'bge-m3': run `ollama pull bge-m3`"):
        OllamaEmbedder("bge-m3", host=ollama_server.host).embed(["x"])


def test_ollama_unreachable_says_how_to_start_it() -> None:
    with refusing_port() as port:  # let go first, it could be another server's by now
        embedder = OllamaEmbedder(host=f"127.0.0.1:{port}")
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
