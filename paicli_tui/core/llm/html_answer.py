"""A web page where a chat-completions answer was expected.

A base URL that misses its ``/v1``, or points at a gateway's sign-in page or a proxy's error
page, gets HTML back: a 404 page, nginx's "502 Bad Gateway", or a 200 single-page app.
Quoted raw, the error was 500 characters of tags and styles across several lines; read as a
stream, a 200 page "stopped streaming before the reply was complete". The person is told
the page's title and that it is a page, so they look at the URL, not at the model.
"""

from __future__ import annotations

import html
import re

_PAGE_START = re.compile(r"\s*(?:<!--.*?-->\s*)?<(?:!doctype\s+html|html|head|body)\b",
                         re.IGNORECASE | re.DOTALL)
# Neither part can run past the next '<': a page of '<title <title <title…' (no '>') made
# [^>]* read to its end from every start, a second of CPU at the 64 KiB cap
# (benchmarks/bench_html_answer_title.py)
_TITLE = re.compile(r"<title\b[^<>]*>([^<]*)<", re.IGNORECASE)
_HEADING = re.compile(r"<h1\b[^<>]*>([^<]*)<", re.IGNORECASE)
MAX_TITLE_CHARS = 120


def is_html_page(text: str) -> bool:
    """The text is an HTML document (a doctype, or an html/head/body tag, first)."""
    return _PAGE_START.match(text[:4096]) is not None


def page_title(text: str) -> str:
    """The page's title (or first heading), unescaped and on one line; "" when it has none."""
    for pattern in (_TITLE, _HEADING):
        found = pattern.search(text)
        if found:
            title = " ".join(html.unescape(found.group(1)).split())
            if title:
                return title[:MAX_TITLE_CHARS]
    return ""


def html_page_said(text: str) -> str:
    """What an error says of an HTML answer: ``an HTML page titled '502 Bad Gateway'``."""
    title = page_title(text)
    return f"an HTML page titled {title!r}" if title else "an HTML page without a title"
