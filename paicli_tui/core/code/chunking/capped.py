"""The cap on chunks per file (behaviour §17): one huge file must not dominate the index.

A 1 MB Java file of 40,000 one-line methods gave 40,000 chunks, each embedded on its own:
minutes of indexing for one file, and its chunks crowded every search. Past the cap a file
keeps, as chunks of their own, its types (class, interface, enum: they say what the file is)
and then its first declarations in source order; every later declaration is merged, in
order, into at most ``MERGED_PIECES`` larger file chunks. Full-text search still finds each
name in those pieces (their text is the declarations' source), the graph keeps all its
edges, and grep sees the whole file; only the later declarations lose their own vector.
"""

from __future__ import annotations

from dataclasses import replace

from ..chunk import Chunk
from .common import MAX_CHUNK_CHARS, ChunkedFile

MAX_CHUNKS_PER_FILE = 1_000
"""At most this many chunks per file: 1,000 methods of 20 lines are some 600 KB of code, more
than a hand-written file holds; a file past it is mostly generated code or a table (files
over 1 MB are not indexed at all)."""

MERGED_PIECES = 100
"""Of the cap, the share left for the merged pieces holding the declarations past it."""


def cap_chunks(result: ChunkedFile, limit: int = MAX_CHUNKS_PER_FILE,
               pieces: int = MERGED_PIECES) -> ChunkedFile:
    """``result`` unchanged when it has at most ``limit`` chunks; otherwise its types and
    first declarations (``limit - pieces`` chunks) and the rest merged into at most
    ``pieces`` file chunks, with ``chunks_found`` recording how many there were."""
    if len(result.chunks) <= limit:
        return result
    ordered = sorted(result.chunks, key=lambda c: (c.kind != "class", c.start_line))
    alone = ordered[: limit - pieces]
    rest = sorted(ordered[limit - pieces :], key=lambda c: (c.start_line, c.end_line))
    kept = sorted(alone, key=lambda c: (c.start_line, c.end_line))
    merged = _merged(result.path, result.language, rest, pieces, len(alone))
    return replace(result, chunks=kept + merged, chunks_found=len(result.chunks))


def _merged(path: str, language: str, rest: list[Chunk], pieces: int, first: int
            ) -> list[Chunk]:
    """``rest`` joined in order into at most ``pieces`` chunks of about equal size: a piece
    closes once it holds ``total / pieces`` characters."""
    total = sum(len(c.source) + 1 for c in rest)
    size = -(-total // pieces)
    merged: list[Chunk] = []
    group: list[Chunk] = []
    held = 0
    for chunk in rest:
        group.append(chunk)
        held += len(chunk.source) + 1
        if held >= size:
            merged.append(_piece(path, language, group, len(merged) + 1, first))
            group, held = [], 0
    if group:
        merged.append(_piece(path, language, group, len(merged) + 1, first))
    return merged


def _piece(path: str, language: str, group: list[Chunk], number: int, first: int) -> Chunk:
    source = "\n".join(c.source for c in group)
    if len(source) > MAX_CHUNK_CHARS * 2:  # one piece of a few huge declarations
        source = source[: MAX_CHUNK_CHARS * 2] + "\n… (cut: read the file for the rest)"
    return Chunk(path=path, kind="file", name=f"{path}#more-{number}",
                 start_line=group[0].start_line, end_line=max(c.end_line for c in group),
                 source=source, language=language,
                 context=f"file {path} ({len(group)} declarations past the first "
                         f"{first:,}, merged)")
