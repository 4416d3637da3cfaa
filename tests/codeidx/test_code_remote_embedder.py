"""Embeddings served elsewhere: ``openai:<model>`` against a fake OpenAI-compatible host on
127.0.0.1 (a real HTTP server): batched, answers put back in input order, retried on 429 /
503 / dropped connections, clear errors, the key sent only as the Bearer header and never in
an error, and the code index built and searched through it."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from paicli_tui.config import Secret, load_settings
from paicli_tui.core.code.indexer import CodeIndexer
from paicli_tui.core.code.search import search_project
from paicli_tui.core.embedders import EmbedderError, get_embedder
from paicli_tui.core.embedders.openai_compat import OpenAICompatibleEmbedder

KEY = "sk-embed-secret-0123456789abcdef"


class FakeHost:
    """Answers POST /v1/embeddings; ``script`` holds statuses to answer first."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.auth: list[str | None] = []
        self.script: list[int] = []
        self.echo_key = False
        host = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                host.requests.append(body)
                host.auth.append(self.headers.get("Authorization"))
                if self.path != "/v1/embeddings":
                    return self._answer(404, {"error": "no such route"})
                if host.script:
                    status = host.script.pop(0)
                    if status == 0:  # drop the connection
                        self.connection.close()
                        return None
                    text = f"bad key {KEY}" if host.echo_key else "busy"
                    return self._answer(status, {"error": text}, {"Retry-After": "0"})
                data = [{"index": i, "embedding": _vector(t)}
                        for i, t in enumerate(body["input"])]
                return self._answer(200, {"data": list(reversed(data)), "model": body["model"]})

            def _answer(self, status: int, payload: dict, headers: dict | None = None) -> None:
                raw = json.dumps(payload).encode()
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        """Stop serving and close the listening socket (left open, it outlived the test)."""
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


def _vector(text: str) -> list[float]:
    rng = np.random.default_rng(sum(text.encode()) + len(text))
    return rng.standard_normal(16).tolist()


@pytest.fixture
def host() -> Iterator[FakeHost]:
    fake = FakeHost()
    yield fake
    fake.close()


def _embedder(host: FakeHost, **kw: object) -> OpenAICompatibleEmbedder:
    return OpenAICompatibleEmbedder("bge-m3", host.url, Secret(KEY), batch_size=4,
                                    sleep=lambda s: None, **kw)


def test_batches_in_order_with_the_key_as_bearer(host: FakeHost) -> None:
    texts = [f"text {i}" for i in range(10)]
    vectors = _embedder(host).embed(texts)
    assert vectors.shape == (10, 16)
    assert [len(r["input"]) for r in host.requests] == [4, 4, 2]
    assert all(r["model"] == "bge-m3" for r in host.requests)
    assert set(host.auth) == {f"Bearer {KEY}"}
    expected = np.asarray([_vector(t) for t in texts], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.allclose(vectors, expected, atol=1e-6)  # answers re-sorted by index


@pytest.mark.parametrize(("script", "tries"), [
    ([429], 2), ([503, 503], 3), ([0], 2), ([500, 0, 502], 4),
])
def test_retries_what_a_retry_can_fix(host: FakeHost, script: list[int], tries: int) -> None:
    host.script = list(script)
    slept: list[float] = []
    embedder = OpenAICompatibleEmbedder("m", host.url, Secret(KEY), sleep=slept.append)
    assert embedder.embed(["one"]).shape == (1, 16)
    assert len(host.requests) == tries and len(slept) == tries - 1


@pytest.mark.parametrize(("script", "message"), [
    ([401], "refused the key (HTTP 401): set embedding_api_key"),
    ([400], "answered HTTP 400"),
    ([503] * 4, "answered HTTP 503"),
    ([0] * 4, "cannot reach the embeddings host"),
])
def test_clear_errors_that_never_hold_the_key(host: FakeHost, script: list[int],
                                              message: str) -> None:
    host.script = list(script)
    host.echo_key = True
    with pytest.raises(EmbedderError, match=re.escape(message)) as caught:
        _embedder(host).embed(["x"])
    assert KEY not in str(caught.value)
    assert len(host.requests) <= 4  # bounded: at most 3 retries


def test_missing_base_url_and_unknown_route(host: FakeHost) -> None:
    with pytest.raises(EmbedderError, match="needs embedding_base_url"):
        OpenAICompatibleEmbedder("m", "")
    wrong = OpenAICompatibleEmbedder("m", host.url.removesuffix("/v1"), sleep=lambda s: None)
    with pytest.raises(EmbedderError, match="HTTP 404"):
        wrong.embed(["x"])


def test_configured_in_config_toml_and_indexes_a_project(host: FakeHost, paicli_home: Path,
                                                        project_dir: Path) -> None:
    (paicli_home / "config.toml").write_text(
        f'embedder = "openai:bge-m3"\nembedding_base_url = "{host.url}"\n'
        f'embedding_api_key = "{KEY}"\n')
    settings = load_settings({}, {"PAICLI_HOME": str(paicli_home)})
    assert KEY not in repr(settings)
    assert any(s.reveal() == KEY for s in settings.secrets())  # redacted and kept from commands
    embedder = get_embedder(settings)
    assert embedder.name == "openai:bge-m3"
    (project_dir / "billing.py").write_text(
        "def refund_invoice(invoice):\n    '''Give the money back.'''\n    return invoice\n")
    summary = CodeIndexer(settings, project_dir, embedder).update()
    assert summary.chunks_total >= 1 and summary.embedder == "openai:bge-m3"
    found = search_project(settings, project_dir, "refund an invoice", mode="semantic",
                           embedder=embedder)
    assert found.hits[0].path == "billing.py"
    assert set(host.auth) == {f"Bearer {KEY}"}
