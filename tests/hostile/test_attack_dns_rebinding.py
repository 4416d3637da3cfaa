"""Attack table, DNS rebinding against web_fetch: a name answers one address to the check
(public, so a redirect to it is followed) and another to the connection made a moment later
(127.0.0.1: the person's own services). web_fetch resolved the name for the check and httpx
resolved it again to connect. Now each host is resolved once and the connection goes to the
address that was checked, with the name kept as the Host header and the TLS server name.

Only 127.0.0.1 is ever reached: the second lookup, the one a connection would make, is a
system resolver that fails for the name (so any connection that looks the name up again
fails, whatever it would have found), and the check's public answers go to a transport faked
at the HTTP protocol. One test per attempt."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

from paicli_tui.core.contracts.asks import approve_all
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.contracts.tools import ToolContext, ToolStatus
from paicli_tui.core.web import WebFetchTool


@contextmanager
def _server(name: str) -> Iterator[tuple[int, list[str]]]:
    """A server on 127.0.0.1 answering "<name> saw Host: …"; (its port, the Host headers)."""
    hosts: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            hosts.append(self.headers["Host"])
            body = f"{name} saw Host: {self.headers['Host']}".encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], hosts
    finally:
        server.shutdown()
        server.server_close()


def _context(settings, project_dir) -> ToolContext:
    return ToolContext(project_root=project_dir, settings=settings,
                       session=SessionState("s"), approve=approve_all)


async def test_the_connection_goes_to_the_address_the_name_was_checked_with(
        settings, project_dir, monkeypatch) -> None:
    # The check's resolver says 127.0.0.1 (the server); the system resolver a connection
    # would use has changed its mind: any second lookup of the name fails the fetch.
    with _server("checked") as (port, hosts):
        real_getaddrinfo = socket.getaddrinfo
        system_asked: list[object] = []

        def rebinding_getaddrinfo(host, *args, **kwargs):
            if host in ("rebind.example", b"rebind.example"):  # anyio passes IDNA bytes
                system_asked.append(host)
                raise socket.gaierror(socket.EAI_NONAME, "rebound: the second answer differs")
            return real_getaddrinfo(host, *args, **kwargs)

        monkeypatch.setattr(socket, "getaddrinfo", rebinding_getaddrinfo)
        checked: list[str] = []

        async def resolve(host: str) -> list[str]:
            checked.append(host)
            return ["127.0.0.1"] if host == "rebind.example" else []

        tool = WebFetchTool(resolve=resolve)
        out = await tool.run({"url": f"http://rebind.example:{port}/page"},
                             _context(settings, project_dir))
    assert out.status is ToolStatus.DONE, out.content
    assert f"checked saw Host: rebind.example:{port}" in out.content
    assert f"URL: http://rebind.example:{port}/page" in out.content
    assert checked == ["rebind.example"] and system_asked == []
    assert hosts == [f"rebind.example:{port}"]


async def test_a_redirect_target_is_fetched_from_the_public_address_it_was_checked_with(
        settings, project_dir) -> None:
    # docs.example redirects to rebind.example, public for the check; a second lookup
    # would say 127.0.0.1. The request for it goes to the checked address (over TLS, with
    # the name as the server name, so the certificate is checked for the name).
    answers = {"docs.example": [["93.184.216.34"]],
               "rebind.example": [["93.184.216.40"], ["127.0.0.1"]]}
    asked: list[tuple[str, str, str | None]] = []

    async def resolve(host: str) -> list[str]:
        return answers[host].pop(0)

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append((str(request.url), request.headers["host"],
                      request.extensions.get("sni_hostname")))
        if request.headers["host"] == "docs.example":
            return httpx.Response(302, headers={"location": "https://rebind.example/admin"})
        return httpx.Response(200, headers={"content-type": "text/plain"}, text="public page")

    tool = WebFetchTool(transport=httpx.MockTransport(handler), resolve=resolve)
    out = await tool.run({"url": "https://docs.example/start"}, _context(settings, project_dir))
    assert out.status is ToolStatus.DONE and "URL: https://rebind.example/admin" in out.content
    assert asked == [("https://93.184.216.34/start", "docs.example", "docs.example"),
                     ("https://93.184.216.40/admin", "rebind.example", "rebind.example")]
    assert answers["rebind.example"] == [["127.0.0.1"]], "the name was looked up once"


def _clear_proxies(monkeypatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


async def test_a_proxy_the_environment_names_is_still_used(settings, project_dir,
                                                           monkeypatch) -> None:
    # Behind a proxy the names often do not resolve here at all: the proxy resolves them.
    # The pinned transport had replaced httpx's own, which dropped HTTP(S)_PROXY: every
    # fetch failed with "does not resolve". A name NO_PROXY lists is pinned as before.
    _clear_proxies(monkeypatch)
    with _server("proxy") as (proxy_port, proxied), _server("direct") as (port, direct):
        monkeypatch.setenv("HTTP_PROXY", f"127.0.0.1:{proxy_port}")  # no scheme: http://
        monkeypatch.setenv("NO_PROXY", "intranet.example")

        async def resolve(host: str) -> list[str]:
            return ["127.0.0.1"] if host == "intranet.example" else []

        tool = WebFetchTool(resolve=resolve)
        outside = await tool.run({"url": "http://docs.example/page"},
                                 _context(settings, project_dir))
        inside = await tool.run({"url": f"http://intranet.example:{port}/page"},
                                _context(settings, project_dir))
    assert outside.status is ToolStatus.DONE, outside.content
    assert "proxy saw Host: docs.example" in outside.content
    assert inside.status is ToolStatus.DONE, inside.content
    assert f"direct saw Host: intranet.example:{port}" in inside.content
    assert proxied == ["docs.example"] and direct == [f"intranet.example:{port}"]



async def test_the_systems_proxy_is_used_as_httpx_used_it(settings, project_dir,
                                                          monkeypatch) -> None:
    # macOS and Windows: with no proxy variable set, httpx took the system's proxy settings
    # (a proxy app's "system proxy"); urllib's getproxies is where both read them.
    import urllib.request

    _clear_proxies(monkeypatch)
    with _server("proxy") as (proxy_port, proxied):
        monkeypatch.setattr(urllib.request, "getproxies",
                            lambda: {"http": f"http://127.0.0.1:{proxy_port}"})

        async def resolve(host: str) -> list[str]:
            return []

        out = await WebFetchTool(resolve=resolve).run({"url": "http://docs.example/page"},
                                                      _context(settings, project_dir))
    assert out.status is ToolStatus.DONE, out.content
    assert proxied == ["docs.example"]
