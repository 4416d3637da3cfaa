"""The code index's LanceDB tables: chunks (+ vectors and full-text), files, edges, meta.

LanceDB and pyarrow are imported on first use only; Rust logging is lowered before that
import because LanceDB is noisy on stderr (a full-screen app cannot have stray output).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...config import Settings
from ...paths import ProjectPaths

SCHEMA_VERSION = "1"
CHUNKS, FILES, EDGES, META = "chunks", "files", "edges", "meta"


def index_location(settings: Settings, project_root: Path) -> str:
    """Where this project's index lives: ``settings.index_uri`` or ``<project>/.paicli/index``."""
    if settings.index_uri:
        return settings.index_uri
    return str(ProjectPaths.for_dir(project_root).index_dir)


def has_index(settings: Settings, project_root: Path) -> bool:
    """False when this project certainly has no index (a local index folder that does not
    exist); True otherwise (a remote index is only known by opening it)."""
    uri = index_location(settings, project_root)
    return not is_local(uri) or Path(uri.removeprefix("file://")).exists()


def is_local(uri: str) -> bool:
    return "://" not in uri or uri.startswith("file://")


_import_lock = threading.Lock()


def _unchecked(func: Any = None, /, **_: Any) -> Any:
    """A pass-through decorator, usable bare or with arguments."""
    return (lambda f: f) if func is None else func


def _marked_override(func: Any = None, /, **_: Any) -> Any:
    """What ``typing.override`` does: mark, do not check (EnforceOverrides reads the mark)."""
    def mark(f: Any) -> Any:
        with contextlib.suppress(AttributeError, TypeError):
            f.__override__ = True
        return f

    return mark if func is None else mark(func)


def _deferred_config(**settings: Any) -> dict[str, Any]:
    """``pydantic.ConfigDict(...)`` (a TypedDict: calling it makes a plain dict) with
    ``defer_build=True`` unless the caller chose."""
    return {"defer_build": True, **settings}


@contextlib.contextmanager
def _import_time_checks_off() -> Iterator[None]:
    """While lancedb is first imported, two decorators that only check (never change) what
    they decorate are pass-throughs: ``pydantic.validate_call`` on the ~370 methods of the
    generated client of lancedb's REST namespace service (a validator built per method at
    import, about 1 s of a 2.4 s import on 2 cores; we never call that client: indexes are
    local folders or object-store URIs), and ``overrides.override`` (Python 3.11 only: it
    disassembles each caller's bytecode, ~0.3 s; 3.12+ uses ``typing.override``, free).
    And the pydantic models it defines with a ``ConfigDict`` (~250 of that client) build
    their validators on first use instead of at import (pydantic's own ``defer_build``:
    nothing changes but when; ~0.05 s of CPU)."""
    patched: list[tuple[Any, str, Any]] = []
    for module_name, name, stand_in in (("pydantic", "validate_call", _unchecked),
                                        ("pydantic", "ConfigDict", _deferred_config),
                                        ("overrides", "override", _marked_override)):
        try:
            module = importlib.import_module(module_name)
            patched.append((module, name, getattr(module, name)))
        except (ImportError, AttributeError):
            continue
        setattr(module, name, stand_in)
    try:
        yield
    finally:
        for module, name, real in patched:
            setattr(module, name, real)


LAZY_PACKAGES = ("lance_namespace_urllib3_client",)
"""Packages whose ``__init__`` only re-exports its submodules' names: registered as lazy
modules (a name's submodule is imported when the name is first read). The REST namespace
client's ``__init__`` imported all nine of its API modules (~0.1 s of CPU, more on a busy
machine), which nothing on our paths uses."""


def _lazy_package(name: str) -> None:
    """Register ``name`` as a module that imports each re-exported name on first access,
    when its ``__init__`` holds nothing but a docstring, ``from x import y`` lines and
    literal ``__version__`` / ``__all__``; otherwise leave it to the normal import."""
    import ast
    import importlib.util

    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None or not spec.submodule_search_locations:
        return
    try:
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return
    exports: dict[str, tuple[str, str]] = {}
    constants: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and all(
                alias.name != "*" for alias in node.names):
            for alias in node.names:
                exports[alias.asname or alias.name] = (node.module, alias.name)
            continue
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id in ("__version__", "__all__")):
            try:
                constants[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                return
            continue
        return  # anything else: import it the normal way
    module = importlib.util.module_from_spec(spec)
    vars(module).update(constants)

    def resolve(attribute: str) -> Any:
        if attribute not in exports:
            raise AttributeError(f"module {name!r} has no attribute {attribute!r}")
        source, real = exports[attribute]
        value = getattr(importlib.import_module(source), real)
        setattr(module, attribute, value)
        return value

    module.__getattr__ = resolve  # type: ignore[attr-defined]  # PEP 562
    sys.modules[name] = module


def import_lancedb() -> Any:
    """``lancedb``, imported with its Rust logging turned down to errors (its logger reads
    LANCEDB_LOG; RUST_LOG is set too for the crates that follow the usual convention), and
    without its import-time checks (cold start, see :func:`_import_time_checks_off`)."""
    os.environ.setdefault("RUST_LOG", "error")
    os.environ.setdefault("LANCEDB_LOG", "error")
    if "lancedb" in sys.modules:
        return sys.modules["lancedb"]
    with _import_lock, _import_time_checks_off():
        for name in LAZY_PACKAGES:
            _lazy_package(name)
        import lancedb
    return lancedb


def sql_string(value: str) -> str:
    """A SQL string literal for a LanceDB filter (single quotes doubled)."""
    return "'" + value.replace("'", "''") + "'"


def path_filter(paths: list[str]) -> str:
    """``path IN (...)`` for the given project paths."""
    return "path IN (" + ", ".join(sql_string(p) for p in paths) + ")"


def chunk_schema(dim: int) -> Any:
    import pyarrow as pa

    return pa.schema([
        pa.field("id", pa.string()),
        pa.field("path", pa.string()),
        pa.field("kind", pa.string()),
        pa.field("name", pa.string()),
        pa.field("start_line", pa.int32()),
        pa.field("end_line", pa.int32()),
        pa.field("language", pa.string()),
        pa.field("parent", pa.string()),
        pa.field("doc", pa.string()),
        pa.field("signature", pa.string()),
        pa.field("context", pa.string()),
        pa.field("source", pa.string()),
        pa.field("fulltext", pa.string()),
        pa.field("text_hash", pa.string()),
        pa.field("vector", pa.list_(pa.float32(), dim)),
    ])


def files_schema() -> Any:
    import pyarrow as pa

    return pa.schema([
        pa.field("path", pa.string()),
        pa.field("hash", pa.string()),
        pa.field("size", pa.int64()),
        pa.field("mtime_ns", pa.int64()),
        pa.field("chunks", pa.int32()),
        pa.field("parser", pa.string()),
    ])


def edges_schema() -> Any:
    import pyarrow as pa

    return pa.schema([
        pa.field("id", pa.string()),
        pa.field("src", pa.string()),
        pa.field("dst", pa.string()),
        pa.field("kind", pa.string()),
        pa.field("path", pa.string()),
        pa.field("line", pa.int32()),
    ])


def meta_schema() -> Any:
    import pyarrow as pa

    return pa.schema([pa.field("key", pa.string()), pa.field("value", pa.string())])


@dataclass
class IndexTables:
    """Open handles on one index (tables that do not exist yet are None)."""

    db: Any
    chunks: Any | None
    files: Any | None
    edges: Any | None
    meta: dict[str, str]


def table_names(db: Any) -> set[str]:
    listing = db.list_tables()
    names = getattr(listing, "tables", listing)
    return set(names)


def open_index(uri: str, *, create: bool = False) -> IndexTables | None:
    """The index at ``uri``; None when there is none (and ``create`` is False)."""
    if not create and is_local(uri) and not Path(uri.removeprefix("file://")).exists():
        return None
    lancedb = import_lancedb()
    db = lancedb.connect(uri)
    names = table_names(db)
    if not create and META not in names:
        return None
    meta: dict[str, str] = {}
    if META in names:
        for row in db.open_table(META).to_arrow().to_pylist():
            meta[row["key"]] = row["value"]
    return IndexTables(
        db=db,
        chunks=db.open_table(CHUNKS) if CHUNKS in names else None,
        files=db.open_table(FILES) if FILES in names else None,
        edges=db.open_table(EDGES) if EDGES in names else None,
        meta=meta,
    )


def write_meta(tables: IndexTables, values: dict[str, str]) -> None:
    rows = [{"key": k, "value": v} for k, v in sorted(values.items())]
    tables.db.create_table(META, data=rows, schema=meta_schema(), mode="overwrite")
    tables.meta = dict(values)


def reset_tables(tables: IndexTables, dim: int) -> None:
    """Empty chunks/files/edges tables (a first build, or a rebuild for a new embedder)."""
    db = tables.db
    tables.chunks = db.create_table(CHUNKS, schema=chunk_schema(dim), mode="overwrite")
    tables.files = db.create_table(FILES, schema=files_schema(), mode="overwrite")
    tables.edges = db.create_table(EDGES, schema=edges_schema(), mode="overwrite")
