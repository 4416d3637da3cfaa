"""The code index's LanceDB tables: chunks (+ vectors and full-text), files, edges, meta, and
the cross-file full-text sections last written (cross_file.py).

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

SCHEMA_VERSION = "2"
"""2: each table's key column is Lance's (unenforced) primary key, so two writers inserting
the same key at once conflict instead of both committing a copy. A version-1 index is copied
into the keyed tables once, vectors and all (:func:`migrate_to_keyed`)."""
CHUNKS, FILES, EDGES, META = "chunks", "files", "edges", "meta"
CROSS_FILE = "cross_file"
"""Each chunk's cross-file section as last written into its full-text column: rewritten whole
after every change (never keyed or migrated: the chunks table holds the text itself)."""
KEYS = {CHUNKS: "id", FILES: "path", EDGES: "id", META: "key"}
GENERATION = "generation"
"""The meta key naming the tables in use: absent (an index before rebuilds were built
beside it) means ``chunks``, ``files``, ``edges``, ``cross_file``; a generation ``g`` means
``chunks__g`` and so on. A rebuild fills a new generation's tables beside the ones in use,
with its own ``meta__g``, and switches this key in one commit of ``meta`` (indexer.py): a
reader opens either the old tables or the new ones, never a half-built index."""
FIRST_BUILD_UNFINISHED = "first_build_unfinished"
"""A meta key present while a new index's first build has not read every file (it runs, or
it was stopped): a search then misses the files not reached yet and says so."""
GENERATION_TABLES = (CHUNKS, FILES, EDGES, CROSS_FILE)
SEPARATOR = "__"
PRIMARY_KEY = {"lance-schema:unenforced-primary-key": "true"}


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


def _key(name: str) -> Any:
    """The key column: not nullable, marked as the table's primary key (Lance then detects
    concurrent inserts of one key as a commit conflict)."""
    import pyarrow as pa

    return pa.field(name, pa.string(), nullable=False, metadata=PRIMARY_KEY)


def id_filter(ids: list[str]) -> str:
    """``id IN (...)`` for the given chunk ids."""
    return "id IN (" + ", ".join(sql_string(i) for i in ids) + ")"


def chunk_schema(dim: int) -> Any:
    import pyarrow as pa

    return pa.schema([
        _key("id"),
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
        _key("path"),
        pa.field("hash", pa.string()),
        pa.field("size", pa.int64()),
        pa.field("mtime_ns", pa.int64()),
        pa.field("chunks", pa.int32()),
        pa.field("parser", pa.string()),
    ])


def edges_schema() -> Any:
    import pyarrow as pa

    return pa.schema([
        _key("id"),
        pa.field("src", pa.string()),
        pa.field("dst", pa.string()),
        pa.field("kind", pa.string()),
        pa.field("path", pa.string()),
        pa.field("line", pa.int32()),
    ])


def cross_file_schema() -> Any:
    import pyarrow as pa

    return pa.schema([pa.field("id", pa.string()), pa.field("section", pa.string())])


def meta_schema() -> Any:
    import pyarrow as pa

    return pa.schema([_key("key"), pa.field("value", pa.string())])


def arrow_rows(rows: list[dict[str, Any]], table: Any) -> Any:
    """Rows as an Arrow table of ``table``'s schema (a keyed table refuses rows whose
    inferred schema has a nullable key)."""
    import pyarrow as pa

    return pa.Table.from_pylist(rows, schema=table.schema)


@dataclass
class IndexTables:
    """Open handles on one index (tables that do not exist yet are None)."""

    db: Any
    chunks: Any | None
    files: Any | None
    edges: Any | None
    meta: dict[str, str]
    cross_file: Any | None = None
    """The CROSS_FILE table; None in an index built before these sections existed."""
    generation: str = ""
    """Whose tables these are (:data:`GENERATION`; "" for the unsuffixed names)."""
    staged: bool = False
    """A rebuild's tables, not in use yet: their meta is ``meta__<generation>``."""

    def name(self, table: str) -> str:
        """The real name of ``table`` (CHUNKS, FILES, EDGES, CROSS_FILE) in this index."""
        return table_name(table, self.generation)

    @property
    def meta_name(self) -> str:
        return table_name(META, self.generation) if self.staged else META


def table_name(table: str, generation: str) -> str:
    return f"{table}{SEPARATOR}{generation}" if generation else table


def chunks_version(tables: IndexTables) -> str:
    """The chunks table's version as the caches derived from it know it: a rebuilt index's
    new tables start counting again, so their generation is part of it."""
    version = str(tables.chunks.version)
    return f"{tables.generation}.{version}" if tables.generation else version


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
    meta_table = _open_table(db, META, names)
    if not create and meta_table is None:
        return None
    meta = _meta_of(meta_table)
    return open_generation(db, meta.get(GENERATION, ""), meta, names)


def _meta_of(meta_table: Any | None) -> dict[str, str]:
    if meta_table is None:
        return {}
    return {row["key"]: row["value"] for row in meta_table.to_arrow().to_pylist()}


def open_generation(db: Any, generation: str, meta: dict[str, str], names: set[str], *,
                    staged: bool = False) -> IndexTables:
    """The tables of one generation (those that do not exist are None)."""
    def opened(table: str) -> Any | None:
        return _open_table(db, table_name(table, generation), names)

    return IndexTables(db=db, chunks=opened(CHUNKS), files=opened(FILES), edges=opened(EDGES),
                       meta=meta, cross_file=opened(CROSS_FILE), generation=generation,
                       staged=staged)


@dataclass(frozen=True)
class Leftover:
    """Tables of a generation not in use: a rebuild that stopped before it was switched to
    (``meta`` holds what it was building), or the tables a finished rebuild replaced."""

    generation: str
    tables: tuple[str, ...]
    meta: dict[str, str] | None
    """The unfinished rebuild's own meta; None for replaced tables."""

    @property
    def unfinished(self) -> bool:
        return self.meta is not None

    def complete_for(self, wanted: dict[str, str]) -> bool:
        """True when a rebuild for ``wanted`` (embedder, dim, schema, chunker) can go on
        in these tables: the same meta and every table it writes first."""
        names = {t.partition(SEPARATOR)[0] for t in self.tables}
        return self.meta == wanted and {CHUNKS, FILES, EDGES} <= names


def leftovers(tables: IndexTables) -> list[Leftover]:
    """Every generation's tables other than the one ``tables`` are (oldest name first)."""
    names = table_names(tables.db)
    found: dict[str, list[str]] = {}
    for name in sorted(names):
        base, _, generation = name.partition(SEPARATOR)
        if base not in (*GENERATION_TABLES, META) or name == META:
            continue
        if generation == tables.generation and base != META:
            continue  # in use (its meta__ table outlived the switch: a stop just after it)
        found.setdefault(generation, []).append(name)
    result = []
    for generation, found_names in found.items():
        meta_name = table_name(META, generation)
        meta = None
        if generation != tables.generation and meta_name in found_names:
            meta = _meta_of(_open_table(tables.db, meta_name, names))
        result.append(Leftover(generation, tuple(found_names), meta))
    return result


def drop_tables(db: Any, names: tuple[str, ...]) -> None:
    """Drop each table (one already gone is no error)."""
    for name in names:
        try:
            db.drop_table(name)
        except (ValueError, FileNotFoundError, OSError) as exc:
            if "not found" not in str(exc).lower():
                raise


def tables_size(uri: str, names: tuple[str, ...]) -> int | None:
    """Bytes on disk of the tables of a local index; None for a remote one."""
    if not is_local(uri):
        return None
    root = Path(uri.removeprefix("file://"))
    total = 0
    for name in names:
        for folder, _, files in os.walk(root / f"{name}.lance"):
            for file in files:
                with contextlib.suppress(OSError):
                    total += os.lstat(os.path.join(folder, file)).st_size
    return total


def _open_table(db: Any, name: str, names: set[str]) -> Any | None:
    """The table, or None when it does not exist — or is listed but has no version yet
    (another indexer is creating it this instant)."""
    if name not in names:
        return None
    try:
        return db.open_table(name)
    except ValueError as exc:
        if "not found" in str(exc):
            return None
        raise


def refresh(tables: IndexTables) -> None:
    """Re-open every table at its latest version (after another writer committed)."""
    for name in (CHUNKS, FILES, EDGES):
        table = getattr(tables, name)
        if table is not None:
            table.checkout_latest()


def write_meta(tables: IndexTables, values: dict[str, str]) -> None:
    """Make the meta table hold exactly ``values``: one merge on its key, never a replaced
    table (two writers replacing one table at the same moment can crash Lance). The meta in
    use keeps naming its generation."""
    if tables.generation and not tables.staged:
        values = {**values, GENERATION: tables.generation}
    table = _create_or_open(tables.db, tables.meta_name, meta_schema(), keep_existing=True)
    rows = [{"key": k, "value": v} for k, v in sorted(values.items())]
    (table.merge_insert("key").when_matched_update_all().when_not_matched_insert_all()
     .when_not_matched_by_source_delete().execute(arrow_rows(rows, table)))
    tables.meta = dict(values)


def _schemas(dim: int) -> dict[str, Any]:
    return {CHUNKS: chunk_schema(dim), FILES: files_schema(), EDGES: edges_schema()}


def _create_or_open(db: Any, name: str, schema: Any, *, keep_existing: bool) -> Any:
    """A new empty table; with ``keep_existing`` the existing one when its schema is the
    same. A creation that fails because another writer created or replaced the table at
    the same moment is reported as a commit conflict (retried by the caller)."""
    try:
        if keep_existing:
            try:
                return db.create_table(name, schema=schema, exist_ok=True)
            except ValueError as exc:
                if "does not match" not in str(exc):
                    raise
        return db.create_table(name, schema=schema, mode="overwrite")
    except Exception as exc:
        if type(exc).__name__ != "RustPanic" and not (
                keep_existing and "already exists" in str(exc).lower()):
            raise
        raise RuntimeError(f"commit conflict: creating the {name} table raced another "
                           f"writer of the index ({type(exc).__name__}: {exc})") from exc


def replace_table(db: Any, name: str, data: Any, schema: Any) -> Any:
    """``name`` replaced whole by ``data``; Lance crashing because another writer replaced
    it at the same moment is reported as a commit conflict (retried by the caller)."""
    try:
        return db.create_table(name, data=data, schema=schema, mode="overwrite")
    except Exception as exc:
        if type(exc).__name__ != "RustPanic":
            raise
        raise RuntimeError(f"commit conflict: replacing the {name} table raced another "
                           f"writer of the index ({type(exc).__name__}: {exc})") from exc


def reset_tables(tables: IndexTables, dim: int, *, keep_existing: bool = False) -> None:
    """Empty chunks/files/edges tables (a rebuild for a new embedder, or ``--rebuild``).

    ``keep_existing`` (a new index): a table that exists already with the same schema is
    opened, not replaced — another indexer that started at the same moment created it and
    may be writing into it; replacing it would throw its commits away."""
    for name, schema in _schemas(dim).items():
        setattr(tables, name, _create_or_open(tables.db, tables.name(name), schema,
                                              keep_existing=keep_existing))


def is_keyed(tables: IndexTables) -> bool:
    """True when every table's key column is marked as its primary key (schema 2)."""
    for name in (CHUNKS, FILES, EDGES):
        table = getattr(tables, name)
        if table is None:
            return False
        metadata = table.schema.field(KEYS[name]).metadata or {}
        if metadata.get(b"lance-schema:unenforced-primary-key") != b"true":
            return False
    return True


def migrate_to_keyed(tables: IndexTables, dim: int) -> dict[str, int]:
    """Copy a version-1 index into keyed tables (schema 2), vectors included (nothing is
    embedded again). A key found twice (two unlocked writers of version 1 could both insert
    it) keeps its first row. Returns the duplicate rows dropped per table."""
    import pyarrow.compute as pc

    dropped: dict[str, int] = {}
    for name, schema in _schemas(dim).items():
        table = getattr(tables, name)
        data = table.to_arrow()
        keys = data.column(KEYS[name]).to_pylist()
        first: dict[str, int] = {}
        for position, key in enumerate(keys):
            first.setdefault(key, position)
        if len(first) < len(keys):
            data = data.take(sorted(first.values()))
        dropped[name] = len(keys) - len(first)
        data = data.filter(pc.is_valid(data.column(KEYS[name]))).select(schema.names)
        setattr(tables, name, tables.db.create_table(tables.name(name),
                                                     data=data.cast(schema), mode="overwrite"))
    return dropped
