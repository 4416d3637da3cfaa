"""`paicli-tui index`, `search` and the search_code tool, end to end with a fake embedder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from doubles.embedders import HashEmbedder
from doubles.retrieval_project import retrieval_project

import paicli_tui.core.embedders as embedders
from paicli_tui import cli
from paicli_tui.core.code.service import LocalCodeService
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.contracts.tools import ToolContext


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return retrieval_project(tmp_path, monkeypatch)


def test_index_then_search_json_as_the_scorer_reads_it(project: Path, capsys) -> None:
    assert cli.main(["index"]) == 0
    out = capsys.readouterr().out
    assert "Indexed 10 files (10 parsed" in out and "fake-8" in out
    assert (project / ".paicli" / ".gitignore").read_text() == "*\n"
    assert cli.main(["search", "--mode", "text", "--top-k", "5", "--json",
                     "split a comma separated line"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["mode"] == "text" and 1 <= len(data["results"]) <= 5
    first = data["results"][0]
    assert set(first) == {"path", "start_line", "end_line", "name", "kind", "score"}
    assert first["path"] == "src/main/java/org/demo/util/CsvParser.java"
    assert first["name"].startswith("CsvParser.parseLine(")
    assert cli.main(["search", "--json", "--explain", "slug from a title"]) == 0
    explained = json.loads(capsys.readouterr().out)
    assert set(explained["results"][0]["ranks"]) == {"text", "semantic"}
    assert explained["plan"]["rankers"] == ["text", "semantic"]


def test_a_one_file_project_is_counted_in_the_singular(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys) -> None:
    """'Indexed 1 file … 1 chunk … 1 graph edge', as a person would write it."""
    root = tmp_path / "one"
    root.mkdir()
    (root / "m.py").write_text('def add(a, b):\n    """Add."""\n    return a + b\n')
    monkeypatch.setattr(embedders, "get_embedder", lambda settings: HashEmbedder())
    monkeypatch.chdir(root)
    assert cli.main(["index"]) == 0
    out = capsys.readouterr().out
    assert "Indexed 1 file (1 parsed" in out and "): 1 chunk (1 embedded" in out
    assert "0 data blocks left out), 1 graph edge in " in out


def test_second_index_run_reports_nothing_to_do(project: Path, capsys) -> None:
    assert cli.main(["index", "--json"]) == 0
    capsys.readouterr()
    assert cli.main(["index", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["files_indexed"], summary["files_unchanged"],
            summary["chunks_embedded"]) == (0, 10, 0)


def test_search_errors_and_usage(project: Path, capsys) -> None:
    assert cli.main(["search", "anything"]) == 1
    said = capsys.readouterr().err
    # a person at the shell is told the exact search they can run now, not only the tool name
    assert "paicli-tui index" in said and "--mode grep" in said
    assert cli.main(["search", "--json", "anything"]) == 1
    assert "paicli-tui index" in json.loads(capsys.readouterr().out)["error"]
    assert cli.main(["search", "--top-k", "31", "x"]) == 2
    assert cli.main(["search", "--mode", "grep", "--json", "compute_tax"]) == 0
    hits = json.loads(capsys.readouterr().out)["results"]
    assert hits[0]["path"] == "billing/invoice.py" and hits[0]["start_line"] == 6
    assert cli.main(["index", "no-such-dir"]) == 2  # a missing folder is a usage error


async def test_search_code_tool(project: Path, settings) -> None:
    tool = {t.name: t for t in LocalCodeService(settings, project).tools()}["search_code"]
    context = ToolContext(project_root=project, settings=settings, session=SessionState("s"))
    missing = await tool.run({"query": "tax"}, context)
    assert missing.status == "failed" and "paicli-tui index" in missing.content
    assert cli.main(["index", "--quiet"]) == 0
    out = await tool.run({"query": "sales tax owed", "top_k": 2}, context)
    assert out.status == "done"
    assert out.content.splitlines()[0] == "2 results for 'sales tax owed' (hybrid); " \
                                          "read_file the ranges for more:"
    assert "1. billing/invoice.py:6-8 function compute_tax(amount: Decimal, rate: Decimal)" \
        in out.content
    bad = await tool.run({"query": "x", "mode": "fuzzy"}, context)
    assert bad.status == "failed" and "unknown mode" in bad.content


def test_an_empty_index_does_not_claim_there_are_no_sources(tmp_path, capsys) -> None:
    """Ctrl+C in `paicli-tui index --rebuild` leaves an empty index (the old one was dropped
    first), and search then said 'the index is empty (no source files found)' in a project
    full of them. It names both causes and what to run."""
    from paicli_tui.cli import main

    assert main(["index", "--project", str(tmp_path), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["search", "anything", "--project", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["note"] == (
        "the index is empty: no source files were found when it was built, or the last "
        "`paicli-tui index` was stopped before it wrote any (run it again)")
