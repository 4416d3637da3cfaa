"""What every chunker returns, and the helpers they share (lines, doc comments, data files)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ..chunk import Chunk

EdgeKind = Literal["extends", "implements", "imports", "calls", "contains"]

FILE_CHUNK_CHARS = 2_000
"""Line-split file chunks hold at most about this many characters (behaviour §17)."""

CLASS_HEAD_LINES = 12
"""A class chunk shows its declaration and at most this many lines of the body's start."""

MAX_CHUNK_CHARS = 24_000
"""Longer method sources are cut (the line range stays exact; the text says it was cut)."""


@dataclass(frozen=True)
class Edge:
    """One relation of the code graph, found at ``path:line``."""

    src: str
    """Dotted name of the source: ``Class``, ``Class.method``, or a module/file name."""
    dst: str
    kind: EdgeKind
    path: str
    line: int


@dataclass
class ChunkedFile:
    """The result of chunking one file."""

    path: str
    language: str
    chunks: list[Chunk] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    parser: str = "lines"
    """``javalang``, ``tree-sitter`` or ``lines``: which path produced the chunks."""
    skipped_data_chunks: int = 0
    chunks_found: int = 0
    """How many chunks the file gave before the cap on chunks per file (:mod:`.capped`)
    merged the later ones; 0 when it was not capped."""


def source_lines(text: str) -> list[str]:
    """Lines without their terminators (1-based line n is ``lines[n - 1]``)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def line_slice(lines: list[str], start: int, end: int) -> str:
    """Text of lines ``start``..``end`` (1-based, inclusive), cut at MAX_CHUNK_CHARS."""
    text = "\n".join(lines[start - 1 : end])
    if len(text) > MAX_CHUNK_CHARS:
        text = text[:MAX_CHUNK_CHARS] + "\n… (cut: read the file for the rest)"
    return text


_COMMENT_MARKERS = re.compile(r"^\s*(?:/\*\*+|/\*+|\*+/|\*(?!/)|//+|#+)\s?")


def clean_comment(text: str) -> str:
    """A doc comment or docstring without its markers, whitespace collapsed per line."""
    text = text.strip()
    if text.endswith("*/"):
        text = text[:-2]
    for quote in ('"""', "'''"):
        if text.startswith(quote) and text.endswith(quote) and len(text) >= 6:
            text = text[3:-3]
    lines = [_COMMENT_MARKERS.sub("", line).rstrip() for line in text.splitlines()]
    cleaned = "\n".join(line.strip() for line in lines)
    return re.sub(r"\n{3,}", "\n\n", cleaned).strip()


_NOT_A_DOC = re.compile(
    r"copyright|spdx-license|licen[cs]ed under|\blicen[cs]e,? version|@generated|do not edit|"
    # tool directives, not prose
    r"eslint-|@ts-(ignore|expect-error|nocheck)|noinspection|checkstyle:|nolint|prettier-ignore|"
    r"istanbul ignore|pylint:|noqa|nosonar|suppress(warnings)?\(",
    re.IGNORECASE,
)
_CODE_LINE = re.compile(r"[;{}]\s*$|^\s*(return|if|for|while|import)\b")


def comment_above(lines: list[str], start: int, *, max_lines: int = 40) -> str:
    """The plain comment block that ends on the line right above line ``start`` (1-based):
    ``//`` lines or one ``/* ... */`` block that starts its own line, with its markers; ''
    when there is none, or when it is longer than ``max_lines`` lines.

    A fallback doc for languages whose chunkers only read doc comments (Javadoc, JSDoc): much
    code explains a method in an ordinary comment (the JDK does so on many private methods).
    Not a doc: a licence or generated-code header, a tool directive, commented-out code, or a
    comment that ends a line of code (``int count; /* items */``)."""
    i = start - 2  # 0-based index of the line above
    if i < 0:
        return ""
    block: list[str] = []
    if lines[i].rstrip().endswith("*/"):
        while True:
            if i < 0 or len(block) == max_lines:
                return ""
            block.insert(0, lines[i])
            if lines[i].lstrip().startswith("/*"):
                break
            if len(block) == 1 and "/*" in lines[i] and not lines[i].lstrip().startswith("*"):
                return ""  # a comment after code on the same line (int n; /* items */)
            i -= 1
    else:
        while i >= 0 and lines[i].lstrip().startswith("//"):
            if len(block) == max_lines:
                return ""
            block.insert(0, lines[i])
            i -= 1
    text = "\n".join(line.strip() for line in block)
    return text if _usable_as_doc(text) else ""


def _usable_as_doc(comment: str) -> bool:
    """True when a plain comment may stand in for a doc comment: it says something, and it
    is neither a licence or generated-code header nor mostly commented-out code."""
    body = [ln for ln in clean_comment(comment).splitlines() if ln.strip()]
    if not body or _NOT_A_DOC.search(comment):
        return False
    return sum(1 for ln in body if _CODE_LINE.search(ln)) * 2 <= len(body)


_LITERALS = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|\b0[xX][0-9a-fA-F_]+\b|'
                       r'\b\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?[lLfFdD]?\b')


def is_data_heavy(text: str, min_lines: int = 30) -> bool:
    """True for literal tables (unicode widths, emoji codes, palettes): long and mostly
    strings/numbers/punctuation. They would flood search results, so they are not indexed."""
    if text.count("\n") + 1 < min_lines:
        return False
    dense = re.sub(r"\s+", "", text)
    if not dense:
        return False
    code = re.sub(r"[\s,:;()\[\]{}+\-=]", "", _LITERALS.sub("", text))
    return len(code) / len(dense) < 0.25


def split_lines_into_chunks(path: str, lines: list[str], language: str, *,
                            first: int = 1, last: int | None = None, context: str = "",
                            max_chars: int = FILE_CHUNK_CHARS, start_index: int = 0) -> list[Chunk]:
    """File chunks over lines ``first``..``last`` of at most ``max_chars`` characters each
    (a single longer line becomes its own chunk, cut); blank-only chunks are dropped."""
    last = len(lines) if last is None else last
    chunks: list[Chunk] = []
    begin = first
    size = 0
    index = start_index
    for number in range(first, last + 1):
        length = len(lines[number - 1]) + 1
        if size and size + length > max_chars:
            index = _emit_file_chunk(chunks, path, lines, language, begin, number - 1, context,
                                     index)
            begin, size = number, 0
        size += length
    if begin <= last:
        _emit_file_chunk(chunks, path, lines, language, begin, last, context, index)
    return chunks


def _emit_file_chunk(chunks: list[Chunk], path: str, lines: list[str], language: str,
                     begin: int, end: int, context: str, index: int) -> int:
    text = "\n".join(lines[begin - 1 : end])
    if not text.strip():
        return index
    index += 1
    chunks.append(Chunk(path=path, kind="file", name=f"{path}#{index}", start_line=begin,
                        end_line=end, source=text[: max(FILE_CHUNK_CHARS * 2, 4_000)],
                        language=language, context=context))
    return index


def uncovered_ranges(total_lines: int, covered: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Line ranges (inclusive) not inside any of ``covered``."""
    marks = bytearray(total_lines + 2)
    for start, end in covered:
        for n in range(max(1, start), min(total_lines, end) + 1):
            marks[n] = 1
    ranges: list[tuple[int, int]] = []
    n = 1
    while n <= total_lines:
        if not marks[n]:
            begin = n
            while n <= total_lines and not marks[n]:
                n += 1
            ranges.append((begin, n - 1))
        else:
            n += 1
    return ranges


def leftover_file_chunks(result: ChunkedFile, lines: list[str], covered: list[tuple[int, int]],
                         context: str) -> None:
    """Top-level code outside every declaration chunk becomes file chunks (imports and
    package lines alone are not worth a chunk; data tables are skipped and counted)."""
    index = 0
    for begin, end in uncovered_ranges(len(lines), covered):
        body = [line for line in lines[begin - 1 : end]
                if line.strip() and not _is_header_line(line)]
        if sum(len(line) for line in body) < 80:
            continue
        for chunk in split_lines_into_chunks(result.path, lines, result.language, first=begin,
                                             last=end, context=context, start_index=index):
            index += 1
            if is_data_heavy(chunk.source, min_lines=20):
                result.skipped_data_chunks += 1
                continue
            result.chunks.append(replace(chunk, name=f"{result.path}#{index}"))


_HEADER = re.compile(r"^\s*(?:package\s|import\s|from\s+\S+\s+import\s|#|//|/?\*|\*/|@|\}|\)|\])")


def _is_header_line(line: str) -> bool:
    return bool(_HEADER.match(line))


def call_edges(path: str, source: str, calls: Iterable[Any],
               target_of: Callable[[Any], str | None], line_of: Callable[[Any], int]
               ) -> list[Edge]:
    """``calls`` edges from ``source`` to each call's target (one per target and line);
    ``target_of`` names a call node's target, or None when the syntax does not show it."""
    edges: list[Edge] = []
    seen: set[tuple[str, int]] = set()
    for node in calls:
        name = target_of(node)
        if not name:
            continue
        key = (name, line_of(node))
        if key not in seen:
            seen.add(key)
            edges.append(Edge(source, name, "calls", path, key[1]))
    return edges


def chunk_by_lines(path: str, text: str, language: str) -> ChunkedFile:
    """Line-split file chunks of at most about 2,000 characters (behaviour §17)."""
    result = ChunkedFile(path=path, language=language, parser="lines")
    for chunk in split_lines_into_chunks(path, source_lines(text), language,
                                         context=f"file {path}"):
        if is_data_heavy(chunk.source):
            result.skipped_data_chunks += 1
        else:
            result.chunks.append(chunk)
    return result
