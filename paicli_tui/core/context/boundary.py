"""The tool-result boundary (behaviour §9): tool output is data, never instructions.

Every tool result entering the history is wrapped in a ``<tool_result>`` tag marked
untrusted; anything inside that looks like the tag itself is escaped so the content cannot
close the wrapper early and pose as the program or the person.
"""

from __future__ import annotations

import re

from ...surrogates import without_surrogates
from ..text_slices import text_slices

_OPEN = '<tool_result tool="{name}" trust="untrusted-data">'
_CLOSE = "</tool_result>"
# Both the opening and closing forms, any letter case (models and HTML are case-blind).
_TAG_INSIDE = re.compile(r"<(/?tool_result)", re.IGNORECASE)
_HEAD = re.compile(r'\A\s*<tool_result tool="([^"]*)"')


def clean_text(text: str) -> str:
    """Text safe to encode as UTF-8: lone surrogates (undecodable bytes read with
    ``surrogateescape``) become U+FFFD instead of crashing JSON encoding later."""
    # slice by slice: a worker thread admitting a 20 MB result lets the loop run between
    try:
        for piece in text_slices(text):
            piece.encode("utf-8")
    except UnicodeEncodeError:
        return "".join(without_surrogates(piece) for piece in text_slices(text))
    return text


def _escape_attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def _unescape_attr(value: str) -> str:
    return value.replace("&lt;", "<").replace("&quot;", '"').replace("&amp;", "&")


def escape_content(content: str) -> str:
    """Escape every ``<tool_result`` / ``</tool_result`` inside ``content`` (``<`` → ``&lt;``)."""
    return _TAG_INSIDE.sub(r"&lt;\1", content)


def wrap_tool_result(tool_name: str, content: str) -> str:
    """``content`` wrapped as an untrusted tool result; the wrapper cannot be closed from
    inside, and undecodable characters are replaced."""
    body = escape_content(clean_text(content))
    return f"{_OPEN.format(name=_escape_attr(clean_text(tool_name)))}\n{body}\n{_CLOSE}"


def wrap_data(tag: str, attributes: dict[str, str], content: str) -> str:
    """``content`` wrapped as untrusted data in ``<tag …>`` (a file the person attached, the
    output of their own command): neither this wrapper nor a tool result's can be closed
    from inside, and undecodable characters are replaced."""
    inside = re.compile(rf"<(/?{re.escape(tag)})", re.IGNORECASE)
    body = inside.sub(r"&lt;\1", escape_content(clean_text(content)))
    shown = "".join(f' {name}="{_escape_attr(clean_text(value))}"'
                    for name, value in attributes.items())
    return f'<{tag}{shown} trust="untrusted-data">\n{body}\n</{tag}>'


def tool_name_from_boundary(content: str) -> str | None:
    """The tool name from a wrapped result's opening tag, or None if it is not wrapped."""
    match = _HEAD.match(content)
    return _unescape_attr(match.group(1)) if match else None


def result_chars(content: str) -> int:
    """Length of a tool result without the boundary wrapper (the whole text if unwrapped):
    the size rules of behaviour §4 are about the result, not about our tag around it."""
    head = _HEAD.match(content)
    if head is None:
        return len(content)
    end = content.find(">", head.end())
    inner = len(content) - (end + 1)
    if content[end + 1:end + 2] == "\n":
        inner -= 1
    if content.endswith("\n" + _CLOSE):
        inner -= len(_CLOSE) + 1
    elif content.endswith(_CLOSE):
        inner -= len(_CLOSE)
    return max(0, inner)


def unwrap_tool_result(content: str) -> str:
    """The inside of a wrapped tool result (escaped as it was stored); unwrapped text as is."""
    size = result_chars(content)
    if _HEAD.match(content) is None:
        return content
    start = content.find(">") + 1
    if content[start:start + 1] == "\n":
        start += 1
    return content[start:start + size]
