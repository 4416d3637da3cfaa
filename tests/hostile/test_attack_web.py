"""Attack table, web_fetch: a public page the person approved redirects to their own machine
or private network (a local admin page, the cloud's instance-credential service, a name
that resolves to 127.0.0.1). The pages are faked at the HTTP protocol (httpx.MockTransport)
and names resolve from a table, so nothing leaves the test; each attempt checks that the
local address was never asked. One test per attempt."""

from __future__ import annotations

import httpx
import pytest

from paicli_tui.core.contracts.asks import approve_all
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.contracts.tools import ToolContext, ToolStatus
from paicli_tui.core.web import WebFetchTool
from paicli_tui.core.web.fetch import resolve_host

NAMES = {
    "docs.example": ["93.184.216.34"],
    "cdn.example": ["93.184.216.35"],
    "sneaky.example": ["127.0.0.1"],  # a public name someone pointed at loopback
    "intranet.example": ["10.0.0.7"],
    "dual.example": ["93.184.216.36", "192.168.1.4"],
}


async def resolve(host: str) -> list[str]:
    # numeric forms (2130706433, 127.1) are resolved by the system without any lookup
    return NAMES[host] if host in NAMES else await resolve_host(host)


class Pages:
    """docs.example/start redirects to ``target``; every other URL answers a page."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.asked: list[str] = []

    def handler(self, request: httpx.Request) -> httpx.Response:
        # the request goes to the address the name was checked with; the name is its Host
        self.asked.append(str(request.url.copy_with(netloc=request.headers["host"].encode())))
        if request.url.path == "/start":
            return httpx.Response(302, headers={"location": self.target})
        return httpx.Response(200, headers={"content-type": "text/plain"},
                              text="AKIA-INSTANCE-ROLE-SECRET from " + str(request.url))


async def _fetch(settings, project_dir, url: str, pages: Pages):
    tool = WebFetchTool(transport=httpx.MockTransport(pages.handler), resolve=resolve)
    context = ToolContext(project_root=project_dir, settings=settings,
                          session=SessionState("s"), approve=approve_all)
    return await tool.run({"url": url}, context)


@pytest.mark.parametrize("target", [
    "http://127.0.0.1:8080/admin",
    "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
    "http://[::1]:9000/",
    "http://[::ffff:127.0.0.1]/",
    "http://2130706433/",  # 127.0.0.1 as one number
    "http://127.1/",
    "http://localhost:5000/debug",
    "http://api.localhost/",
    "http://sneaky.example/",
    "http://intranet.example/wiki",
    "http://dual.example/",  # one of its addresses is private
    "http://0.0.0.0:8000/",
    "http://100.64.0.1/",  # carrier-grade NAT, not the internet
    "/../../127.0.0.1",  # relative: stays on docs.example, allowed below
], ids=lambda t: t.split("//")[-1].split("/")[0] or t)
async def test_a_public_page_redirecting_to_a_local_address_is_not_followed(
        settings, project_dir, target: str) -> None:
    pages = Pages(target)
    out = await _fetch(settings, project_dir, "https://docs.example/start", pages)
    if target.startswith("/"):  # a path on the same public host: followed as before
        assert out.status is ToolStatus.DONE and len(pages.asked) == 2
        return
    assert out.status is ToolStatus.FAILED and out.external
    assert "an address on this machine or its private network; not followed" in out.content
    assert "SECRET" not in out.content
    assert pages.asked == ["https://docs.example/start"]  # the local address never asked


async def test_a_public_redirect_to_another_public_host_is_still_followed(settings,
                                                                         project_dir) -> None:
    pages = Pages("https://cdn.example/page")
    out = await _fetch(settings, project_dir, "https://docs.example/start", pages)
    assert out.status is ToolStatus.DONE and "URL: https://cdn.example/page" in out.content


@pytest.mark.parametrize("start", ["http://127.0.0.1:3000/start", "http://localhost/start",
                                   "http://intranet.example/start"])
async def test_a_local_page_the_person_approved_may_redirect_locally(settings, project_dir,
                                                                     start: str) -> None:
    pages = Pages("http://127.0.0.1:3000/login")
    out = await _fetch(settings, project_dir, start, pages)
    assert out.status is ToolStatus.DONE and "URL: http://127.0.0.1:3000/login" in out.content


@pytest.mark.parametrize("target", [
    "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
    "http://[fe80::a9fe:a9fe]/",
    "http://[::ffff:169.254.169.254]/",
])
async def test_a_private_page_redirecting_to_the_credential_service_is_not_followed(
        settings, project_dir, target: str) -> None:
    # a local or intranet page may redirect locally, but not to the link-local address where
    # the cloud hands out this machine's credentials
    pages = Pages(target)
    out = await _fetch(settings, project_dir, "http://intranet.example/start", pages)
    assert out.status is ToolStatus.FAILED and out.external
    assert "a link-local address (where clouds serve instance credentials)" in out.content
    assert "SECRET" not in out.content
    assert pages.asked == ["http://intranet.example/start"]


async def test_the_credential_service_fetched_itself_may_redirect_on_itself(settings,
                                                                          project_dir) -> None:
    pages = Pages("http://169.254.169.254/latest/")
    out = await _fetch(settings, project_dir, "http://169.254.169.254/start", pages)
    assert out.status is ToolStatus.DONE and len(pages.asked) == 2


async def test_a_page_nested_too_deeply_is_read_as_text(settings, project_dir) -> None:
    # 100,000 nested <div>: the HTML converter raised RecursionError ("web_fetch failed
    # unexpectedly"); its text is read without formatting, and the note says why
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/html"},
                              text="<div>" * 100_000 + "deep")

    tool = WebFetchTool(transport=httpx.MockTransport(handler), resolve=resolve)
    context = ToolContext(project_root=project_dir, settings=settings,
                          session=SessionState("s"), approve=approve_all)
    out = await tool.run({"url": "https://docs.example/deep"}, context)
    assert out.status is ToolStatus.DONE and out.external
    assert out.content.endswith("Note: the page's elements are nested too deeply to convert "
                                "to Markdown; its text is given without formatting.\n\ndeep")


@pytest.mark.parametrize("charset", ["idna", "undefined", "punycode", "no-such-codec"])
async def test_a_page_naming_a_charset_that_cannot_decode_is_read_as_utf8(
        settings, project_dir, charset: str) -> None:
    # a charset Python knows but cannot decode a page with (idna refuses to replace a bad
    # byte, "undefined" refuses everything) raised UnicodeError: "web_fetch failed
    # unexpectedly" and a traceback in the log, where an unknown one was read as UTF-8
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": f"text/plain; charset={charset}"},
                              content="naïve ".encode() + b"\xff text")

    tool = WebFetchTool(transport=httpx.MockTransport(handler), resolve=resolve)
    context = ToolContext(project_root=project_dir, settings=settings,
                          session=SessionState("s"), approve=approve_all)
    out = await tool.run({"url": "https://docs.example/odd"}, context)
    assert out.status is ToolStatus.DONE and out.external
    assert out.content.endswith("naïve \ufffd text")
