"""The code graph: edges from the parse, stored beside the index, queried by name (tool,
CLI), updated incrementally."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from doubles.embedders import HashEmbedder

from paicli_tui import cli
from paicli_tui.core.code.graph_query import GraphError, format_relations, relations_for
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


GO_FILES = {
    "main.go": 'package main\n\nimport (\n\t"os/exec"\n\n\t"example.com/proj/cmd"\n'
               '\t"example.com/proj/doc"\n)\n\nfunc run() error {\n'
               '\tc := &cmd.Command{Use: "x"}\n\tc.Execute()\n\tdoc.Gen(c)\n'
               '\treturn exec.Command("ls").Run()\n}\n',
    "cmd/command.go": "package cmd\n\n// Command is one command of the tool.\n"
                      "type Command struct {\n\tUse string\n}\n\n"
                      "func (c *Command) Execute() error {\n\treturn nil\n}\n\n"
                      "func NewCommand(use string) *Command {\n\treturn &Command{Use: use}\n}\n",
    "doc/doc.go": 'package doc\n\nimport "example.com/proj/cmd"\n\n'
                  "func Gen(c *cmd.Command) {\n\t_ = cmd.NewCommand(c.Use)\n}\n",
}


@pytest.mark.parametrize("go_mod", [True, False])
def test_go_calls_into_another_package_are_not_callers_of_a_namesake(
        settings, tmp_path: Path, go_mod: bool) -> None:
    """The standard library's exec.Command was listed among the callers of the project's
    Command type; calls into the project's own packages (doc.Gen, cmd.NewCommand) stay.
    Without go.mod a package is the project's when its import path ends in a folder of it."""
    root = tmp_path / "proj"
    for name, text in GO_FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    if go_mod:
        (root / "go.mod").write_text("module example.com/proj\n\ngo 1.22\n", encoding="utf-8")
    CodeIndexer(settings, root, HashEmbedder()).update()
    command = relations_for(settings, root, "Command")
    assert ("run", "calls", "exec.Command") not in _edges(command, "incoming")
    assert [(e.src, e.dst, e.path, e.line) for e in command.elsewhere] == \
        [("run", "exec.Command", "main.go", 14)]
    assert command.nodes == ["Command"]
    text = format_relations(command)
    assert text.endswith("left out: 1 call to exec.Command, another package's (imported "
                         "from outside this project)")
    assert ("run", "calls", "doc.Gen") in _edges(relations_for(settings, root, "Gen"),
                                                 "incoming")
    assert ("Gen", "calls", "cmd.NewCommand") in _edges(
        relations_for(settings, root, "NewCommand"), "incoming")
    # asked by its own name, the other package's function is what is asked for
    assert ("run", "calls", "exec.Command") in _edges(
        relations_for(settings, root, "exec.Command"), "incoming")


@pytest.mark.parametrize(("imports", "call", "foreign"), [
    ('osexec "os/exec"', "osexec.Command", True),           # renamed: followed
    ('"gopkg.in/yaml.v3"', "yaml.Command", True),           # used by its package's name
    ('"github.com/spf13/cobra/v2"', "cobra.Command", True),  # major version suffix
    ('"github.com/mattn/go-command"', "command.Command", True),
    ('pc "example.com/proj/cmd"', "pc.Command", False),      # the project's own, renamed
    ('. "os/exec"', "exec.Command", False),                 # a dot import names nothing
])
def test_go_calls_through_an_import_under_another_name(
        settings, tmp_path: Path, imports: str, call: str, foreign: bool) -> None:
    """A Go import used under a name other than its path's last element (an alias, a
    major-version or gopkg.in path) was not followed: the call stayed among the callers of
    the project's Command."""
    root = tmp_path / "proj"
    files = {"go.mod": "module example.com/proj\n\ngo 1.22\n",
             "cmd/command.go": GO_FILES["cmd/command.go"],
             "main.go": f"package main\n\nimport {imports}\n\n"
                        f"func run() {{\n\t_ = {call}(\"x\")\n}}\n"}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    CodeIndexer(settings, root, HashEmbedder()).update()
    command = relations_for(settings, root, "Command")
    left_out = [(e.src, e.dst) for e in command.elsewhere]
    assert left_out == ([("run", call)] if foreign else [])
    assert (("run", "calls", call) in _edges(command, "incoming")) is not foreign


@pytest.mark.parametrize(("path", "name"), [
    ("os/exec", "exec"), ("gopkg.in/yaml.v3", "yaml"), ("example.com/x/v2", "x"),
    ("github.com/mattn/go-sqlite3", "sqlite3"), ("github.com/a/b-go", "b"),
    ("github.com/a/v2", "a"), ("v3", "v3"),
])
def test_a_go_imports_default_name(path: str, name: str) -> None:
    from paicli_tui.core.code.chunking.go_ts import default_package_name

    assert default_package_name(path) == name
