"""A small HTTP server on 127.0.0.1 for the web tools' tests (not a test module).

Routes: an HTML page, a redirect loop, a redirect to a page, a huge page, a 4 MB page of one
table (rows numbered from 0), a page under 3 MB of scripts, a PNG, plain text,
a slow page, a page sent a few bytes at a time, a SearXNG-shaped JSON search (``q=huge``
answers 6 MB, ``q=drip`` a few bytes at a time), a 404.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

PAGE = """<!doctype html><html><head><title>Retry guide</title><style>p{color:red}</style>
<script>alert('x')</script></head><body><nav>Home | Docs</nav><main>
<h1>Retries</h1><p>Use <strong>exponential</strong> backoff.</p>
<ul><li>first</li><li>second</li></ul><pre><code>retry(3)</code></pre>
<a href="/next">next page</a></main><footer>(c) site</footer></body></html>"""


class _Handler(BaseHTTPRequestHandler):
    huge_bytes = 6_000_000
    table_rows = 80_000  # 4.0 MB of HTML

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def _send(self, status: int, body: bytes, kind: str, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for key, value in headers.items():
            self.send_header(key.replace("_", "-"), value)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        url = urlsplit(self.path)
        if url.path == "/page":
            self._send(200, PAGE.encode(), "text/html; charset=utf-8")
        elif url.path == "/loop":
            self._send(302, b"", "text/plain", Location="/loop")
        elif url.path == "/moved":
            self._send(301, b"", "text/plain", Location="/page")
        elif url.path == "/to-ftp":
            self._send(302, b"", "text/plain", Location="ftp://example.invalid/x")
        elif url.path == "/huge":
            row = "<p>" + "word " * 40 + "</p>\n"
            body = ("<html><body>" + row * (self.huge_bytes // len(row)) + "</body></html>")
            self._send(200, body.encode(), "text/html")
        elif url.path == "/table":
            rows = "".join(f"<tr><td>row {n}</td><td>cell</td><td>{n * 7}</td></tr>\n"
                           for n in range(self.table_rows))
            body = f"<html><body><table>{rows}</table></body></html>"
            self._send(200, body.encode(), "text/html")
        elif url.path == "/nested":  # an old table layout, 120 tables deep
            body = ("<html><body><h1>Release notes</h1>" + "<table><tr><td>" * 120
                    + "Fixed the retry loop" + "</td></tr></table>" * 120 + "</body></html>")
            self._send(200, body.encode(), "text/html")
        elif url.path == "/scripted":
            script = "<script>var x = '" + "s" * 1_000_000 + "';</script>\n"
            body = f"<html><head>{script * 3}</head><body><p>Tiny page</p></body></html>"
            self._send(200, body.encode(), "text/html")
        elif url.path == "/image":
            self._send(200, b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "image/png")
        elif url.path == "/text":
            self._send(200, "plain 文本".encode(), "text/plain; charset=utf-8")
        elif url.path == "/slow":
            time.sleep(3)
            self._send(200, b"late", "text/plain")
        elif url.path == "/drip":
            self._drip()
        elif url.path == "/search" and parse_qs(url.query).get("q") == ["drip"]:
            self._drip()
        elif url.path == "/search" and parse_qs(url.query).get("q") == ["huge"]:
            item = {"title": "t", "url": "http://127.0.0.1/", "content": "word " * 1_000}
            body = json.dumps({"results": [item] * (self.huge_bytes // 5_000)})
            self._send(200, body.encode(), "application/json")
        elif url.path == "/search":
            query = parse_qs(url.query).get("q", [""])[0]
            results = [{"title": f"About {query}", "url": "http://127.0.0.1/page",
                        "content": "A page that explains it."}]
            self._send(200, json.dumps({"results": results}).encode(), "application/json")
        else:
            self._send(404, b"<html><body><p>Not here</p></body></html>", "text/html")


    def _drip(self) -> None:
        """A page that never stalls long enough for a read timeout: a few bytes every 0.1 s
        for 6 s (the reader going away ends it sooner)."""
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        try:
            for _ in range(60):
                self.wfile.write(b"drip ")
                self.wfile.flush()
                time.sleep(0.1)
        except (BrokenPipeError, ConnectionResetError):
            pass


@contextmanager
def web_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
