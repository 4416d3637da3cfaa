"""Java chunking: javalang first (the reference parser), tree-sitter-java when it fails."""

from __future__ import annotations

from .common import ChunkedFile, chunk_by_lines, source_lines
from .java_model import java_chunks


def chunk_java(path: str, text: str, *, force_treesitter: bool = False) -> ChunkedFile:
    """Class and method chunks of a Java file plus its graph edges.

    javalang 0.13 cannot read records, sealed types, switch expressions, text blocks or
    ``instanceof`` patterns; those files go through tree-sitter-java. A file neither parser
    makes sense of becomes line-split file chunks.
    """
    from .java_javalang import JavalangFailed, java_model_javalang

    lines = source_lines(text)
    if not force_treesitter:
        try:
            return java_chunks(path, lines, java_model_javalang(text), "javalang")
        except JavalangFailed:
            pass
    from .java_ts import java_model_treesitter

    model, had_errors = java_model_treesitter(text)
    if model.types or model.methods:
        return java_chunks(path, lines, model, "tree-sitter")
    return chunk_by_lines(path, text, "java")
