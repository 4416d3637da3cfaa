"""The cap on chunks per file (behaviour §17): a file of tens of thousands of declarations
gave one chunk each and took minutes to index. Past 1,000 chunks a file keeps its types and
first declarations alone and merges the rest into at most 100 larger chunks, which text
search still finds; `paicli-tui index` names the capped file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from doubles.embedders import HashEmbedder

import paicli_tui.core.embedders as embedders
from paicli_tui import cli
from paicli_tui.core.code.chunk import Chunk
from paicli_tui.core.code.chunking import chunk_file
from paicli_tui.core.code.chunking.capped import cap_chunks
from paicli_tui.core.code.chunking.common import ChunkedFile
from paicli_tui.core.code.indexer import CodeIndexer
from paicli_tui.core.code.search import search_project

DECLARATIONS = 1_500

SOURCES = [  # path, head, one declaration per line ({i}), tail, types in the file
    ("src/Big.java", "package p;\npublic class Big {\n", " int m{i}(){{return 0;}}\n", "}\n",
     ["Big"]),
    ("src/big.py", "class Big:\n    pass\n", "def m{i}(a):\n    return a\n", "", ["Big"]),
    ("src/big.ts", "interface Big { a: number }\n", "function m{i}(a) {{ return a }}\n", "",
     ["Big"]),
    ("src/big.js", "", "function m{i}(a) {{ return a }}\n", "", []),
    ("src/big.go", "package big\ntype Big struct{ A int }\n", "func m{i}() int {{ return 0 }}\n",
     "", ["Big"]),
]


def _source(head: str, line: str, tail: str, count: int = DECLARATIONS) -> str:
    return head + "".join(line.format(i=i) for i in range(count)) + tail


@pytest.mark.parametrize(("path", "head", "line", "tail", "types"), SOURCES)
def test_a_huge_file_keeps_its_types_and_first_declarations(
        path: str, head: str, line: str, tail: str, types: list[str]) -> None:
    result = chunk_file(path, _source(head, line, tail))
    assert result.chunks_found == DECLARATIONS + len(types)
    alone = [c for c in result.chunks if "#more-" not in c.name]
    merged = [c for c in result.chunks if "#more-" in c.name]
    assert len(alone) == 900 and 90 <= len(merged) <= 100
    assert [c.name for c in alone if c.kind == "class"] == types  # the types come first
    first = 900 - len(types)
    assert any(c.name.startswith(f"m{first - 1}") or c.name.endswith(f".m{first - 1}()")
               for c in alone)
    assert all(f"m{first}(" not in c.name for c in alone)
    # every later declaration is in a merged piece, in order, each piece with its lines
    text = "\n".join(c.source for c in merged)
    assert all(f"m{i}(" in text for i in range(first, DECLARATIONS))
    assert [c.start_line for c in merged] == sorted(c.start_line for c in merged)
    assert all(c.kind == "file" and c.start_line <= c.end_line for c in merged)


def test_a_file_under_the_cap_is_unchanged() -> None:
    path, head, line, tail, _types = SOURCES[0]
    result = chunk_file(path, _source(head, line, tail, count=999))
    assert (len(result.chunks), result.chunks_found) == (1_000, 0)
    assert not any("#more-" in c.name for c in result.chunks)


def _chunk(n: int, kind: str = "method", size: int = 9) -> Chunk:
    return Chunk(path="a.x", kind=kind, name=f"f{n}", start_line=n, end_line=n,  # type: ignore[arg-type]
                 source=f"f{n}".ljust(size, "."), language="text")


@pytest.mark.parametrize(("chunks", "limit", "pieces", "alone", "merged_sizes"), [
    # 12 declarations, cap 10 with 3 pieces: 7 alone, the other 5 in pieces of >= 17 chars
    ([_chunk(n) for n in range(1, 13)], 10, 3, 7, [2, 2, 1]),
    # a type late in the file is kept before earlier functions
    ([_chunk(n) for n in range(1, 12)] + [_chunk(40, "class")], 10, 3, 7, [2, 2, 1]),
    # one huge declaration among small ones closes its piece alone
    ([_chunk(n) for n in range(1, 8)] + [_chunk(8, size=500)] + [_chunk(n) for n in
                                                                  range(9, 13)], 10, 3, 7,
     [1, 4]),
    # at the cap: nothing merged
    ([_chunk(n) for n in range(1, 11)], 10, 3, 10, []),
])
def test_cap_numbers(chunks: list[Chunk], limit: int, pieces: int, alone: int,
                     merged_sizes: list[int]) -> None:
    result = cap_chunks(ChunkedFile(path="a.x", language="text", chunks=chunks), limit, pieces)
    kept = [c for c in result.chunks if "#more-" not in c.name]
    merged = [c for c in result.chunks if "#more-" in c.name]
    assert len(kept) == alone
    assert [c.source.count("\n") + 1 for c in merged] == merged_sizes
    assert len(result.chunks) <= limit
    if any(c.kind == "class" for c in chunks):
        assert "f40" in {c.name for c in kept}


def test_index_reports_the_capped_file_and_text_search_finds_a_late_method(
        settings, project_dir: Path) -> None:
    path, head, line, tail, _types = SOURCES[0]
    (project_dir / "src").mkdir()
    (project_dir / path).write_text(_source(head, line, tail))
    (project_dir / "src" / "small.py").write_text("def handwritten():\n    return 1\n")
    summary = CodeIndexer(settings, project_dir, HashEmbedder()).update()
    assert summary.chunks_total <= 1_000 + 1
    assert summary.files_capped == [{"path": path, "chunks_found": 1_501,
                                     "chunks_kept": summary.chunks_total - 1}]
    assert summary.capped_line() == (
        "Capped 1 file at 1,000 chunks (their first declarations alone, the rest merged "
        "into larger chunks): src/Big.java (1,501 found).")
    found = search_project(settings, project_dir, "m1498", mode="text", embedder=HashEmbedder())
    assert found.hits[0].path == path and "m1498(" in found.hits[0].source


def test_index_command_names_capped_files(settings, project_dir: Path,
                                          monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    path, head, line, tail, _types = SOURCES[1]
    (project_dir / "src").mkdir()
    (project_dir / path).write_text(_source(head, line, tail))
    monkeypatch.setattr(embedders, "get_embedder", lambda settings: HashEmbedder())
    monkeypatch.chdir(project_dir)
    assert cli.main(["index"]) == 0
    assert ("Capped 1 file at 1,000 chunks (their first declarations alone, the rest "
            "merged into larger chunks): src/big.py (1,501 found).") in capsys.readouterr().out
    (project_dir / path).write_text(_source(head, line, tail) + "def last():\n    pass\n")
    assert cli.main(["index", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["files_capped"] == [{"path": path, "chunks_found": 1_502,
                                     "chunks_kept": data["chunks_total"]}]


def test_capped_line_names_three_files_at_most() -> None:
    from paicli_tui.core.code.indexer import IndexSummary

    summary = IndexSummary(files_capped=[{"path": f"g/{n}.py", "chunks_found": 2_000,
                                          "chunks_kept": 1_000} for n in range(5)])
    assert summary.capped_line().endswith(
        "g/0.py (2,000 found), g/1.py (2,000 found), g/2.py (2,000 found) and 2 more.")
    assert IndexSummary().capped_line() == ""


def test_the_tuis_index_line_names_capped_files(settings, project_dir: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from paicli_tui.core.code.service import LocalCodeService
    from paicli_tui.ui.core_adapters import CodeAdapter

    path, head, line, tail, _types = SOURCES[4]
    (project_dir / "src").mkdir()
    (project_dir / path).write_text(_source(head, line, tail))
    monkeypatch.setattr(embedders, "get_embedder", lambda settings: HashEmbedder())
    code = CodeAdapter(LocalCodeService(settings, project_dir), settings, project_dir)
    assert code.index(lambda step: None).endswith(
        "; capped 1 file at 1,000 chunks (their first declarations alone, the rest merged "
        "into larger chunks): src/big.go (1,501 found)")


@pytest.mark.parametrize(("source", "name", "line", "node"), [
    (SOURCES[1], "m1400", 3 + 2 * 1400, "m1400"),  # def m{i} on lines 3, 5, 7 …
    (SOURCES[0], "m1400", 3 + 1400, "Big.m1400"),
    (SOURCES[0], "Big.m1400", 3 + 1400, "Big.m1400"),
], ids=["python-function", "java-method", "java-qualified"])
def test_the_graph_shows_where_a_merged_declaration_is_defined(
        settings, project_dir: Path, source: tuple, name: str, line: int, node: str) -> None:
    """A declaration merged past the cap was shown with its edges and no definition line:
    its chunk is named after the file (path#more-N), not after it."""
    from paicli_tui.core.code.graph_query import format_relations, relations_for

    path, head, text, tail, _types = source
    (project_dir / "src").mkdir()
    (project_dir / path).write_text(_source(head, text, tail))
    CodeIndexer(settings, project_dir, HashEmbedder()).update()
    relations = relations_for(settings, project_dir, name)
    [defined] = relations.definitions
    piece = defined["merged_into"]
    assert (defined["path"], defined["start_line"], defined["name"]) == (path, line, node)
    assert piece["start_line"] <= line <= piece["end_line"] and "#more-" in piece["name"]
    assert (f"  defined: {path}:{line} {node} (in {piece['name']}, lines "
            f"{piece['start_line']}-{piece['end_line']}: declarations past the file's chunk "
            "cap, merged)") in format_relations(relations).splitlines()
    # a declaration with a chunk of its own is shown as before
    kept = relations_for(settings, project_dir, "m5").definitions
    assert [(d["path"], d.get("merged_into")) for d in kept] == [(path, None)]
