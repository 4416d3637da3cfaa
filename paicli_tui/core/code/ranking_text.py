"""The text a chunk is ranked by: what is embedded, and what is full-text indexed.

The source shown to the model is ``Chunk.source``; ranking needs more and less than that.
More: where the code lives (path, class), its signature and doc comment up front, and for
full-text the split parts of every identifier (``cell_len`` also as ``cell len``) so plain
words in a question meet code names. Less: a huge literal table (width tables, emoji maps,
palettes) is cut to its first lines so it cannot flood the results, and the embedded text is
capped, because a sentence embedder averages a long chunk into mush.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .chunk import Chunk
from .query.terms import expand_identifiers, split_identifier, stem_line

EMBED_MAX_CHARS = 500
"""Embedded text is cut here: header, doc and the start of the body carry the meaning."""
DOC_MAX_CHARS = 600
CONTEXT_MAX_CHARS = 200
DATA_MIN_LINES = 30
DATA_SHARE = 0.6
DATA_KEEP_LINES = 8
PARENT_DOC_KEY = "parent_doc"
"""``Chunk.extra`` key holding the enclosing class's doc summary (see attach_parent_docs)."""

_STRING = re.compile(r"""("([^"\\]|\\.)*"|'([^'\\]|\\.)*')""")
_NUMBER = re.compile(r"\b(0[xob][0-9a-fA-F_]+|\d[\d_]*(\.\d+)?([eE][+-]?\d+)?)\b")
_WORDS = re.compile(r"[A-Za-z_]{2,}")
_PARAMS = re.compile(r"\(.*$", re.S)
_PY_DOC = re.compile(r"[rRuU]?(\"\"\"|\'\'\')[\s\S]*?\1")
_BLOCK_DOC = re.compile(r"/\*\*[\s\S]*?\*/")
_OPEN_DOC = re.compile(r"[rRuU]?(\"\"\"|\'\'\')|/\*\*")


def _is_data_line(line: str) -> bool:
    """A line of a literal table: only literals and punctuation, or one element of a
    collection built from literals (``"name": Style(bold=True),``)."""
    stripped = line.strip()
    if len(stripped) < 3:
        return False
    without_strings = _STRING.sub(" ", stripped)
    words = _WORDS.findall(_NUMBER.sub(" ", without_strings))
    if not words:
        return True
    has_literal = without_strings != stripped or _NUMBER.search(stripped) is not None
    return has_literal and len(words) <= 2 and stripped.endswith((",", "(", "),", "],", "},"))


def compact_data(source: str) -> str:
    """``source`` with the data lines of a data-heavy chunk (a literal table) cut after the
    first few, and a note of how many lines were left out; other code unchanged."""
    lines = source.splitlines()
    if len(lines) < DATA_MIN_LINES:
        return source
    flags = [_is_data_line(ln) for ln in lines]
    if sum(flags) < DATA_SHARE * len(lines):
        return source
    kept: list[str] = []
    seen = 0
    dropped = 0
    for ln, is_data in zip(lines, flags, strict=True):
        if is_data:
            seen += 1
            if seen > DATA_KEEP_LINES:
                dropped += 1
                continue
        kept.append(ln)
    kept.append(f"... {dropped} data lines ...")
    return "\n".join(kept)


_MAIN_GUARD = re.compile(r"^if __name__ == [\"']__main__[\"']\s*:", re.M)


def drop_main_block(source: str) -> str:
    """Python ``source`` without a top-level ``if __name__ == "__main__":`` block: a demo
    script that uses a module, not what the module does."""
    m = _MAIN_GUARD.search(source)
    return source[: m.start()] if m else source


_IMPORT = re.compile(
    r"^\s*(import\s|from\s+\S+\s+import\s|#\s*include\s|using\s+[\w.]+\s*;|package\s+[\w.]+\s*;?\s*$"
    r"|(const|let|var)\s+[\w{}\s,]+=\s*require\()"
)


def drop_imports(source: str) -> str:
    """``source`` without import lines (Python, Java, JS/TS, Go, C#, C): they name what a
    file uses, not what it does, and would match every question about those names."""
    out: list[str] = []
    in_block = False
    for line in source.splitlines():
        if in_block:
            if ")" in line:
                in_block = False
            continue
        if _IMPORT.match(line):
            opened = line.count("(") - line.count(")")
            in_block = opened > 0
            continue
        out.append(line)
    return "\n".join(out)


def _short_name(chunk: Chunk) -> str:
    """``Class.method`` without the parameter list (which the signature carries)."""
    name = _PARAMS.sub("", chunk.name).strip()
    if chunk.parent and not name.startswith(chunk.parent + "."):
        name = f"{chunk.parent}.{name}"
    return name


def _words_of(name: str) -> str:
    return " ".join(p for part in name.split(".") for p in split_identifier(part))


def _path_words(path: str) -> str:
    stem = re.sub(r"\.[A-Za-z0-9]+$", "", path)
    return " ".join(p for part in re.split(r"[/\\]", stem) for p in split_identifier(part))


_DOC_SECTION = re.compile(
    r"^\s*(args|arguments|parameters|params|returns?|yields?|raises|throws|attributes|"
    r"examples?|notes?|see also|@\w+|:param\b|:return|:raises)\b",
    re.IGNORECASE,
)


def doc_summary(doc: str) -> str:
    """The descriptive start of a doc comment: up to the first blank line or parameter
    section (``Args:``, ``@param``, ``:param``), at most ``DOC_MAX_CHARS`` characters."""
    out: list[str] = []
    for line in doc.strip().splitlines():
        if (not line.strip() and out) or _DOC_SECTION.match(line):
            break
        if line.strip():
            out.append(line.strip())
    return " ".join(out)[:DOC_MAX_CHARS]


def _class_doc(chunk: Chunk) -> str:
    """A class's doc reduced to its summary: its parameter list would match every question
    about any of its methods, which carry those details themselves."""
    return doc_summary(chunk.doc) if chunk.kind == "class" else chunk.doc.strip()


def _strip_doc(source: str, doc: str) -> str:
    """The source without its doc comment when the doc is repeated verbatim inside it."""
    if not doc:
        return source
    first = doc.strip().splitlines()[0].strip() if doc.strip() else ""
    if not first or first not in source:
        return source
    # Python docstring, or a /** ... */ doc comment: drop the block holding the first doc line.
    for m in (_PY_DOC.search(source), _BLOCK_DOC.search(source)):
        if m and first in m.group(0):
            return source[: m.start()] + source[m.end() :]
    # a chunk cut inside its doc comment (a class chunk keeps only its first lines)
    m = _OPEN_DOC.search(source)
    if m and first in source[m.start() :]:
        return source[: m.start()]
    return source


def attach_parent_docs(chunks: Sequence[Chunk]) -> None:
    """Give every member chunk the doc summary of its enclosing class, when a class chunk of
    the same file is among ``chunks``: a method's meaning depends on what its class is
    ("a piece of text with a style"), which its own doc rarely repeats. Stored in
    ``chunk.extra[PARENT_DOC_KEY]``; chunks without such a class are left as they are."""
    docs: dict[tuple[str, str], str] = {}
    for c in chunks:
        if c.kind == "class" and c.doc.strip():
            name = _PARAMS.sub("", c.name).strip()
            summary = doc_summary(c.doc)
            docs[(c.path, name)] = summary
            docs.setdefault((c.path, name.rsplit(".", 1)[-1]), summary)
    if not docs:
        return
    for c in chunks:
        if c.kind != "class" and c.parent:
            summary = docs.get((c.path, c.parent)) or docs.get(
                (c.path, c.parent.rsplit(".", 1)[-1])
            )
            if summary:
                c.extra[PARENT_DOC_KEY] = summary


def _parent_doc(chunk: Chunk) -> str:
    return chunk.extra.get(PARENT_DOC_KEY, "") if chunk.parent else ""


def _ranked_source(chunk: Chunk) -> str:
    source = drop_imports(_strip_doc(chunk.source, chunk.doc))
    if chunk.language == "python":
        source = drop_main_block(source)
    return compact_data(source)


def _embedded(chunk: Chunk, *, words: bool) -> str:
    """The header (where, name and its words, the class's purpose, doc, signature), then the
    start of the body, at most EMBED_MAX_CHARS; ``words``: the path and every identifier of
    the signature and body also as words (see :func:`words_embedding_text`)."""
    name = _short_name(chunk)
    parts = [_path_words(chunk.path)] if words else []
    parts += [name, _words_of(name)]
    if _parent_doc(chunk):
        parts.append(f"({chunk.parent}: {_parent_doc(chunk)})")
    doc = _class_doc(chunk)
    if doc:
        parts.append(doc[:DOC_MAX_CHARS])
    if chunk.signature.strip():
        parts.append(chunk.signature.strip())
        if words:
            parts.append(words_of_code(chunk.signature))
    body = _ranked_source(chunk)
    if words:
        body = words_of_code(body)
    head = "\n".join(p for p in parts if p)
    room = EMBED_MAX_CHARS - len(head) - 1
    text = head + ("\n" + body[:room] if room > 0 and body.strip() else "")
    return text[:EMBED_MAX_CHARS]


def embedding_text(chunk: Chunk) -> str:
    """The text embedded for ``chunk``: a header (``Class.method`` and its words), the
    doc comment, the signature, then the start of the body without the doc; at most
    ``EMBED_MAX_CHARS`` characters, data tables cut short."""
    # No path here: the multilingual sentence embedder reads ``src/main/java/...`` as noise
    # and it eats the character budget; the full-text side keeps the path and its words.
    return _embedded(chunk, words=False)


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def words_of_code(text: str) -> str:
    """Every identifier of ``text`` as its words, in order (``cellLen(x_max)`` →
    ``cell len x max``): an English sentence embedder reads words, not compound names."""
    return " ".join(p for token in _IDENTIFIER.findall(text) for p in split_identifier(token))


def words_embedding_text(chunk: Chunk) -> str:
    """The text embedded by an English/code embedder (MiniLM, ``ranking_text = "words"``):
    where the code lives in words (``rich/progress_bar.py`` → ``rich progress bar``),
    ``Class.method`` and its words, the class's purpose, the doc comment, the signature and
    its words, then the body with every identifier split into words; at most
    ``EMBED_MAX_CHARS``. Measured on the dev set only: MiniLM alone 0.625 -> 0.775 recall@5
    against :func:`embedding_text`; the multilingual USE reads that text worse (hybrid 0.925
    -> 0.85), so it keeps :func:`embedding_text`."""
    return _embedded(chunk, words=True)


RANKING_TEXTS = {"plain": embedding_text, "words": words_embedding_text}
"""Embedded texts by the name an embedder asks for with its ``ranking_text`` attribute
(``plain`` when it has none)."""


def fulltext_text(chunk: Chunk) -> str:
    """The text full-text indexed for ``chunk``: path and its words, ``Class.method`` and
    its words, signature, doc comment, context line, the source (data tables cut short), and
    the split parts of every compound identifier in all of it."""
    name = _short_name(chunk)
    source = _ranked_source(chunk)
    head = [chunk.path, _path_words(chunk.path), name, _words_of(name), chunk.signature.strip()]
    doc = _class_doc(chunk)
    if doc:
        head.append(doc)
    if chunk.context.strip():
        head.append(chunk.context.strip()[:CONTEXT_MAX_CHARS])
    if _parent_doc(chunk):
        head.append(_parent_doc(chunk))
    text = "\n".join(p for p in head if p) + "\n" + source
    return f"{text}\n{expand_identifiers(text)}\n{stem_line(text)}"
