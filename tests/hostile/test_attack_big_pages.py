"""Attack table, web_fetch: a page that is cheap to send and dear to convert. A 4 MB page of
one big table held a worker thread for tens of seconds of CPU converting it to Markdown,
after web_fetch's deadline had passed. Now scripts and styles are dropped, at most 1,000,000
characters are converted, the converter stops at the fetch's deadline, and the tool result
says each of these. Pages come from a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import time

import pytest
from doubles.web_server import web_server

from paicli_tui.core.contracts.asks import approve_all
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.contracts.tools import ToolContext, ToolStatus
from paicli_tui.core.web import WebFetchTool, fetch, page
from paicli_tui.core.web.page import MAX_HTML_CHARS, without_scripts


@pytest.fixture
def server():
    with web_server() as base:
        yield base


async def _fetch(settings, project_dir, url: str):
    context = ToolContext(project_root=project_dir, settings=settings,
                          session=SessionState("s"), approve=approve_all)
    return await WebFetchTool().run({"url": url}, context)


async def test_a_huge_table_is_cut_before_conversion_and_says_so(
        settings, project_dir, server, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a cap of 100,000 characters (1,000,000 converts for seconds) and a deadline an
    hour away, so that a slow machine still gets the Markdown this test reads."""
    assert MAX_HTML_CHARS == 1_000_000
    monkeypatch.setattr(page, "MAX_HTML_CHARS", 100_000)
    monkeypatch.setattr(fetch, "_clock", lambda: time.monotonic() + 3_600)
    out = await _fetch(settings, project_dir, f"{server}/table")
    assert out.status is ToolStatus.DONE and out.external
    assert ("Note: the page's HTML has 4,453,056 characters without scripts, styles and "
            "comments; only the first 100,000 were converted (the rest is not shown)."
            ) in out.content
    assert "| row 0 | cell | 0 |" in out.content and "| row 79999 |" not in out.content
    assert len(out.content) < 100_000


async def test_conversion_past_the_deadline_gives_the_text_unformatted(
        settings, project_dir, server, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fetch started an hour ago as far as its deadline knows: the converter stops at
    once and the page's words still arrive, with a note."""
    monkeypatch.setattr(fetch, "_clock", lambda: time.monotonic() - 3_600)
    out = await _fetch(settings, project_dir, f"{server}/page")
    assert out.status is ToolStatus.DONE
    assert ("Note: the page could not be converted to Markdown before web_fetch's deadline; "
            "its text is given without formatting.") in out.content
    assert "Retries" in out.content and "exponential" in out.content
    assert "# Retries" not in out.content  # no Markdown: the converter did not run


async def test_a_page_nested_too_deeply_for_markdown_is_given_as_text(settings, project_dir,
                                                                      server) -> None:
    """The converter recurses per element and ran out of stack 100 tables deep: the whole
    fetch failed ('nested too deeply to convert') and the model read nothing of the page."""
    out = await _fetch(settings, project_dir, f"{server}/nested")
    assert out.status is ToolStatus.DONE and out.external
    assert "Release notes" in out.content and "Fixed the retry loop" in out.content
    assert ("Note: the page's elements are nested too deeply to convert to Markdown; its text "
            "is given without formatting.") in out.content


async def test_scripts_do_not_use_up_the_html_converted(settings, project_dir, server) -> None:
    out = await _fetch(settings, project_dir, f"{server}/scripted")
    assert out.status is ToolStatus.DONE
    assert "Tiny page" in out.content and "Note:" not in out.content


@pytest.mark.parametrize(("html", "kept"), [
    ("<p>a</p><script>x()</script><p>b</p>", "<p>a</p><p>b</p>"),
    ("<p>a</p><SCRIPT type='m'>x</Script ><p>b</p>", "<p>a</p><p>b</p>"),
    ("<style>p{}</style><p>a</p><style media=x>q{}</style>", "<p>a</p>"),
    ("<p>a</p><script>never closed <p>b</p>", "<p>a</p>"),  # as a browser reads it
    ("<scripts>kept</scripts><script-box>kept</script-box>",
     "<scripts>kept</scripts><script-box>kept</script-box>"),
    ("<script>'</style>'</script><p>a</p>", "<p>a</p>"),  # only its own end closes it
    # a script tag inside a comment opens nothing: the page after it stays
    ("<!-- <script> --><p>a</p><script>x</script><p>b</p>", "<p>a</p><p>b</p>"),
    ("<p>a</p><!-- never closed <p>b</p>", "<p>a</p>"),
    # '<!-->' and '<!--->' are whole empty comments and '--!>' ends one, as a browser
    # reads them: the page after them stays
    ("<p>a</p><!--><p>b</p><!-- c -->", "<p>a</p><p>b</p>"),
    ("<!---><p>b</p><!---->", "<p>b</p>"),
    ("<!-- x --!><p>b</p>", "<p>b</p>"),
    ("<!--!><p>b</p>", ""),  # '!>' right after the opening ends nothing
    # an end tag with something a browser skips still ends the script or style
    ("<script>x</script foo><p>b</p>", "<p>b</p>"),
    ("<style>p{}</style/><p>b</p><script>y</scripts></script\t>", "<p>b</p>"),
    # its '>' is the first one; the '</p' left open at the end is dropped, as in a browser
    ("<p>a</p><script>x</script <p>b</p", "<p>a</p>b"),
    ("<p>a</p><script>x</script b", "<p>a</p>"),  # no '>' after it: it runs to the end
    # a tag without its '>' runs to the page's end and is dropped, as a browser drops it
    ("<p>a</p><a <a <a ", "<p>a</p>"),
    ('<p>a</p><a title="<b>x</b>', "<p>a</p>"),
    ("<p>a</p></a</a</a", "<p>a</p>"),
    ("<p>a</p><title x='<a <a", "<p>a</p>"),
    ("<p>a</p><svg><g></svg <p", "<p>a</p><svg><g>"),
    ("<p>a</p><a<a<a<a>b", "<p>a</p><a<a<a<a>b"),  # one tag, closed
    # outside SVG and MathML a CDATA section is a comment ending at the first '>', and so
    # are a doctype, '<?xml …>' and '</ …>'
    ("<![CDATA[ <script> ]]><p>a</p>", " ]]><p>a</p>"),
    ("<!DOCTYPE html><?xml x?></ x></><p>a</p>", "<p>a</p>"),
    # a title or textarea is text up to its end tag; xmp, noscript and the rest are too,
    # their '&' as it is; plaintext takes the rest of the page
    ("<title>A <script> b</title><p>a</p>", "<title>A &lt;script> b</title><p>a</p>"),
    ("<TEXTAREA x=1><script>&amp;</textarea ><p>a</p>",
     "<TEXTAREA x=1>&lt;script>&amp;</textarea ><p>a</p>"),
    ("<title>never closed <p>b</p>", "<title>never closed &lt;p>b&lt;/p>"),
    ("<xmp><script>&amp;</xmp><p>a</p>", "<xmp>&lt;script>&amp;amp;</xmp><p>a</p>"),
    ("<noscript><script>x</noscript><p>a</p>", "<noscript>&lt;script>x</noscript><p>a</p>"),
    ("<plaintext><script></plaintext>", "<plaintext>&lt;script>&lt;/plaintext>"),
    # a quoted attribute value holds '<script>' and '>' as text
    ('<a title="<script>">x</a><p>b</p>', '<a title="<script>">x</a><p>b</p>'),
    ("<a title='x>y<style>'>z</a><p>b</p>", "<a title='x>y<style>'>z</a><p>b</p>"),
    ("<a<script>x</a><p>b</p>", "<a<script>x</a><p>b</p>"),  # one tag named 'a<script'
    # in SVG and MathML a CDATA section is text up to ']]>', and a script is theirs
    ("<svg><![CDATA[ a > b <script> ]]></svg><p>c</p>",
     "<svg> a > b &lt;script> </svg><p>c</p>"),
    ("<math><![CDATA[ never closed <p>c</p>", "<math> never closed &lt;p>c&lt;/p>"),
    # an HTML tag such as <p> ends SVG left open; an SVG closed twice or never opened
    # leaves HTML as HTML
    ("<svg><p>a</p><![CDATA[ <script> ]]><p>b</p>", "<svg><p>a</p> ]]><p>b</p>"),
    ("<svg/><![CDATA[ <script> ]]><p>b</p>", "<svg/> ]]><p>b</p>"),
    ("</svg><![CDATA[ <script> ]]><p>b</p>", "</svg> ]]><p>b</p>"),
])
def test_without_scripts(html: str, kept: str) -> None:
    assert without_scripts(html) == kept


@pytest.mark.parametrize("tail", ["<a " * 20_000, "<a/" * 20_000, "</a" * 20_000,
                                  '<p title="' + "<a " * 20_000],
                         ids=["start-tags", "slashes", "end-tags", "in-a-value"])
def test_a_tag_left_open_is_not_parsed_again_and_again(tail: str) -> None:
    """Python's HTML parser took each '<' of a tag left open at the page's end for a tag of
    its own, reading on to the end each time: 60,000 characters of '<a ' held web_fetch's
    thread for about 30 s of CPU (90 s at 100,000), past any deadline. Such a tag is
    dropped, as a browser drops it, so the parser never sees one."""
    readable = page.html_to_markdown("<html><body><p>Release notes</p>" + tail,
                                     deadline=time.monotonic() + 3_600)
    assert readable.text == "Release notes"
    assert "<" not in without_scripts("<p>Release notes</p>" + tail).removeprefix(
        "<p>Release notes</p>")


@pytest.mark.parametrize(("html", "cut"), [
    # the last '<' before the limit lies in a value: the cut leaves no tag open
    ('<p>a</p><a title="<b> <b> <b>">x</a>', "<p>a</p>"),
    ("<p>a</p><p>bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "<p>a</p><p>bbbbbbbbbbbbb"),
    ("<p>a</p><p>b</p>", "<p>a</p><p>b</p>"),
])
def test_a_long_page_is_cut_between_tags(html: str, cut: str) -> None:
    assert page._cut_html(html, 24) == cut


@pytest.mark.parametrize(("html", "title", "text"), [
    ("<html><body><![CDATA[ <script> ]]><p>Release notes</p><p>Fixed</p></body></html>",
     "", "]]>\n\nRelease notes\n\nFixed"),
    ("<html><head><title>Docs <script> here</title></head><body><p>Release notes</p>"
     "</body></html>", "Docs <script> here", "Release notes"),
    ('<html><body><a title="<script>" href="/x">Release notes</a></body></html>', "",
     "[Release notes](/x \"<script>\")"),
    # an icon's SVG title is no page title (the page without one had the icon's)
    ("<html><body><svg><title>Close</title></svg><p>Release notes</p></body></html>", "",
     "Release notes"),
    ("<html><head><title>Docs</title></head><body><svg><title>Close</title></svg><p>Release "
     "notes</p></body></html>", "Docs", "Release notes"),
])
def test_page_text_is_kept_where_a_browser_shows_it(html: str, title: str, text: str) -> None:
    """A '<script>' a browser reads as text (in a CDATA section outside SVG, a title, an
    attribute) opened a script here that ran to the page's end: its text was lost."""
    assert page.html_to_markdown(html)[:2] == (title, text)
