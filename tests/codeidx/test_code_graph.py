"""The code graph: edges from the parse, stored beside the index, queried by name (tool,
CLI), updated incrementally."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from doubles.embedders import HashEmbedder

from paicli_tui import cli
from paicli_tui.core.code.graph_query import GraphError, relations_for
from paicli_tui.core.code.indexer import CodeIndexer
from paicli_tui.core.code.service import LocalCodeService
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.contracts.tools import ToolContext

FIXTURE = Path(__file__).parent / "fixtures" / "java17"
SHOP = "src/main/java/com/acme/shop"


@pytest.fixture
def shop(settings, tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    shutil.copytree(FIXTURE, root)
    (root / "tools").mkdir()
    (root / "tools" / "report.py").write_text(
        "from .loader import load_rows\n\n\nclass Report(BaseReport):\n"
        "    def build(self):\n        return self.render(load_rows())\n\n"
        "    def render(self, rows):\n        return str(rows)\n", encoding="utf-8")
    CodeIndexer(settings, root, HashEmbedder()).update()
    return root


def _edges(relations, direction: str) -> set[tuple[str, str, str]]:
    return {(e.src, e.kind, e.dst) for e in getattr(relations, direction)}


def test_class_relations_both_ways(settings, shop: Path) -> None:
    inventory = relations_for(settings, shop, "Inventory")
    out = _edges(inventory, "outgoing")
    assert {("Inventory", "extends", "BaseStore"), ("Inventory", "implements", "Store"),
            ("Inventory", "imports", "java.util.Map"),
            ("Inventory", "contains", "Inventory.take"),
            ("Inventory.total", "calls", "PriceBook.priceOf"),
            ("Inventory.total", "calls", "Helpers.round")} <= out
    assert inventory.definitions[0]["path"] == f"{SHOP}/Inventory.java"
    assert inventory.definitions[0]["start_line"] == 12


def test_cross_file_calls_are_incoming_edges_with_locations(settings, shop: Path) -> None:
    price = relations_for(settings, shop, "PriceBook")
    incoming = {(e.src, e.kind, e.dst, e.path, e.line) for e in price.incoming}
    assert ("Inventory.total", "calls", "PriceBook.priceOf", f"{SHOP}/Inventory.java",
            65) in incoming
    assert ("Inventory.Inventory", "calls", "PriceBook.PriceBook") not in incoming  # field init
    shape = relations_for(settings, shop, "Shape")
    assert {("Circle", "implements", "Shape"), ("Square", "implements", "Shape")} <= \
        _edges(shape, "incoming")
    method = relations_for(settings, shop, "priceOf")
    assert ("Inventory.total", "calls", "PriceBook.priceOf") in _edges(method, "incoming")


def test_python_imports_classes_and_calls(settings, shop: Path) -> None:
    report = relations_for(settings, shop, "Report")
    assert {("Report", "extends", "BaseReport"), ("Report.build", "calls", "Report.render"),
            ("Report.build", "calls", "load_rows")} <= _edges(report, "outgoing")
    module = relations_for(settings, shop, "tools.report")
    assert ("tools.report", "imports", "tools.loader.load_rows") in _edges(module, "outgoing")


def test_graph_follows_file_deletion(settings, shop: Path) -> None:
    (shop / SHOP / "PriceBook.java").unlink()
    CodeIndexer(settings, shop, HashEmbedder()).update()
    price = relations_for(settings, shop, "PriceBook")
    assert not price.definitions
    assert all(e.path != f"{SHOP}/PriceBook.java" for e in price.incoming + price.outgoing)
    # the caller still records its call (its file did not change)
    assert ("Inventory.total", "calls", "PriceBook.priceOf") in _edges(price, "incoming")


def test_no_index_is_a_clear_error(settings, project_dir: Path) -> None:
    with pytest.raises(GraphError, match="paicli-tui index"):
        relations_for(settings, project_dir, "Anything")


async def test_code_graph_tool(settings, shop: Path) -> None:
    tool = {t.name: t for t in LocalCodeService(settings, shop).tools()}["code_graph"]
    context = ToolContext(project_root=shop, settings=settings, session=SessionState("s"))
    out = await tool.run({"name": "PriceBook"}, context)
    assert out.status == "done"
    assert f"Inventory.total calls PriceBook.priceOf  ({SHOP}/Inventory.java:65)" in out.content
    missing = await tool.run({"name": "Nope"}, context)
    assert "No code-graph entries" in missing.content


def test_graph_command_json(settings, shop: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(shop)
    assert cli.main(["graph", "Helpers", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["name"] == "Helpers"
    assert {"src": "Inventory.total", "kind": "calls", "dst": "Helpers.round",
            "path": f"{SHOP}/Inventory.java", "line": 65} in data["incoming"]
