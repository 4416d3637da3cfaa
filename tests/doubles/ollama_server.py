"""A small fake Ollama server on 127.0.0.1: ``POST /api/embed`` as Ollama answers it.

``models`` maps a model name to its dimension; an unknown model gets Ollama's 404. ``script``
holds answers to give first, in order: a ``(status, payload)`` pair, or ``"drop"`` to close the
connection without answering. Every request body is kept in ``requests``.
"""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def vector_for(text: str, dim: int) -> list[float]:
    """The server's deterministic (not normalised) vector for ``text``."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return [float(digest[i % len(digest)]) - 127.5 for i in range(dim)]


class FakeOllama:
    def __init__(self, models: dict[str, int] | None = None) -> None:
        self.models = dict(models or {"nomic-embed-text": 768})
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.script: list[tuple[int, Any] | str] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (the http.server name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(body)
                fake.paths.append(self.path)
                if fake.script:
                    answer = fake.script.pop(0)
                    if answer == "drop":
                        self.close_connection = True
                        self.connection.shutdown(2)
                        return
                    status, payload = answer
                    self._answer(status, payload)
                    return
                if self.path != "/api/embed":
                    self._answer(404, {"error": "404 page not found"})
                    return
                dim = fake.models.get(body.get("model", ""))
                if dim is None:
                    self._answer(404, {"error": f"model \"{body.get('model')}\" not found, "
                                                "try pulling it first"})
                    return
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                self._answer(200, {"model": body["model"],
                                   "embeddings": [vector_for(t, dim) for t in texts]})

            def _answer(self, status: int, payload: Any) -> None:
                raw = (payload if isinstance(payload, bytes)
                       else json.dumps(payload).encode("utf-8"))
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.host = f"127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,),
                                        daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
