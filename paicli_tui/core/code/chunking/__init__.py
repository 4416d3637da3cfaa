"""Split source files into chunks (and graph edges) by language.

Java: javalang first, tree-sitter-java when javalang cannot parse the file; Python,
JavaScript, TypeScript and Go: tree-sitter; everything else: line-split file chunks.
Minified files are cut into bounded pieces and generated files left out (:mod:`.minified`);
a file past the cap on chunks per file keeps its first ones and merges the rest (:mod:`.capped`).
Parsers are imported on first use.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from .common import ChunkedFile, Edge, chunk_by_lines

LANGUAGES: dict[str, str] = {
    ".java": "java",
    ".py": "python", ".pyi": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go",
}

TEXT_EXTENSIONS = frozenset({
    ".md", ".rst", ".txt", ".kt", ".kts", ".scala", ".groovy", ".gradle", ".c", ".h", ".cc",
    ".cpp", ".hpp", ".cs", ".rs", ".rb", ".php", ".swift", ".m", ".sh", ".bash", ".zsh",
    ".sql", ".xml", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".properties", ".json",
    ".html", ".css", ".scss", ".vue", ".svelte", ".lua", ".r", ".dart", ".ex", ".exs",
    ".erl", ".hs", ".ml", ".clj", ".proto", ".graphql", ".tf", ".dockerfile", ".mk",
})
"""Files chunked by lines; others (images, archives, lock files, data) are not indexed."""

SPECIAL_NAMES = frozenset({"Dockerfile", "Makefile", "README", "pom.xml", "build.gradle"})

CHUNKER_VERSION = "5"
"""Bumped whenever the chunks a file gives change (their lines, the doc attached, their text):
an index made by an older version reads every file again once (vectors of unchanged text
are reused), instead of keeping old chunks until each file happens to change. 2: a Javadoc
or JSDoc followed by a blank line stays with its declaration on the tree-sitter path. 3: not
a file's banner (a licence, a copyright line, ``@fileoverview``) followed by a blank line.
4: type aliases are definitions. 5: a file past the cap on chunks per file merges the rest."""

__all__ = ["CHUNKER_VERSION", "ChunkedFile", "Edge", "chunk_file", "language_of",
           "is_indexable"]


def language_of(path: str) -> str | None:
    """The parser language of a project path, 'text' for line-split files, None to skip."""
    pure = PurePosixPath(path)
    suffix = pure.suffix.lower()
    if suffix in LANGUAGES:
        return LANGUAGES[suffix]
    if suffix in TEXT_EXTENSIONS or pure.name in SPECIAL_NAMES:
        return "text"
    return None


def is_indexable(path: str) -> bool:
    return language_of(path) is not None


def chunk_file(path: str, text: str) -> ChunkedFile:
    """Chunks and edges of one file (``path`` project-relative, '/'-separated).

    Never raises for bad source: a file no parser can read becomes line-split file chunks.
    """
    from .capped import cap_chunks
    from .minified import chunk_minified, classify

    language = language_of(path) or "text"
    kind = classify(path, text)
    if kind == "minified":  # bounded pieces in linear time, no parser
        return chunk_minified(path, text, language)
    if kind == "generated":  # counted in the index summary, not indexed
        return ChunkedFile(path=path, language=language, parser="generated")
    try:
        result = _chunk_by_language(path, text, language)
    except (RecursionError, ValueError, IndexError, KeyError, AttributeError, TypeError):
        # a parser bug or a pathological file must not stop the whole index
        result = chunk_by_lines(path, text, language)
    return cap_chunks(result)


def _chunk_by_language(path: str, text: str, language: str) -> ChunkedFile:
    if language == "java":
        from .java import chunk_java

        return chunk_java(path, text)
    if language == "python":
        from .python_ts import chunk_python

        return chunk_python(path, text)
    if language in ("javascript", "typescript", "tsx"):
        from .js_ts import chunk_js

        return chunk_js(path, text, language)
    if language == "go":
        from .go_ts import chunk_go

        return chunk_go(path, text)
    return chunk_by_lines(path, text, language)
