"""What a chunk is embedded and full-text indexed as."""

from __future__ import annotations

import pytest

from paicli_tui.core.code.chunk import Chunk
from paicli_tui.core.code.query import plan_query
from paicli_tui.core.code.ranking_text import (
    EMBED_MAX_CHARS,
    PARENT_DOC_KEY,
    RANKING_TEXTS,
    attach_parent_docs,
    compact_data,
    doc_summary,
    embedding_text,
    fulltext_text,
    words_embedding_text,
    words_of_code,
)
from paicli_tui.paths import HomePaths

SOURCE = '''def cell_len(text: str) -> int:
    """Get the number of cells required to display text."""
    return _cell_len(text, get_character_cell_size)
'''


def _chunk(**over: object) -> Chunk:
    base: dict[str, object] = dict(
        path="pkg/cells.py",
        kind="function",
        name="cell_len(text: str)",
        start_line=10,
        end_line=12,
        source=SOURCE,
        language="python",
        parent=None,
        doc="Get the number of cells required to display text.",
        signature="def cell_len(text: str) -> int:",
        context="module pkg.cells",
    )
    base.update(over)
    return Chunk(**base)  # type: ignore[arg-type]


def test_embedding_text_puts_name_doc_and_signature_first_without_repeating_the_doc() -> None:
    text = embedding_text(_chunk())
    lines = text.splitlines()
    assert lines[0] == "cell_len"
    assert "pkg/cells.py" not in text  # the path is full-text evidence, not embedded
    assert lines[1] == "cell len"
    assert lines[2] == "Get the number of cells required to display text."
    assert text.count("number of cells") == 1
    assert "_cell_len(text, get_character_cell_size)" in text


def test_method_names_carry_their_class() -> None:
    text = embedding_text(_chunk(kind="method", name="export_svg(self)", parent="Console"))
    assert text.startswith("Console.export_svg\nconsole export svg")
    assert "Console.export_svg" in fulltext_text(
        _chunk(name="Console.export_svg()", parent="Console")
    )


def test_embedding_text_is_capped() -> None:
    body = "def f():\n" + "\n".join(f"    value_{i} = compute_{i}(x)" for i in range(500))
    assert len(embedding_text(_chunk(source=body, doc=""))) <= EMBED_MAX_CHARS


def test_fulltext_text_has_split_identifiers_path_words_and_context() -> None:
    text = fulltext_text(_chunk())
    words = text.split()
    for expected in ("cell_len", "cell", "len", "character", "size", "pkg", "cells", "module"):
        assert expected in words, expected


def test_data_tables_are_cut_short() -> None:
    rows = "\n".join(f"    ({i}, {i + 5}, 2)," for i in range(300))
    table = f"TABLE = [\n{rows}\n]\n"
    compact = compact_data(table)
    assert len(compact.splitlines()) < 15 and "292 data lines" in compact
    chunk = _chunk(kind="file", name="pkg/_table.py#1", source=table, doc="", signature="")
    assert len(fulltext_text(chunk)) < 600 and len(embedding_text(chunk)) < 600
    normal = "\n".join(f"x{i} = compute(y{i})" for i in range(60))
    assert compact_data(normal) == normal


def test_offline_plan_for_a_chinese_question(paicli_home) -> None:
    plan = plan_query("怎么把表格渲染到终端上？", home=HomePaths(paicli_home))
    assert plan.language == "zh" and plan.terms_source == "gloss"
    assert plan.embedding_queries[0] == "怎么把表格渲染到终端上？"
    assert {"table", "render", "terminal"} <= set(plan.embedding_queries[1].split())
    assert {"table", "render", "terminal", "表格", "渲染"} <= set(plan.fulltext_query.split())
    assert ("渲染", ("render",)) in plan.gloss


def test_imports_and_main_demo_are_not_ranked() -> None:
    source = (
        "import os\nfrom typing import (\n    Any,\n    List,\n)\n\nLIMIT = 3\n\n"
        'if __name__ == "__main__":\n    demo_only_words()\n'
    )
    chunk = _chunk(kind="file", name="pkg/cells.py#1", source=source, doc="", signature="")
    text = fulltext_text(chunk)
    assert "LIMIT" in text
    assert "typing" not in text and "demo_only_words" not in text
    java = _chunk(
        language="java",
        kind="file",
        name="A.java#1",
        doc="",
        signature="",
        source="package a.b;\nimport java.util.List;\nclass A {}\n",
    )
    assert "java.util" not in fulltext_text(java) and "class A" in fulltext_text(java)


def test_table_of_literal_elements_is_data() -> None:
    rows = "\n".join(f'    "style.{i}": Style(color="red"),' for i in range(40))
    assert "data lines" in compact_data("STYLES = {\n" + rows + "\n}\n")


def test_class_chunks_rank_by_their_doc_summary_only() -> None:
    doc = "A high level console.\n\nArgs:\n    width (int): columns to use for every table"
    source = (
        'class Console:\n    """A high level console.\n\n    Args:\n        width (int): columns'
    )
    chunk = _chunk(
        kind="class", name="Console", source=source, doc=doc, signature="class Console", parent=None
    )
    for text in (fulltext_text(chunk), embedding_text(chunk)):
        assert "A high level console." in text
        assert "columns" not in text and "Args" not in text


@pytest.mark.parametrize(
    ("doc", "summary"),
    [
        ("Render a table.\n\nArgs:\n  x: y", "Render a table."),
        ("Render a table\nin two lines.\nArgs:\n  x: y", "Render a table in two lines."),
        ("Compute it.\n@param x the x\n@return y", "Compute it."),
        ("", ""),
    ],
)
def test_doc_summary(doc: str, summary: str) -> None:
    assert doc_summary(doc) == summary


def test_members_carry_their_class_doc_summary() -> None:
    cls = _chunk(
        kind="class",
        name="Segment",
        parent=None,
        signature="class Segment",
        doc="A piece of text with a style.\n\nArgs:\n    text: the text",
        source='class Segment:\n    """A piece of text with a style.',
    )
    method = _chunk(
        kind="method",
        name="Segment.simplify(segments)",
        parent="Segment",
        doc="Combine contiguous segments.",
        source="def simplify(segments):\n    pass\n",
    )
    other = _chunk(
        kind="method",
        name="Other.go(self)",
        parent="Other",
        doc="",
        source="def go(self):\n    pass\n",
    )
    attach_parent_docs([cls, method, other])
    assert "(Segment: A piece of text with a style.)" in embedding_text(method)
    assert "A piece of text with a style." in fulltext_text(method)
    assert "piece" not in embedding_text(other) and not other.extra
    assert "Args" not in embedding_text(method)


def test_words_text_reads_the_chunk_as_words_for_an_english_embedder() -> None:
    """The English/code embedder's text: path in words, name and its words, doc, signature
    and its words, then the body's identifiers as words (no compound names left in it)."""
    chunk = _chunk(kind="method", name="Console.cell_len(text: str)", parent="Console",
                   signature="def cell_len(text: str) -> int:")
    chunk.extra[PARENT_DOC_KEY] = "A terminal to print on."
    assert words_embedding_text(chunk).splitlines() == [
        "pkg cells",
        "Console.cell_len",
        "console cell len",
        "(Console: A terminal to print on.)",
        "Get the number of cells required to display text.",
        "def cell_len(text: str) -> int:",
        "def cell len text str int",
        "def cell len text str int return cell len text get character cell size",
    ]


@pytest.mark.parametrize(("code", "words"), [
    ("getHTTPResponse(x_max)", "get http response x max"),
    ("return _cell_len(text)  # 2 cells", "return cell len text cells"),
    ("数 = 1", ""),
])
def test_words_of_code(code: str, words: str) -> None:
    assert words_of_code(code) == words


def test_words_text_is_capped_and_named_for_embedders() -> None:
    body = "def f():\n" + "\n".join(f"    valueItem{i} = computeThing{i}(x)" for i in range(500))
    assert len(words_embedding_text(_chunk(source=body, doc=""))) == EMBED_MAX_CHARS
    assert RANKING_TEXTS == {"plain": embedding_text, "words": words_embedding_text}
