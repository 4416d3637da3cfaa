"""Turning a fetched body into text the model can read.

HTML goes through markdownify (maintained, MIT, pure Python on BeautifulSoup: it keeps
headings, lists, links, tables and code blocks, which is what a model needs from a docs page),
after the parts that are never content — scripts, styles, forms, navigation chrome — are
dropped. Plain text, Markdown, JSON and XML pass through as they are; anything else (images,
archives, PDFs) is refused by name rather than decoded into noise.
"""

from __future__ import annotations

import re

_TEXT_TYPES = ("text/plain", "text/markdown", "text/x-markdown", "text/csv", "application/json",
               "application/xml", "text/xml", "application/javascript", "text/javascript",
               "application/x-yaml", "text/yaml", "application/ld+json")
_HTML_TYPES = ("text/html", "application/xhtml+xml")
_DROPPED_TAGS = ("script", "style", "noscript", "template", "svg", "iframe", "form", "nav",
                 "footer", "head")


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


def html_to_markdown(html: str) -> tuple[str, str]:
    """(title, markdown) of an HTML page."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup(list(_DROPPED_TAGS)):
        tag.decompose()
    root = soup.find("main") or soup.find("article") or soup.body or soup
    markdown = MarkdownConverter(heading_style="ATX", bullets="-",
                                 code_language="").convert_soup(root)
    markdown = re.sub(r"\n{3,}", "\n\n", markdown).strip()
    return title, markdown


def readable_text(body: str, content_type: str | None) -> tuple[str, str]:
    """(title, text) for a decoded body, or NotText."""
    kind = media_type(content_type)
    if is_html(kind, body[:512]):
        return html_to_markdown(body)
    if kind.startswith("text/") or kind in _TEXT_TYPES or kind.endswith(("+json", "+xml")):
        return "", body
    if not kind and "\x00" not in body[:4096]:
        return "", body
    raise NotText(f"the page is {kind or 'of an unknown type'}, not text or HTML")
