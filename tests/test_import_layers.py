"""Layers point one way: every import between the program's packages is in one table.

The AST of every module is walked, imports inside functions included (many imports are deferred
to keep start-up fast, and they are dependencies all the same). A package is a folder under
``paicli_tui/core/`` (``core.agent``, ``core.memory``, ...), one of the core's shared modules
(``core.messages``, ``core.tokens``), ``ui``, ``commands``, or a top-level module.

Inside a package the same walk checks the modules: no two modules import each other at run
time, and a type-only back-reference (an import under ``if TYPE_CHECKING:``) closes a circle only
where ``TYPE_ONLY_CIRCLES`` says why.

Run ``python tests/test_import_layers.py`` to print the package graph as it is.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "paicli_tui"

FOUNDATION = {"paths", "resources", "config", "core.messages", "core.tokens", "regular_files",
              "core.text_slices", "core.plural", "process_supervisor",
              "private_files", "file_locks", "surrogates", "borrowed_env"}
CORE_BELOW_AGENT = {"core.contracts", "core.text", "core.llm", "core.embedders", "core.context",
                    "core.memory", "core.code", "core.skills", "core.web", "core.mcp"}

# package -> the packages it may import. Read bottom-up: a package imports only what is above
# it in this table (the test checks the table itself has no cycle).
ALLOWED: dict[str, set[str]] = {
    # reading a project file that may be a FIFO or a sparse giant (stdlib only)
    "regular_files": set(),
    # files only the person may read (stdlib only)
    "private_files": set(),
    # one writer at a time for a file rewritten whole (portalocker)
    "file_locks": {"private_files"},
    # variables set for a moment for the process's own sake (stdlib only)
    "borrowed_env": set(),
    # the one rule for lone surrogates (stdlib only)
    "surrogates": set(),
    "paths": {"regular_files", "private_files", "surrogates"},
    "resources": set(),
    "core.messages": set(),
    # long texts in short steps (stdlib only)
    "core.text_slices": set(),
    # "1 file", "2 files" in every message (stdlib only)
    "core.plural": set(),
    "core.tokens": {"core.messages", "core.text_slices"},
    "config": {"paths", "private_files", "file_locks", "core.plural"},
    # the contracts: tool protocol, session state, asks, events, model/embedder/service
    # protocols, shell-command classification; every layer of the core agrees on them
    "core.contracts": {"config", "core.messages", "core.plural"},
    # providers and shared text tools
    "core.text": {"paths"},
    # resources: the prompt that describes tools to a model whose server refuses them
    "core.llm": {"config", "resources", "core.contracts", "core.messages", "core.text_slices",
                 "surrogates"},
    "core.embedders": {"config", "core.contracts", "borrowed_env"},
    # engines: contracts and the foundation; memory and code take the embedder the settings
    # name by default, code search opens the configured model to rewrite a Chinese question
    "core.context": FOUNDATION | {"core.contracts"},
    "core.memory": FOUNDATION | {"core.contracts", "core.text", "core.embedders"},
    "core.code": FOUNDATION | {"core.contracts", "core.text", "core.embedders", "core.llm"},
    # tools from outside the core's own engines: skills on disk, web pages, MCP servers
    "core.skills": FOUNDATION | {"core.contracts"},
    "core.web": FOUNDATION | {"core.contracts"},
    "core.mcp": FOUNDATION | {"core.contracts"},
    # the agent loop on top of the engines
    "core.agent": FOUNDATION | CORE_BELOW_AGENT,
    # the two faces: the TUI and the headless sub-commands (neither imports the other)
    "ui": FOUNDATION | CORE_BELOW_AGENT | {"core.agent", "logs"},
    "commands": FOUNDATION | CORE_BELOW_AGENT | {"core.agent"},
    # the log file: masks secrets with the llm layer's redactor
    "logs": {"config", "core.llm", "private_files"},
    "app": FOUNDATION | {"ui"},
    "paicli_tui": set(),
    # the script commands and MCP servers run under (stdlib only)
    "process_supervisor": set(),
    # marks the process so commands cannot read its environment (stdlib only)
    "private_process": set(),
    "cli": {"paicli_tui", "config", "app", "commands", "logs", "private_process", "surrogates"},
    "__main__": {"cli"},
}


def module_name(path: Path) -> tuple[str, bool]:
    """Dotted module name of a file under the checkout, and whether it is a package."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_package else parts), is_package


def package_of(module: str) -> str:
    parts = module.split(".")[1:]  # drop "paicli_tui"
    if not parts:
        return "paicli_tui"
    if parts[0] == "core":
        return "core." + parts[1] if len(parts) > 1 else "core"
    return parts[0]


def _exists(module: str) -> bool:
    path = ROOT / module.replace(".", "/")
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imported_modules(path: Path) -> Iterator[tuple[int, str]]:
    """(line, module) for every import of the program's own modules in ``path``: relative
    imports resolved, ``from pkg import submodule`` counted as the submodule."""
    module, is_package = module_name(path)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            targets = [source] + [f"{source}.{alias.name}" for alias in node.names]
        else:
            continue
        found = set()
        for target in targets:
            if target.split(".")[0] != "paicli_tui":
                continue
            while target and not _exists(target):
                target = target.rpartition(".")[0]
            if target:
                found.add(target)
        for target in sorted(found):
            yield node.lineno, target


def package_edges() -> dict[tuple[str, str], list[str]]:
    """(from package, to package) -> the 'file:line' places that import across them."""
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        source = package_of(module_name(path)[0])
        for line, target in imported_modules(path):
            destination = package_of(target)
            where = f"{path.relative_to(ROOT)}:{line}"
            places = edges.setdefault((source, destination), []) if destination != source else []
            if where not in places:
                places.append(where)
    return edges


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` as a path (first node repeated at the end), or []."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return []


# Circles of modules inside one package that exist only through type-only imports (``if
# TYPE_CHECKING:``), each a set of modules that together are one object written in several files.
TYPE_ONLY_CIRCLES: list[frozenset[str]] = [
    # The session's own steps: a turn (loop), its tool calls, the rules for calls written as
    # text, a plan run, asking for a plan, the sub-agent tool and a !command of the person's
    # are functions over the AgentSession they are handed; the session imports them to run
    # them, they name AgentSession only in annotations.
    frozenset({"core.agent.session", "core.agent.loop", "core.agent.tool_calls",
               "core.agent.text_call_rules", "core.agent.plan_run", "core.agent.plan_ask",
               "core.agent.subagent", "core.agent.shell_line"}),
    # ChatScreen is one Textual screen; its slash commands (those that take something out of
    # the session among them), its plan view and its panel dock are mixins in files of their
    # own, and they name ChatScreen only to type ``self``; a plan's review flow names the
    # screen it asks on.
    frozenset({"ui.screens.chat", "ui.screens.chat_commands", "ui.screens.chat_outputs",
               "ui.screens.chat_plan", "ui.screens.panel_dock", "ui.screens.plan_review_flow"}),
]


def _type_only_lines(tree: ast.AST) -> set[int]:
    """Lines of the imports that sit under ``if TYPE_CHECKING:``."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            lines |= {inner.lineno for child in node.body for inner in ast.walk(child)
                      if isinstance(inner, ast.Import | ast.ImportFrom)}
    return lines


def module_graph(*, type_only: bool) -> dict[str, set[str]]:
    """module -> the modules of its own package it imports (short names, without
    ``paicli_tui.``); ``type_only`` adds the imports under ``if TYPE_CHECKING:``."""
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)[0]
        skipped = set() if type_only else _type_only_lines(ast.parse(path.read_text("utf-8")))
        for line, target in imported_modules(path):
            if (line not in skipped and target != module
                    and package_of(target) == package_of(module)):
                graph.setdefault(module.removeprefix("paicli_tui."), set()).add(
                    target.removeprefix("paicli_tui."))
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The circles of ``graph``: every strongly connected set of more than one node."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[frozenset[str]] = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in order:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], order[nxt])
        if low[node] == order[node]:
            members = set()
            while True:
                member = stack.pop()
                members.add(member)
                if member == node:
                    break
            if len(members) > 1:
                found.append(frozenset(members))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return found


def test_no_two_modules_of_a_package_import_each_other_at_run_time() -> None:
    assert strongly_connected(module_graph(type_only=False)) == []


def test_type_only_circles_are_the_justified_ones() -> None:
    circles = strongly_connected(module_graph(type_only=True))
    assert sorted(map(sorted, circles)) == sorted(map(sorted, TYPE_ONLY_CIRCLES))


def test_the_circle_finder() -> None:
    graph = {"a": {"b"}, "b": {"a", "c"}, "c": {"d"}, "d": {"c"}, "e": {"a"}}
    assert sorted(map(sorted, strongly_connected(graph))) == [["a", "b"], ["c", "d"]]
    assert strongly_connected({"a": {"b"}, "b": {"c"}}) == []
    tree = ast.parse("from typing import TYPE_CHECKING\nimport os\n"
                     "if TYPE_CHECKING:\n    from x import y\n")
    assert _type_only_lines(tree) == {4}


def test_every_package_is_in_the_table() -> None:
    packages = {package_of(module_name(p)[0]) for p in PACKAGE.rglob("*.py")} - {"core"}
    assert packages - ALLOWED.keys() == set(), "a new package needs its row in ALLOWED"


def test_the_table_has_no_cycle() -> None:
    assert find_cycle(ALLOWED) == []


def test_every_import_is_allowed() -> None:
    unexpected = {
        f"{source} -> {destination}": places
        for (source, destination), places in package_edges().items()
        if destination not in ALLOWED.get(source, set())
    }
    assert unexpected == {}


def test_the_package_graph_has_no_cycle() -> None:
    graph: dict[str, set[str]] = {}
    for source, destination in package_edges():
        graph.setdefault(source, set()).add(destination)
    assert find_cycle(graph) == []


def test_the_walker_sees_function_level_and_relative_imports() -> None:
    """The checker itself: a deferred relative import inside a function is an edge."""
    memory_file = PACKAGE / "core" / "memory" / "service.py"
    targets = {target for _, target in imported_modules(memory_file)}
    assert "paicli_tui.core.contracts.tools" in targets  # top-level, relative
    assert "paicli_tui.core.embedders" in targets  # inside a method
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def _print_table() -> None:
    rows: dict[str, dict[str, int]] = {}
    for (source, destination), places in package_edges().items():
        rows.setdefault(source, {})[destination] = len(places)
    print("| package | imports (number of import statements) |")
    print("|---|---|")
    for source in sorted(rows):
        targets = ", ".join(f"{d} ({n})" for d, n in sorted(rows[source].items()))
        print(f"| {source} | {targets} |")


if __name__ == "__main__":
    sys.exit(_print_table())
