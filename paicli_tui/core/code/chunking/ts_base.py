"""tree-sitter plumbing shared by the per-language chunkers.

Grammars come from the per-language wheels (tree-sitter-java, -python, -javascript,
-typescript, -go), imported on first use; nothing is downloaded at run time.
"""

from __future__ import annotations

import importlib
import re
import threading
from typing import Any

_GRAMMARS: dict[str, tuple[str, str]] = {
    "java": ("tree_sitter_java", "language"),
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
}

_local = threading.local()


def parse(language: str, data: bytes) -> Any:
    """The tree-sitter tree of ``data`` (parsers are cached per thread: they are not
    thread-safe)."""
    parsers: dict[str, Any] = getattr(_local, "parsers", None) or {}
    _local.parsers = parsers
    parser = parsers.get(language)
    if parser is None:
        from tree_sitter import Language, Parser

        module_name, function = _GRAMMARS[language]
        module = importlib.import_module(module_name)
        parser = Parser(Language(getattr(module, function)()))
        parsers[language] = parser
    return parser.parse(data)


def text_of(node: Any) -> str:
    return node.text.decode("utf-8", errors="replace") if node is not None else ""


def start_line(node: Any) -> int:
    return node.start_point[0] + 1


def end_line(node: Any) -> int:
    """Last line of the node (1-based); a node ending at column 0 ends on the line before."""
    row, column = node.end_point
    if column == 0 and row > node.start_point[0]:
        return row
    return row + 1


def squash(text: str) -> str:
    """Whitespace runs collapsed to one space (signatures, types)."""
    return re.sub(r"\s+", " ", text).strip()


def normalise_type(text: str) -> str:
    """One spelling for a type however it was spaced: ``Map<K, V>``, ``int[]``, ``T...``."""
    text = re.sub(r"\s*([<>,\[\]]|\.\.\.)\s*", r"\1", squash(text))
    return text.replace(",", ", ")


FILE_HEADER = re.compile(r"@(?:license|licence|file|fileoverview|overview|module|preserve|"
                         r"copyright)\b|\bCopyright\b|SPDX-License-Identifier")
"""A doc comment that describes the file, not the declaration after it, when a blank line
separates them (``/** @license MIT */``, a copyright banner, ``@fileoverview``)."""


def preceding_comment(node: Any, comment_types: tuple[str, ...], *,
                      doc_only_prefix: str | None = None) -> str:
    """The comment block right above ``node`` (adjacent lines), or ''.

    A comment that ends a line of code (``x = 1; // note``) belongs to that line, so it ends
    the block. With ``doc_only_prefix`` (``/**`` for Javadoc) only the nearest comment starting
    with it counts; plain comments between it and ``node`` (a tool directive, a note) are looked
    past, and so are blank lines, as javadoc and javalang do (``*/``, an empty line, then the
    declaration is a common layout: the JDK has it on many classes), except a file's banner
    (:data:`FILE_HEADER`) with a blank line under it.
    """
    parts: list[str] = []
    current = node
    expected_line = start_line(node)
    while True:
        sibling = current.prev_sibling
        if sibling is None or sibling.type not in comment_types:
            break
        if doc_only_prefix is None and end_line(sibling) < expected_line - 1:
            break
        before = sibling.prev_sibling
        if before is not None and end_line(before) == start_line(sibling):
            break  # a trailing comment of the code before it
        text = text_of(sibling)
        if doc_only_prefix is not None:
            if text.startswith(doc_only_prefix):
                if end_line(sibling) < expected_line - 1 and FILE_HEADER.search(text):
                    return ""  # the file's banner (licence, overview), as JSDoc reads it
                return text
        else:
            parts.insert(0, text)
        expected_line = start_line(sibling)
        current = sibling
    return "\n".join(parts)


def walk(node: Any):
    """Every descendant of ``node`` (pre-order), iteratively: deep trees must not recurse."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))
