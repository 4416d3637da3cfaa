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
                 "footer", "head", "noembed", "noframes")

MAX_HTML_CHARS = 1_000_000
"""At most this many characters of a page's HTML (scripts and styles removed) are parsed and
converted: ~3–10 s of CPU, within web_fetch's 30 s; a page's first megabyte of HTML is far
more than a model reads of it."""

_WS = "\t\n\f\r "
"""What HTML takes for white space between a tag's name and its attributes."""
_ATTRIBUTE_LIST = (rf"""(?:[{_WS}/]++|[^{_WS}/>][^{_WS}/>=]*+(?:[{_WS}]*+=[{_WS}]*+"""
                   rf"""(?:"[^"]*+"?|'[^']*+'?|[^{_WS}>]*+))?+)*+""")
_ATTRIBUTES = _ATTRIBUTE_LIST + ">?"
"""The rest of a tag after its name, up to and with its '>' (none at the page's end), read
as a browser reads it: a quoted value runs to its closing quote, so '<a title="<script>">'
opens no script and '<a title="x>y">' does not end at the first '>'. Only the page's end
stops it before a '>'."""
_CLOSED = _ATTRIBUTE_LIST + ">"
"""The rest of a tag that has its '>'."""
_DROPPED_RAW = ("script", "style")
"""Elements whose text runs to their end tag and is dropped (never content)."""
_RCDATA = ("title", "textarea")
"""Elements whose text runs to their end tag, character references read: a '<script>' in a
title is the words '<script>'."""
_RAWTEXT = ("xmp", "iframe", "noembed", "noframes", "noscript")
"""Elements whose text runs to their end tag as it is (noscript: as in a browser that runs
scripts)."""
_FOREIGN = ("svg", "math")
"""SVG and MathML, inside which '<![CDATA[' starts text up to ']]>'."""
_BREAKOUT = ("b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt",
             "em", "embed", "h1", "h2", "h3", "h4", "h5", "h6", "head", "hr", "i", "img", "li",
             "listing", "menu", "meta", "nobr", "ol", "p", "pre", "ruby", "s", "small", "span",
             "strong", "strike", "sub", "sup", "table", "tt", "u", "ul", "var")
"""HTML start tags that end SVG or MathML left open, as in a browser."""


def _scanner(special: tuple[str, ...]) -> re.Pattern[str]:
    """One step of :func:`without_scripts`: everything that needs no change (text, and every
    tag but those named in ``special`` and the ends of SVG and MathML), matched inside the
    regex engine, then the construct that does, if any."""
    names = "|".join(special)
    ends = "|".join(_FOREIGN)
    plain = (rf"[^<]++|<(?![A-Za-z!?/])"
             rf"|<(?!(?:{names})(?:[{_WS}/>]|$))[A-Za-z][^{_WS}/>]*+{_CLOSED}"
             rf"|</(?!(?:{ends})(?:[{_WS}/>]|$))[A-Za-z][^{_WS}/>]*+{_CLOSED}")
    return re.compile(
        rf"(?:{plain})*+(?P<at>)(?:(?P<comment><!--)|(?P<cdata><!\[CDATA\[)"
        rf"|(?P<bogus><[!?]|</(?![A-Za-z]))|</(?P<end>{ends})(?=[{_WS}/>]|$){_ATTRIBUTES}"
        rf"|<(?P<name>{names})(?=[{_WS}/>]|$){_ATTRIBUTES}|(?P<unclosed></?[A-Za-z]))?",
        re.IGNORECASE)


_HTML_STEP = _scanner(_DROPPED_RAW + _RCDATA + _RAWTEXT + ("plaintext",) + _FOREIGN)
_FOREIGN_STEP = _scanner(_FOREIGN + _BREAKOUT)
"""Inside SVG or MathML a '<script>' or '<title>' is an element of theirs, read as markup."""
_KINDS = ("comment", "cdata", "bogus", "end", "name", "unclosed")
_WHOLE_TOKENS = re.compile(
    rf"(?:[^<]++|<(?![A-Za-z!?/])|</?[A-Za-z][^{_WS}/>]*+{_CLOSED})*+")
"""Text and whole tags, which is all :func:`without_scripts` leaves: where a page can be cut
without leaving a tag open."""
_COMMENT_END = re.compile(r"(?<=<!--)-?>|--!?>")
"""A comment ends at ``-->`` or ``--!>``, and ``<!-->`` and ``<!--->`` are whole empty ones,
as a browser reads them: one taken as open ran on to the next ``-->`` and lost the page
between."""
_END_TAGS: dict[str, re.Pattern[str]] = {
    name: re.compile(rf"</{name}(?=[{_WS}/>]){_ATTRIBUTES}", re.IGNORECASE)
    for name in _DROPPED_RAW + _RCDATA + _RAWTEXT}
"""An end tag may carry what a browser skips ('</script foo>', '</style/>'): it still ends
the element, at its '>'."""


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
    """``html`` without its ``<script>`` and ``<style>`` elements, its comments and what a
    browser reads as one (``<!DOCTYPE>``, ``<?xml>``, a ``<![CDATA[`` outside SVG and MathML,
    each ending at the first '>'), in one pass (one left open runs to the end, as in a
    browser): they are never content, and on many pages they are most of the bytes. The
    page is split as a browser splits it, so nothing in a comment, an attribute's value, a
    title, a textarea or a CDATA section opens a script that swallows the page up to the
    next ``</script>``: the text of a title or a textarea (and of xmp, iframe, noembed,
    noframes and noscript) is kept as text, its '<' written '&lt;'."""
    kept: list[str] = []
    at = 0
    foreign = 0  # SVG and MathML elements open
    while True:
        step = (_FOREIGN_STEP if foreign else _HTML_STEP).match(html, at)
        kept.append(html[at : step.start("at")])
        at = step.end()
        kind = next((kind for kind in _KINDS if step.group(kind) is not None), None)
        # A tag without its '>' runs to the page's end, and a browser drops it. Left in,
        # Python's HTML parser tried each '<' in it as a tag of its own, each time reading
        # to the end: 100,000 characters of '<a ' took 90 s of CPU.
        if kind is None or kind == "unclosed" or (
                kind in ("end", "name") and not html.endswith(">", 0, at)):
            return "".join(kept)
        if kind == "comment":
            closed = _COMMENT_END.search(html, at)
            at = closed.end() if closed else len(html)
        elif kind == "cdata" and foreign:
            closed = html.find("]]>", at)
            end = closed if closed >= 0 else len(html)
            kept.append(_as_text(html[at:end], raw=True))
            at = min(end + 3, len(html))
        elif kind in ("cdata", "bogus"):
            at = html.find(">", step.start(kind)) + 1 or len(html)
        elif kind == "end":
            kept.append(html[step.start("at") : at])
            foreign = max(0, foreign - 1)
        else:
            at = _after_start_tag(html, step, kept)
            name = step.group("name").lower()
            if name in _FOREIGN and not html.endswith("/>", 0, step.end()):
                foreign += 1
            elif foreign and name in _BREAKOUT:
                foreign = 0


def _after_start_tag(html: str, step: re.Match[str], kept: list[str]) -> int:
    """Where the scan goes on after a special start tag; its text goes into ``kept``."""
    name = step.group("name").lower()
    at = step.end()
    if name in _DROPPED_RAW:
        closed = _END_TAGS[name].search(html, at)
        return closed.end() if closed else len(html)
    kept.append(html[step.start("at") : at])
    if name == "plaintext":  # the rest of the page is its text
        kept.append(_as_text(html[at:], raw=True))
        return len(html)
    if name in _FOREIGN or name in _BREAKOUT:
        return at
    closed = _END_TAGS[name].search(html, at)
    end = closed.start() if closed else len(html)
    kept.append(_as_text(html[at:end], raw=name in _RAWTEXT))
    return end


def _as_text(text: str, raw: bool) -> str:
    """``text`` written so that the HTML parser reads it as text; ``raw``: its '&' too (no
    character references are read in it)."""
    if raw:
        text = text.replace("&", "&amp;")
    return text.replace("<", "&lt;")


def _cut_html(html: str, limit: int) -> str:
    """At most the first ``limit`` characters of ``html`` (the output of
    :func:`without_scripts`), ending before a tag cut in two. The last '<' before the limit
    was no such place: it could lie in an attribute's value, leaving a tag open (see
    :func:`without_scripts` for what that costs)."""
    if len(html) <= limit:
        return html
    return html[: _WHOLE_TOKENS.match(html, 0, limit).end()]


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
    # the page's own title, not an icon's: an SVG's <title> names the drawing ('Close')
    title_tag = next((t for t in soup.find_all("title")
                      if t.find_parent(list(_FOREIGN)) is None), None)
    title = title_tag.get_text(" ", strip=True) if title_tag is not None else ""
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
