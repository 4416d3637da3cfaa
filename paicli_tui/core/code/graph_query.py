"""code_graph queries: where a name is defined, and its incoming and outgoing edges.

Names in the graph are dotted (``Inventory``, ``Inventory.take``, ``java.util.List``,
``pkg.module``). A query matches a node equal to it or ending in ``.NAME`` (so ``take`` finds
``Inventory.take`` and ``List`` finds ``java.util.List``); for a class, the calls into and out
of its methods count as its own relations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...config import Settings
from ...paths import normalise_project_root
from ...regular_files import read_regular_text
from ..plural import counted
from .stale import CHANGED_NOTE, changed_paths

MAX_EDGES = 200
DEFINITIONS_SHOWN = 20
MAX_GO_MOD_BYTES = 64_000
"""go.mod is read this far: its module line comes first (a sparse gigabyte was read whole)."""


class GraphError(RuntimeError):
    """The graph cannot answer (no index yet); the message says what to do."""


@dataclass(frozen=True)
class EdgeRow:
    src: str
    kind: str
    dst: str
    path: str
    line: int

    def to_json(self) -> dict[str, Any]:
        return {"src": self.src, "kind": self.kind, "dst": self.dst, "path": self.path,
                "line": self.line}


@dataclass
class Relations:
    name: str
    nodes: list[str] = field(default_factory=list)
    """Graph nodes the name matched."""
    definitions: list[dict[str, Any]] = field(default_factory=list)
    outgoing: list[EdgeRow] = field(default_factory=list)
    incoming: list[EdgeRow] = field(default_factory=list)
    truncated: bool = False
    elsewhere: list[EdgeRow] = field(default_factory=list)
    """Calls to another package's namesake, left out (Go: ``exec.Command`` is not this
    project's ``Command``)."""
    changed: dict[str, str] = field(default_factory=dict)
    """Files shown whose content changed ("changed") or that are gone ("deleted") since the
    index was built: their lines may have moved (core.code.stale)."""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "nodes": self.nodes, "definitions": self.definitions,
                "outgoing": [e.to_json() for e in self.outgoing],
                "incoming": [e.to_json() for e in self.incoming],
                "elsewhere": [e.to_json() for e in self.elsewhere],
                "truncated": self.truncated, "changed": self.changed}


def _like(value: str) -> str:
    from .lance_store import sql_string

    return sql_string(value)


def _matches(node: str, name: str) -> bool:
    return node == name or node.endswith("." + name)


def _member_of(node: str, owners: set[str]) -> bool:
    head, _, _ = node.rpartition(".")
    return head in owners


IMPORTS_READ_MAX_BYTES = 2_000_000
"""A calling file larger than this is not parsed again for its import names."""


def foreign_go_calls(tables: Any, root: Path, rows: list[dict[str, Any]], name: str
                     ) -> set[tuple[str, str]]:
    """(path, called) of the Go calls among ``rows`` that name ``pkg.NAME`` where ``pkg`` is
    a package the calling file imports from outside this project: the standard library's
    ``exec.Command`` was listed among the callers of cobra's ``Command``. A package is this
    project's when its import path is in the module go.mod names (without go.mod: when it
    ends in one of the project's folders). The file's own import names are read from it
    (``osexec "os/exec"``, ``gopkg.in/yaml.v3`` used as ``yaml``); a file that cannot be
    read falls back to the indexed import paths' last elements."""
    calls = {(r["path"], r["dst"]) for r in rows
             if r["kind"] == "calls" and r["path"].endswith(".go") and r["dst"] != name
             and r["dst"].count(".") == 1 and _matches(r["dst"], name)}
    if not calls:
        return set()
    paths = sorted({path for path, _ in calls})
    listed = ", ".join(_like(path) for path in paths)
    imports: dict[str, list[str]] = {}
    for row in tables.edges.search().where(f"kind = 'imports' AND path IN ({listed})") \
            .limit(None).to_list():
        imports.setdefault(row["path"], []).append(row["dst"])
    ours = _project_package_test(tables, root)
    names = {path: _import_names(root, path, imports.get(path, [])) for path in paths}
    foreign = set()
    for path, called in calls:
        imported = names[path].get(called.split(".")[0])
        if imported is not None and not ours(imported):
            foreign.add((path, called))
    return foreign


def _import_names(root: Path, path: str, indexed: list[str]) -> dict[str, str]:
    """Import path by the name ``path`` uses it under, read from the file itself."""
    from .chunking.go_ts import default_package_name, go_import_names

    file = root / path
    try:
        if file.is_file() and file.stat().st_size <= IMPORTS_READ_MAX_BYTES:
            return go_import_names(file.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        pass
    # gone, replaced or grown huge since indexing: the index's paths
    return {default_package_name(i): i for i in indexed}


def _project_package_test(tables: Any, root: Path) -> Any:
    """A test of whether a Go import path is a package of this project."""
    try:  # a FIFO named go.mod held every graph query of the project for good
        text, _ = read_regular_text(root / "go.mod", MAX_GO_MOD_BYTES)
    except OSError:
        text = ""
    module = next((line.split()[1] for line in text.splitlines()
                   if line.startswith("module ") and len(line.split()) > 1), "")
    if module:
        module = module.strip('"')
        return lambda path: path == module or path.startswith(module + "/")
    folders = {p.rsplit("/", 1)[0] for p in
               (r["path"] for r in tables.files.search().select(["path"]).limit(None).to_list())
               if p.endswith(".go") and "/" in p} if tables.files is not None else set()
    return lambda path: any(path == f or path.endswith("/" + f) for f in folders)


def relations_for(settings: Settings, project_root: Path, name: str) -> Relations:
    """Definitions and edges touching ``name``. Raises GraphError when the project has no
    index yet."""
    from .lance_store import index_location, open_index

    name = name.strip().split("(")[0].strip()
    if not name:
        raise GraphError("the name is empty")
    root = normalise_project_root(project_root)
    tables = open_index(index_location(settings, root))
    if tables is None or tables.edges is None:
        raise GraphError("this project has no code index yet: run `paicli-tui index` (or "
                         "/index) first; the graph is built with it")
    quoted = _like(name)
    pattern = _like(f"%.{name}")
    prefix = _like(f"{name}.%")
    inner = _like(f"%.{name}.%")
    where = (f"src = {quoted} OR dst = {quoted} OR src LIKE {pattern} OR dst LIKE {pattern} "
             f"OR src LIKE {prefix} OR dst LIKE {prefix} OR src LIKE {inner} "
             f"OR dst LIKE {inner}")
    rows = tables.edges.search().where(where).limit(None).to_list()
    foreign = foreign_go_calls(tables, root, rows, name)
    elsewhere = [r for r in rows if (r["path"], r["dst"]) in foreign]
    rows = [r for r in rows if (r["path"], r["dst"]) not in foreign]
    nodes = sorted({n for r in rows for n in (r["src"], r["dst"]) if _matches(n, name)})
    owners = set(nodes) | {name}
    relations = Relations(name=name, nodes=nodes, elsewhere=[
        EdgeRow(r["src"], r["kind"], r["dst"], r["path"], int(r["line"]))
        for r in sorted(elsewhere, key=lambda r: (r["path"], r["line"]))])
    for row in sorted(rows, key=lambda r: (r["path"], r["line"], r["kind"], r["dst"])):
        edge = EdgeRow(row["src"], row["kind"], row["dst"], row["path"], int(row["line"]))
        src_hit = _matches(edge.src, name) or (edge.kind == "calls" and
                                                _member_of(edge.src, owners))
        dst_hit = _matches(edge.dst, name) or (edge.kind == "calls" and
                                                _member_of(edge.dst, owners))
        if src_hit:
            relations.outgoing.append(edge)
        if dst_hit and not (src_hit and edge.kind == "contains"):
            relations.incoming.append(edge)
    if len(relations.outgoing) > MAX_EDGES or len(relations.incoming) > MAX_EDGES:
        relations.truncated = True
        relations.outgoing = relations.outgoing[:MAX_EDGES]
        relations.incoming = relations.incoming[:MAX_EDGES]
    if tables.chunks is not None:
        short = name.split(".")[-1]
        candidates = (tables.chunks.search()
                      .where(f"name = {quoted} OR name LIKE {_like(f'%{short}(%')} OR "
                             f"name LIKE {_like(f'%.{short}')}")
                      .select(["path", "start_line", "end_line", "kind", "name"])
                      .limit(None).to_list())
        for row in candidates:
            bare = row["name"].split("(")[0]
            if _matches(bare, name):
                relations.definitions.append({k: row[k] for k in ("path", "start_line",
                                                                  "end_line", "kind", "name")})
        relations.definitions += merged_definitions(tables.chunks, rows, name,
                                                    relations.definitions)
        relations.definitions.sort(key=lambda d: (d["path"], d["start_line"]))
    relations.changed = dict(changed_paths(
        root, tables, [e.path for e in relations.outgoing + relations.incoming]
        + [d["path"] for d in relations.definitions[:DEFINITIONS_SHOWN]]))
    return relations


def merged_definitions(chunks: Any, rows: list[dict[str, Any]], name: str,
                       found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Where ``name`` is declared inside a chunk merged past the per-file cap (behaviour
    §17): that chunk is named ``path#more-N``, not after its declarations, so the search of
    chunk names missed it and the graph showed the edges of a name defined nowhere. The
    edge from its container (``contains``) carries the declaration's own line; the merged
    chunk it lies in gives its span. ``end_line`` is None: where the declaration ends within
    the merged text is not recorded."""
    known = {(d["path"], d["start_line"]) for d in found}
    declared = sorted({(r["path"], int(r["line"]), r["dst"]) for r in rows
                       if r["kind"] == "contains" and _matches(r["dst"], name)
                       and (r["path"], int(r["line"])) not in known})
    if not declared:
        return []
    paths = ", ".join(_like(path) for path in sorted({path for path, _, _ in declared}))
    pieces = (chunks.search().where(f"path IN ({paths}) AND kind = 'file' AND name LIKE "
                                    f"{_like('%#more-%')}")
              .select(["path", "start_line", "end_line", "name"]).limit(None).to_list())
    definitions = []
    for path, line, node in declared:
        piece = next((p for p in pieces if p["path"] == path
                      and p["start_line"] <= line <= p["end_line"]), None)
        if piece is not None:
            definitions.append({"path": path, "start_line": line, "end_line": None,
                                "kind": "declaration", "name": node,
                                "merged_into": {k: piece[k] for k in ("name", "start_line",
                                                                      "end_line")}})
    return definitions


def _definition_line(d: dict[str, Any]) -> str:
    merged = d.get("merged_into")
    if merged is None:
        return f"  defined: {d['path']}:{d['start_line']}-{d['end_line']} {d['kind']} {d['name']}"
    return (f"  defined: {d['path']}:{d['start_line']} {d['name']} (in {merged['name']}, "
            f"lines {merged['start_line']}-{merged['end_line']}: declarations past the "
            "file's chunk cap, merged)")


def format_relations(relations: Relations) -> str:
    """Readable text: definitions, then outgoing and incoming edges with ``path:line``."""
    if not relations.nodes and not relations.definitions and not relations.elsewhere:
        return (f"No code-graph entries for {relations.name!r}. Check the spelling, try the "
                "simple class or method name, or re-run `paicli-tui index`.")
    lines = [f"{relations.name}: {', '.join(relations.nodes) or '(no edges)'}"]
    lines += [_definition_line(d) for d in relations.definitions[:DEFINITIONS_SHOWN]]
    lines.append(f"outgoing ({len(relations.outgoing)}):")
    lines += [f"  {e.src} {e.kind} {e.dst}  ({e.path}:{e.line})" for e in relations.outgoing]
    lines.append(f"incoming ({len(relations.incoming)}):")
    lines += [f"  {e.src} {e.kind} {e.dst}  ({e.path}:{e.line})" for e in relations.incoming]
    if relations.truncated:
        lines.append(f"[only the first {MAX_EDGES} edges each way are shown]")
    for state in ("changed", "deleted"):
        files = sorted(path for path, said in relations.changed.items() if said == state)
        if files:
            lines.append(f"{', '.join(files)}: {CHANGED_NOTE[state]} (`paicli-tui index` or "
                         "/index refreshes the graph)")
    if relations.elsewhere:
        called = sorted({e.dst for e in relations.elsewhere})
        lines.append(f"left out: {counted(len(relations.elsewhere), 'call')} to {', '.join(called)}, "
                     "another package's (imported from outside this project)")
    return "\n".join(lines)
