"""Turning a fetched body into text the model can read.

HTML goes through markdownify (maintained, MIT, pure Python on BeautifulSoup: it keeps
headings, lists, links, tables and code blocks, which is what a model needs from a docs page),
after the parts that are never content — scripts, styles, forms, navigation chrome — are
dropped. Plain text, Markdown, JSON and XML pass through as they are; anything else (images,
archives, PDFs) is refused by name rather than decoded into noise.

The conversion is bounded like the download: it cost ~3–10 s of CPU per MB of HTML (a 4 MB
page of one big table held a worker for 40 s after web_fetch's deadline had passed), in a
thread nothing can stop. So scripts, styles and comments are dropped first in one linear
scan, at most ``MAX_HTML_CHARS`` of what remains is parsed, and the Markdown converter checks
the fetch's deadline as it walks the page: out of time, the page's text is given without
formatting. Each of these says so in a note of the tool result.
"""

from __future__ import annotations

import re
import time
from typing import NamedTuple

_TEXT_TYPES = ("text/plain", "text/markdown", "text/x-markdown", "text/csv", "application/json",
               "application/xml", "text/xml", "application/javascript", "text/javascript",
               "application/x-yaml", "text/yaml", "application/ld+json")
_HTML_TYPES = ("text/html", "application/xhtml+xml")
_DROPPED_TAGS = ("script", "style", "noscript", "template", "svg", "iframe", "form", "nav",
                 "footer", "head")

MAX_HTML_CHARS = 1_000_000
"""At most this many characters of a page's HTML (scripts and styles removed) are parsed and
converted: ~3–10 s of CPU, within web_fetch's 30 s; a page's first megabyte of HTML is far
more than a model reads of it."""

_RAW_OPEN = re.compile(r"<(script|style)(?=[\s/>])|<(!--)", re.IGNORECASE)
# an end tag may carry what a browser skips ('</script foo>', '</style/>'): it still ends
# the element, at its '>' (found apart: a pattern running to it rescanned the rest of the
# page for each such tag without one)
_RAW_CLOSE = {"script": re.compile(r"</script(?=[\s/>])", re.IGNORECASE),
              "style": re.compile(r"</style(?=[\s/>])", re.IGNORECASE),
              "!--": re.compile(r"(?<=<!--)-?>|--!?>")}
"""A comment ends at ``-->`` or ``--!>``, and ``<!-->`` and ``<!--->`` are whole empty ones,
as a browser reads them: one taken as open ran on to the next ``-->`` and lost the page
between."""


class Readable(NamedTuple):
    """What the model reads of a body: its title, its text, and what was cut or simplified
    on the way (one sentence each)."""

    title: str
    text: str
    notes: tuple[str, ...] = ()


class _OutOfTime(Exception):
    """The fetch's deadline passed while the page was being converted."""


class NotText(ValueError):
    """The body is not something a model can read as text."""


def media_type(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def is_html(kind: str, body_start: str) -> bool:
    if kind in _HTML_TYPES:
        return True
    # servers that send no type (or a generic one) for a page
    return kind in ("", "application/octet-stream", "text/plain") and bool(
        re.match(r"\s*(<!doctype html|<html)", body_start, re.IGNORECASE))


def without_scripts(html: str) -> str:
    """``html`` without its ``<script>`` and ``<style>`` elements and its comments, in one
    pass (one left open runs to the end, as in a browser): they are never content, and on
    many pages they are most of the bytes. A comment is skipped whole, so a ``<script>``
    inside one does not swallow the page up to the next ``</script>``."""
    kept: list[str] = []
    at = 0
    while (opened := _RAW_OPEN.search(html, at)) is not None:
        kept.append(html[at : opened.start()])
        closed = _RAW_CLOSE[(opened.group(1) or opened.group(2)).lower()].search(
            html, opened.end())
        if closed is None:
            return "".join(kept)
        at = closed.end()
        if opened.group(1):  # the end tag's '>' (none: it runs to the end, as in a browser)
            at = html.find(">", at) + 1 or len(html)
    kept.append(html[at:])
    return "".join(kept)


def _cut_html(html: str, limit: int) -> str:
    """The first ``limit`` characters of ``html``, ending before a tag cut in two."""
    if len(html) <= limit:
        return html
    end = html.rfind("<", 0, limit)
    return html[: end if end > 0 else limit]


def html_to_markdown(html: str, deadline: float | None = None) -> Readable:
    """Title and Markdown of an HTML page, converted by ``deadline`` (a ``time.monotonic``
    reading) or else given as plain text; notes say what was cut or simplified."""
    from bs4 import BeautifulSoup

    notes: list[str] = []
    html = without_scripts(html)
    if len(html) > MAX_HTML_CHARS:
        notes.append(f"the page's HTML has {len(html):,} characters without scripts, styles "
                     f"and comments; only the first {MAX_HTML_CHARS:,} were converted (the "
                     "rest is not shown)")
        html = _cut_html(html, MAX_HTML_CHARS)
    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup(list(_DROPPED_TAGS)):
        tag.decompose()
    root = soup.find("main") or soup.find("article") or soup.body or soup
    try:
        markdown = _converter(deadline).convert_soup(root)
    except _OutOfTime:
        notes.append("the page could not be converted to Markdown before web_fetch's "
                     "deadline; its text is given without formatting")
        markdown = root.get_text("\n", strip=True)
    except RecursionError:  # the converter recurses per element: 100 nested tables
        notes.append("the page's elements are nested too deeply to convert to Markdown; its "
                     "text is given without formatting")
        markdown = root.get_text("\n", strip=True)
    markdown = re.sub(r"\n{3,}", "\n\n", markdown).strip()
    return Readable(title, markdown, tuple(notes))


def _converter(deadline: float | None):
    from markdownify import MarkdownConverter

    class BoundedConverter(MarkdownConverter):
        """markdownify's converter, stopping when ``deadline`` has passed (it calls this
        method for every element of the page)."""

        def process_element(self, node, parent_tags=None):  # type: ignore[no-untyped-def]
            if deadline is not None and time.monotonic() > deadline:
                raise _OutOfTime
            return super().process_element(node, parent_tags=parent_tags)

    return BoundedConverter(heading_style="ATX", bullets="-", code_language="")


def readable_text(body: str, content_type: str | None,
                  deadline: float | None = None) -> Readable:
    """Title, text and notes for a decoded body (HTML converted by ``deadline``), or
    NotText."""
    kind = media_type(content_type)
    if is_html(kind, body[:512]):
        return html_to_markdown(body, deadline)
    if kind.startswith("text/") or kind in _TEXT_TYPES or kind.endswith(("+json", "+xml")):
        return Readable("", body)
    if not kind and "\x00" not in body[:4096]:
        return Readable("", body)
    raise NotText(f"the page is {kind or 'of an unknown type'}, not text or HTML")
