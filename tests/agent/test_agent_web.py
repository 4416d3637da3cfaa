"""web_fetch and web_search against a real HTTP server on 127.0.0.1: HTML to Markdown,
redirects bounded, huge pages cut and offloaded, non-text refused, approval, the guard."""

from __future__ import annotations

import dataclasses

import pytest
from agent_script import ScriptedClient, Step, drain
from doubles.web_server import web_server

from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.contracts.asks import ApprovalDecision, approve_all
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.contracts.tools import ToolContext, ToolStatus
from paicli_tui.core.messages import Role
from paicli_tui.core.web import WebFetchTool, WebSearchTool
from paicli_tui.core.web.fetch import MAX_REDIRECTS


@pytest.fixture
def server():
    with web_server() as base:
        yield base


def context(settings, project_dir, approve=approve_all) -> ToolContext:
    return ToolContext(project_root=project_dir, settings=settings,
                       session=SessionState("s1"), approve=approve)


async def fetch(settings, project_dir, url: str, **kwargs):
    return await WebFetchTool().run({"url": url}, context(settings, project_dir, **kwargs))


async def test_html_page_becomes_markdown(settings, project_dir, server) -> None:
    out = await fetch(settings, project_dir, f"{server}/page")
    assert out.status is ToolStatus.DONE and out.external
    assert "Title: Retry guide" in out.content
    assert "# Retries" in out.content and "**exponential**" in out.content
    assert "- first" in out.content and "retry(3)" in out.content
    assert "[next page](/next)" in out.content
    for noise in ("alert(", "color:red", "Home | Docs", "(c) site"):
        assert noise not in out.content


@pytest.mark.parametrize(("path", "expect"), [
    ("/loop", f"more than {MAX_REDIRECTS} redirects"),
    ("/to-ftp", "only http and https"),
    ("/image", "image/png, not text"),
])
async def test_refusals_are_clear_and_still_external(settings, project_dir, server, path,
                                                     expect) -> None:
    out = await fetch(settings, project_dir, f"{server}{path}")
    assert out.status is ToolStatus.FAILED and expect in out.content
    assert out.external


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://host/x", "javascript:alert(1)",
                                 "http://", "not a url"])
async def test_only_http_urls_are_fetched(settings, project_dir, url) -> None:
    out = await fetch(settings, project_dir, url)
    assert out.status is ToolStatus.FAILED
    assert not out.external  # nothing was read


async def test_redirect_followed_and_final_url_shown(settings, project_dir, server) -> None:
    out = await fetch(settings, project_dir, f"{server}/moved")
    assert f"URL: {server}/page" in out.content and "# Retries" in out.content


async def test_huge_page_is_cut_at_the_byte_cap(settings, project_dir, server) -> None:
    small = dataclasses.replace(settings, web_fetch_max_bytes=200_000)
    out = await fetch(small, project_dir, f"{server}/huge")
    assert "only the first 200,000 bytes were read" in out.content
    assert len(out.content) < 220_000


async def test_slow_page_times_out(settings, project_dir, server) -> None:
    quick = dataclasses.replace(settings, web_fetch_timeout_s=0.5)
    out = await fetch(quick, project_dir, f"{server}/slow")
    assert out.status is ToolStatus.FAILED and "no answer within 0.5 s" in out.content


async def test_a_page_sent_slowly_is_cut_off_at_the_total_deadline(settings, project_dir,
                                                                   server) -> None:
    """Each byte came within the read timeout, so the page held the turn for as long as the
    server kept sending; the deadline now counts the whole fetch."""
    quick = dataclasses.replace(settings, web_fetch_timeout_s=1.0)
    out = await fetch(quick, project_dir, f"{server}/drip")
    assert out.status is ToolStatus.FAILED and out.external
    assert "the page was not read in full within 1 s" in out.content


async def test_http_error_status_is_a_failed_result(settings, project_dir, server) -> None:
    out = await fetch(settings, project_dir, f"{server}/missing")
    assert out.status is ToolStatus.FAILED and "Status: 404" in out.content


async def test_plain_text_passes_through(settings, project_dir, server) -> None:
    out = await fetch(settings, project_dir, f"{server}/text")
    assert out.content.endswith("plain 文本")


async def test_declined_fetch_reads_nothing(settings, project_dir, server) -> None:
    async def deny(request):
        assert request.tool == "web_fetch" and server in request.summary
        return ApprovalDecision.DENY

    out = await fetch(settings, project_dir, f"{server}/page", approve=deny)
    assert out.status is ToolStatus.DENIED and not out.external


async def test_search_lists_results(settings, project_dir, server) -> None:
    tool = WebSearchTool(server)
    out = await tool.run({"query": "retry backoff"}, context(settings, project_dir))
    assert out.external and "1. About retry backoff" in out.content


@pytest.mark.parametrize(("query", "why"), [
    ("huge", "its answer is larger than 200,000 bytes"),
    ("drip", "no whole answer within 1 s"),
])
async def test_a_search_backend_answering_without_end_is_cut_off(settings, project_dir, server,
                                                               query: str, why: str) -> None:
    """The search backend's answer was read whole and without a total deadline, unlike a
    fetched page: one answering 6 MB (or a byte at a time) filled memory (or held the turn)."""
    bounded = dataclasses.replace(settings, web_fetch_max_bytes=200_000, web_fetch_timeout_s=1.0)
    out = await WebSearchTool(server).run({"query": query}, context(bounded, project_dir))
    assert out.status is ToolStatus.FAILED and out.external
    assert f"The search backend at {server} failed: SearchError: {why}." == out.content


async def test_search_offered_only_when_configured(settings, project_dir, server) -> None:
    plain = await AgentSession.start(settings, project_dir, client=ScriptedClient([]))
    assert "web_fetch" in plain.tools.names() and "web_search" not in plain.tools.names()
    configured = await AgentSession.start(
        dataclasses.replace(settings, web_search_url=server), project_dir,
        client=ScriptedClient([]))
    assert "web_search" in configured.tools.names()
    await plain.aclose()
    await configured.aclose()


async def test_fetch_in_a_turn_offloads_and_trips_the_guard(settings, project_dir,
                                                            server) -> None:
    steps = [Step(calls=[("web_fetch", {"url": f"{server}/huge"})]), Step(text="Read it.")]
    client = ScriptedClient(steps)
    session = await AgentSession.start(dataclasses.replace(settings, auto_approve=True),
                                       project_dir, client=client, approve=approve_all)
    await drain(session.run_turn("read that page"))
    result = next(m for m in client.requests[1] if m.role is Role.TOOL)
    assert 'trust="untrusted-data"' in result.content
    assert result.meta.get("offload_path"), "a big page is offloaded like any tool result"
    assert len(result.content) < 20_000
    assert session.state.external_content_used
    await session.aclose()
