"""Build and refresh a project's code index: incremental by file content, one commit per batch.

An unchanged file costs a stat call; a touched file with the same content costs a hash; a
changed file is re-parsed and only chunks whose ranking text changed are re-embedded; a
batch of changed files replaces its chunks and edges in one commit each (merge_insert with
delete-by-source), so a reader never sees a file half replaced. Deleted files disappear.
Progress is reported through a callback of typed events.
"""

from __future__ import annotations

import errno
import hashlib
import os
import queue
import secrets
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ...config import Settings
from ...paths import keep_dot_dir_out_of_git, normalise_project_root, stay_inside
from ..contracts.embedder import Embedder
from ..plural import counted
from ..text.fsnames import display_name
from .chunk import Chunk
from .chunking import CHUNKER_VERSION, ChunkedFile, chunk_file, language_of
from .commit_retry import CommitRetry
from .ignore import (
    ALWAYS_SKIPPED_DIRS,
    MAX_FILE_BYTES,
    is_binary_bytes,
    read_listed_file,
    walk_project_files,
)
from .lance_store import (
    FIRST_BUILD_UNFINISHED,
    META,
    SCHEMA_VERSION,
    IndexTables,
    Leftover,
    arrow_rows,
    drop_tables,
    id_filter,
    index_location,
    is_keyed,
    is_local,
    leftovers,
    migrate_to_keyed,
    open_generation,
    open_index,
    path_filter,
    refresh,
    replace_table,
    reset_tables,
    table_name,
    table_names,
    tables_size,
    write_meta,
)

INDEX_SKIPPED_DIRS = ALWAYS_SKIPPED_DIRS | frozenset({
    "node_modules", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", ".gradle", ".idea", ".vscode", "site-packages", ".eggs",
})
"""Vendored and cache folders never worth indexing, even without a .gitignore."""

EMBED_SLICE = 64
"""Texts embedded per call inside a batch, so progress moves while a big batch embeds (the
first call also loads the embedder's model, the longest single step of a first build)."""

FTS_INDEX_NAME = "fulltext_idx"
FTS_STALE_SHARE = 0.1
"""Rebuild the full-text index when more than this share of rows are not in it yet."""

BATCH_CHUNKS = 512
"""Chunks embedded and committed together (bounded memory, few commits)."""

REPLACED_KEPT_S = 60.0
"""The tables a rebuild replaced stay at least this long after the switch: a search opened
a moment before it may still be reading them. An index run waiting on the lock while the
rebuild finished removed them at once, and that search failed once."""
SWITCHED_AT = "switched_at"
"""The live meta's key holding when a rebuild was switched to (seconds since the epoch)."""

Phase = Literal["wait", "scan", "parse", "embed", "write", "fulltext", "done"]


@dataclass(frozen=True)
class IndexProgress:
    """One progress event: ``done`` of ``total`` units of ``phase`` (files or chunks)."""

    phase: Phase
    done: int
    total: int
    detail: str = ""


ProgressCallback = Callable[[IndexProgress], None]


@dataclass
class IndexSummary:
    files_seen: int = 0
    files_indexed: int = 0
    """Files (re)parsed because they are new or their content changed."""
    files_unchanged: int = 0
    files_deleted: int = 0
    files_skipped: int = 0
    """Binary, too large or unreadable files."""
    chunks_total: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    data_chunks_skipped: int = 0
    files_minified: int = 0
    """Minified files, cut into bounded pieces instead of parsed."""
    files_generated: int = 0
    """Files marked as generated (``@generated``, ``DO NOT EDIT``...), left out."""
    files_capped: list[dict[str, Any]] = field(default_factory=list)
    """Files past the cap on chunks per file (chunking.capped): ``path``, ``chunks_found``
    and ``chunks_kept`` (its first declarations alone, the rest merged)."""
    edges_total: int = 0
    chunks_cross_file: int = 0
    """Chunks whose cross-file full-text words (callers' names, a Go type's doc) were
    rewritten: no chunk is embedded for them."""
    seconds: float = 0.0
    embed_seconds: float = 0.0
    embedder: str = ""
    location: str = ""
    rebuilt: str | None = None
    """Why the whole index was rebuilt (new index, different embedder, --rebuild)."""
    built_beside: bool = False
    """The rebuild filled new tables beside the index in use and switched to them at the
    end; the replaced tables stay until the next run (a search may still be reading them)."""
    rebuild_continued: int | None = None
    """Files a rebuild stopped earlier had written, kept by this rebuild that continued it
    (same embedder); None when no stopped rebuild was continued."""
    leftovers_removed: list[dict[str, Any]] = field(default_factory=list)
    """Tables left by an earlier run and removed by this one: ``what`` ("unfinished
    rebuild" or "replaced index"), ``tables``, ``bytes`` (None for a remote index)."""
    leftovers_note: str = ""
    """Why leftovers were kept (no lock: another indexer may be writing them)."""
    parsers: dict[str, int] = field(default_factory=dict)
    lock: str = ""
    """How other indexers were kept out: "file" (local lock), "lease" (an object beside an
    s3:// index) or "none" (an object store without a lease)."""
    lock_note: str = ""
    """Why there was no lock (shown by ``paicli-tui index``)."""
    lease_taken_over: str = ""
    """The indexer whose stale lease (not renewed in time: it died) this run took over."""
    commit_conflicts_retried: int = 0
    """Writes refused because another writer of the index committed first, re-applied on
    the latest version (:mod:`.commit_retry`)."""
    vocabulary_words: int = 0
    """The project's words embedded for a search's related words (core.code.vocabulary),
    on a new or rebuilt index; 0 on other runs (the first search after a change embeds the
    words new since)."""
    vocabulary_note: str = ""
    """Why they were not prepared (the first search then prepares them)."""
    vocabulary_caches_removed: list[dict[str, Any]] = field(default_factory=list)
    """Cached project words removed by this run (``name``, ``size``, ``reason``): of
    indexes that are gone, or the oldest beyond the cache's limits."""
    doc_sentences: int = 0
    """Doc sentences embedded for the multilingual embedder's second reading of each
    documented chunk (core.code.doc_sentences), on a new or rebuilt index; 0 on other runs
    (the first search after a change embeds the sentences new since)."""
    doc_sentences_note: str = ""
    """Why they were not prepared (the first search then prepares them)."""

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def counts(self) -> str:
        """What the run went through, after "Indexed" (``paicli-tui index`` and /index in
        the TUI say the same): "64 files (4 parsed, 60 unchanged, ...) ... in 116.8s with
        use". Every count has its thousands separated, as the totals do ("1,003 chunks
        (1,003 embedded", never "1003 embedded" beside it). The seconds keep their unit
        attached: a wrapped chat line never leaves "s" alone on the next row."""
        return (f"{counted(self.files_seen, 'file')} ({self.files_indexed:,} parsed, "
                f"{self.files_unchanged:,} unchanged, {self.files_deleted:,} removed, "
                f"{self.files_skipped:,} skipped): {counted(self.chunks_total, 'chunk')} "
                f"({self.chunks_embedded:,} embedded, {self.chunks_reused:,} reused, "
                f"{counted(self.data_chunks_skipped, 'data block')} left out), "
                f"{counted(self.edges_total, 'graph edge')} in {self.seconds:.1f}s with "
                f"{self.embedder}")

    def rebuild_lines(self) -> list[str]:
        """What this run did with tables of earlier runs and with its own rebuild, one
        sentence each (``paicli-tui index`` prints them, /index in the TUI shows them)."""
        lines = []
        for removed in self.leftovers_removed:
            whose = ("a stopped rebuild" if removed["what"] == "unfinished rebuild"
                     else "the index a rebuild replaced")
            size = "" if removed["bytes"] is None else f" ({removed['bytes'] / 1e6:.1f} MB)"
            lines.append(f"Removed the tables of {whose}{size}.")
        if self.leftovers_note:
            lines.append(f"Note: {self.leftovers_note}.")
        if self.rebuild_continued is not None:
            lines.append("Continued the rebuild stopped earlier: the "
                         f"{counted(self.rebuild_continued, 'file')} it had written were kept.")
        if self.built_beside:
            lines.append("Built beside the index in use and switched to it when complete; "
                         "the replaced tables are removed by the next index run "
                         "(`paicli-tui index`, /index).")
        return lines

    def capped_line(self) -> str:
        """Which files were past the cap on chunks per file, '' when none: "Capped 1
        file at 1,000 chunks (their first declarations alone, the rest merged into larger
        chunks): src/Big.java (40,001 found)." At most three are named."""
        if not self.files_capped:
            return ""
        from .chunking.capped import MAX_CHUNKS_PER_FILE

        named = ", ".join(f"{c['path']} ({c['chunks_found']:,} found)"
                          for c in self.files_capped[:3])
        more = len(self.files_capped) - 3
        return (f"Capped {counted(len(self.files_capped), 'file')} at {MAX_CHUNKS_PER_FILE:,} chunks "
                f"(their first declarations alone, the rest merged into larger chunks): "
                f"{named}" + (f" and {more} more" if more > 0 else "") + ".")


RACY_NS = 2_000_000_000
"""A file whose time is this close to the moment it was read (or later) is recorded without
its time: a write after the read, in the same tick of the file system's clock (a few ms on
ext4, 1-2 s on others) and of the same size, would leave size and time as recorded and
hide the new content from the next index and from the stale-hit check (git's "racily
clean" entries). Without a time, the next look compares the content."""


@dataclass
class _Candidate:
    path: str
    """The name as the index stores and shows it (:func:`display_name`: always valid text)."""
    size: int
    mtime_ns: int
    data: bytes | None = None
    digest: str = ""
    fs_path: str = ""
    """The walk's own name (may hold undecodable bytes as surrogate escapes)."""


def _noop(_: IndexProgress) -> None:
    return None


def _chunked_by_older_version(meta: dict[str, str]) -> bool:
    """The index's files were cut by an older chunker (an index from before versions has
    none: version 1). Every file is then read and chunked again in the next run, and the
    meta table records the new version only once that run has written them all (a run
    stopped midway does it again)."""
    return meta.get("chunker", "1") != CHUNKER_VERSION


def _chunker_changed(meta: dict[str, str]) -> str:
    return (f"chunking changed ({meta.get('chunker', '1')} -> {CHUNKER_VERSION}): every "
            "file read again, vectors of unchanged text reused")


def file_digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def list_index_files(root: Path) -> Iterable[str]:
    """Project files the index considers (gitignore honoured, vendor folders skipped)."""
    for rel in walk_project_files(root, skip_dirs=INDEX_SKIPPED_DIRS):
        if language_of(rel) is not None:
            yield rel


class CodeIndexer:
    """Keeps ``<project>/.paicli/index`` (or ``settings.index_uri``) in step with the files."""

    def __init__(self, settings: Settings, project_root: Path, embedder: Embedder | None = None,
                 *, batch_chunks: int = BATCH_CHUNKS) -> None:
        self.settings = settings
        self.root = normalise_project_root(project_root)
        self.location = index_location(settings, self.root)
        self._embedder = embedder
        self.batch_chunks = batch_chunks
        self._guard: Callable[[], None] = lambda: None
        """Raises when this run may no longer write (its remote lease was lost)."""
        self.commits = CommitRetry()
        """Re-applies a write step refused by a commit conflict (another writer of the
        index, e.g. on an object store without a lease), bounded; counts the retries."""
        self.clock: Callable[[], float] = time.time
        """Wall-clock seconds: when a rebuild is switched to, and how long ago that was."""
        self.staging = ""
        """The generation a rebuild is filling beside the index in use ("" when none):
        still set after a run that stopped, so its caller can say the index is intact."""
        self.first_build = False
        """This run writes a new index's first build, begun now or by a run that stopped
        (where searches read it); still set after a run that stopped, so its caller can say
        what was kept."""

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from ..embedders import get_code_embedder

            self._embedder = get_code_embedder(self.settings)
        return self._embedder

    def update(self, progress: ProgressCallback | None = None, *,
               rebuild: bool = False) -> IndexSummary:
        """Bring the index up to date with the project; returns what was done.

        Raises EmbedderError when the embedder cannot run (nothing is half written: the
        files table only records a file after its chunks are committed).
        """
        report = progress or _noop
        started = time.perf_counter()
        if not self.settings.index_uri:  # the project's own .paicli/index: never a link out
            for path in (Path(self.location), Path(self.location + ".lock")):
                stay_inside(self.root, path)
        embedder = self.embedder
        summary = IndexSummary(embedder=embedder.name, location=self.location)
        lock = _IndexLock(self.location, on_wait=lambda holder: report(
            IndexProgress("wait", 0, 0, f"waiting for another indexer ({holder})")))
        summary.lock, summary.lock_note = lock.kind, lock.note
        retried_before = self.commits.retried
        try:
            self._update_locked(lock, report, summary, embedder, rebuild)
        finally:
            summary.commit_conflicts_retried = self.commits.retried - retried_before
        summary.vocabulary_caches_removed = self._prune_vocabularies(embedder)
        summary.seconds = time.perf_counter() - started
        report(IndexProgress("done", summary.files_seen, summary.files_seen))
        return summary

    def _update_locked(self, lock: _IndexLock, report: ProgressCallback,
                       summary: IndexSummary, embedder: Embedder, rebuild: bool) -> None:
        with lock:
            self._guard = lock.check
            summary.lease_taken_over = lock.lease.took_over if lock.lease else ""
            live = open_index(self.location, create=True)
            assert live is not None
            summary.rebuilt, tables = self._prepare(live, embedder, rebuild, summary,
                                                    lock.kind)
            self.first_build = FIRST_BUILD_UNFINISHED in tables.meta
            rechunk = _chunked_by_older_version(tables.meta)
            known = self._known_files(tables)
            candidates = self._scan(report, summary)
            changed, touched = self._classify(candidates, known, summary, rechunk=rechunk)
            deleted = sorted(set(known) - {c.path for c in candidates})
            stale, stored = tables.cross_file is None, None
            if changed or deleted or summary.rebuilt:
                # before the first write: a run stopped from here on leaves no record of
                # the sections, so the next run recomputes them (its files look unchanged)
                stored = self._forget_cross_file(tables)
            self._delete(tables, deleted)
            summary.files_deleted = len(deleted)
            written: set[str] = set()
            self._embed_and_write(tables, changed, report, summary, written)
            self._record_files(tables, touched, {})
            if changed or deleted or summary.rebuilt or stale:
                summary.chunks_cross_file = self._refresh_cross_file(tables, written, stored)
            if changed or deleted or summary.rebuilt or stale:
                self._refresh_fulltext(tables, report)
            if tables.staged:  # complete: searches read it from the next one on
                self._switch(live, tables)
                summary.built_beside = True
            if summary.rebuilt:
                self._prepare_vocabulary(tables, embedder, summary)
            if rechunk:  # recorded only now that every file was written
                wanted = {**tables.meta, "chunker": CHUNKER_VERSION}
                self._commit(tables, "writing the index's meta table",
                             lambda: write_meta(tables, wanted))
            if FIRST_BUILD_UNFINISHED in tables.meta:  # every file read: the build is whole
                done = {k: v for k, v in tables.meta.items() if k != FIRST_BUILD_UNFINISHED}
                self._commit(tables, "writing the index's meta table",
                             lambda: write_meta(tables, done))
                self.first_build = False
            refresh(tables)  # counts include what other writers committed meanwhile
            summary.chunks_total = tables.chunks.count_rows() if tables.chunks else 0
            summary.edges_total = tables.edges.count_rows() if tables.edges else 0

    def _commit(self, tables: IndexTables, what: str, step: Callable[[], Any]) -> Any:
        """Run one idempotent write step; after a commit conflict re-open the tables at
        their latest version and run it again (bounded: :class:`CommitRetry`)."""
        def guarded() -> Any:
            self._guard()
            return step()

        return self.commits.run(what, guarded, lambda: refresh(tables))

    # --- steps ----------------------------------------------------------------------------
    def _prepare(self, tables: IndexTables, embedder: Embedder, rebuild: bool,
                 summary: IndexSummary, lock_kind: str) -> tuple[str | None, IndexTables]:
        """Why the whole index is built again (None: it is not), and the tables this run
        writes: the index in use, or a rebuild's new tables beside it (:meth:`_stage`)."""
        meta = tables.meta
        wanted = {"embedder": embedder.name, "dim": str(embedder.dim),
                  "schema": SCHEMA_VERSION, "chunker": CHUNKER_VERSION}
        reason = None
        if not meta or tables.chunks is None or tables.files is None or tables.edges is None:
            # nothing a search could read yet: built where it will be read
            self._clear_leftovers(tables, leftovers(tables), None, summary, lock_kind)
            self._commit(tables, "creating the index tables",
                         lambda: reset_tables(tables, embedder.dim, keep_existing=True))
            # a first build is written where searches read it, batch by batch: until it has
            # read every file, searches say they may miss some
            first = {**wanted, FIRST_BUILD_UNFINISHED: "1"}
            self._commit(tables, "writing the index's meta table",
                         lambda: write_meta(tables, first))
            return ("rebuild requested" if rebuild else "new index"), tables
        if rebuild:
            reason = "rebuild requested"
        elif meta.get("schema") == "1" and meta.get("embedder") == embedder.name and meta.get(
                "dim") == str(embedder.dim):
            dropped = self._commit(tables, "copying the index into keyed tables",
                                   lambda: migrate_to_keyed(tables, embedder.dim)
                                   if not is_keyed(tables) else {})
            old_chunker = {**wanted, "chunker": meta.get("chunker", "1")}
            self._commit(tables, "writing the index's meta table",
                         lambda: write_meta(tables, old_chunker))
            duplicates = sum(dropped.values())
            return ("index format 1 -> 2: the tables were copied with their keys marked, "
                    "nothing embedded again" + (f", {counted(duplicates, 'duplicate row')} dropped"
                                                if duplicates else "")
                    + (f"; {_chunker_changed(old_chunker)}"
                       if _chunked_by_older_version(old_chunker) else "")), tables
        elif meta.get("schema") != SCHEMA_VERSION:
            reason = f"index format changed ({meta.get('schema')} -> {SCHEMA_VERSION})"
        elif meta.get("embedder") != embedder.name or meta.get("dim") != str(embedder.dim):
            reason = (f"embedder changed from {meta.get('embedder')} ({meta.get('dim')}-d) to "
                      f"{embedder.name} ({embedder.dim}-d): every chunk is embedded again")
        if reason:
            return reason, self._stage(tables, embedder, wanted, summary, lock_kind)
        self._clear_leftovers(tables, leftovers(tables), None, summary, lock_kind)
        return (_chunker_changed(meta) if _chunked_by_older_version(meta) else None), tables

    def _stage(self, live: IndexTables, embedder: Embedder, wanted: dict[str, str],
               summary: IndexSummary, lock_kind: str) -> IndexTables:
        """New tables beside the index in use, for a rebuild: searches go on reading the
        old ones until :meth:`_switch`. A rebuild stopped earlier for the same embedder is
        continued in its tables (the files it wrote are unchanged files now); anything
        else left over is removed."""
        found = leftovers(live)
        resumed = next((f for f in found if f.unfinished and f.complete_for(wanted)), None)
        self._clear_leftovers(live, found, resumed, summary, lock_kind)
        if resumed is not None:
            staged = open_generation(live.db, resumed.generation, dict(wanted),
                                     table_names(live.db), staged=True)
            summary.rebuild_continued = staged.files.count_rows()
        else:
            staged = IndexTables(db=live.db, chunks=None, files=None, edges=None, meta={},
                                 generation=secrets.token_hex(4), staged=True)
            # its meta first: tables found without it are never taken for a rebuild's
            self._commit(staged, "writing the rebuild's meta table",
                         lambda: write_meta(staged, wanted))
            self._commit(staged, "creating the rebuild's tables",
                         lambda: reset_tables(staged, embedder.dim))
        self.staging = staged.generation
        return staged

    def _switch(self, live: IndexTables, staged: IndexTables) -> None:
        """Make the rebuilt tables the index in use: one commit of the meta table naming
        their generation. The replaced tables are removed by the next run."""
        values = {**staged.meta, SWITCHED_AT: f"{self.clock():.3f}"}
        live.generation = staged.generation
        self._commit(live, "switching to the rebuilt index", lambda: write_meta(live, values))
        staged.staged, staged.meta = False, live.meta
        self.staging = ""
        drop_tables(live.db, (table_name(META, staged.generation),))

    def _clear_leftovers(self, live: IndexTables, found: list[Leftover],
                         keep: Leftover | None, summary: IndexSummary, lock_kind: str) -> None:
        """Remove tables an earlier run left (a rebuild stopped midway, the tables a
        finished rebuild replaced), saying so in the summary. Without a lock another
        indexer may be writing them this moment: they stay, and the summary says why."""
        gone = [f for f in found if f is not keep]
        if not gone:
            return
        try:
            since = self.clock() - float(live.meta.get(SWITCHED_AT, "0"))
        except ValueError:
            since = REPLACED_KEPT_S  # unreadable: as if switched long ago
        recent = [f for f in gone if not f.unfinished and 0 <= since < REPLACED_KEPT_S]
        if recent:
            gone = [f for f in gone if f not in recent]
            summary.leftovers_note = (f"the index a rebuild replaced {since:.0f} s ago is kept "
                                      "(a search opened before the switch may still be "
                                      "reading it); a later index run removes it")
        if not gone:
            return
        if lock_kind == "none":
            summary.leftovers_note = (f"{counted(len(gone), 'set')} of tables left by earlier runs "
                                      "kept: without a lock another indexer may be writing "
                                      "them")
            return
        for leftover in gone:
            self._guard()
            size = tables_size(self.location, leftover.tables)
            drop_tables(live.db, leftover.tables)
            summary.leftovers_removed.append({
                "what": "unfinished rebuild" if leftover.unfinished else "replaced index",
                "tables": len(leftover.tables), "bytes": size})

    def _known_files(self, tables: IndexTables) -> dict[str, dict[str, Any]]:
        if tables.files is None:
            return {}
        return {row["path"]: row for row in tables.files.to_arrow().to_pylist()}

    def _scan(self, report: ProgressCallback, summary: IndexSummary) -> list[_Candidate]:
        candidates: list[_Candidate] = []
        for rel in list_index_files(self.root):
            try:
                info = os.stat(self.root / rel)
            except OSError:
                summary.files_skipped += 1
                continue
            if info.st_size > MAX_FILE_BYTES:
                summary.files_skipped += 1
                continue
            candidates.append(_Candidate(display_name(rel), info.st_size, info.st_mtime_ns,
                                         fs_path=rel))
            if len(candidates) % 500 == 0:
                report(IndexProgress("scan", len(candidates), 0, display_name(rel)))
        summary.files_seen = len(candidates)
        report(IndexProgress("scan", len(candidates), len(candidates)))
        return candidates

    def _classify(self, candidates: list[_Candidate], known: dict[str, dict[str, Any]],
                  summary: IndexSummary, *, rechunk: bool = False
                  ) -> tuple[list[_Candidate], list[_Candidate]]:
        """(changed, touched): files to chunk again, and files with a new time but the same
        content; ``rechunk`` (an older chunker cut them) counts every readable file as
        changed."""
        changed: list[_Candidate] = []
        touched: list[_Candidate] = []
        kept: list[_Candidate] = []
        for candidate in candidates:
            row = None if rechunk else known.get(candidate.path)
            if row and row["size"] == candidate.size and row["mtime_ns"] == candidate.mtime_ns:
                summary.files_unchanged += 1
                kept.append(candidate)
                continue
            data = read_listed_file(self.root / (candidate.fs_path or candidate.path))
            if data is None or is_binary_bytes(data):
                summary.files_skipped += 1
                continue
            candidate.data = data
            candidate.digest = file_digest(data)
            if candidate.mtime_ns >= time.time_ns() - RACY_NS:
                candidate.mtime_ns = 0
            if row and row["hash"] == candidate.digest:
                summary.files_unchanged += 1
                touched.append(candidate)
            else:
                changed.append(candidate)
            kept.append(candidate)
        candidates[:] = kept
        summary.files_indexed = len(changed)
        return changed, touched

    def _delete(self, tables: IndexTables, paths: list[str]) -> None:
        self._guard()
        for start in range(0, len(paths), 500):
            where = path_filter(paths[start : start + 500])
            for name in ("chunks", "edges", "files"):
                if getattr(tables, name) is not None:
                    self._commit(tables, f"removing deleted files from the {name} table",
                                 lambda name=name, where=where: getattr(tables, name).delete(where))

    def _parse_batches(self, changed: list[_Candidate], summary: IndexSummary
                       ) -> Iterator[_Batch]:
        """Parse changed files and build their ranking texts, ``batch_chunks`` at a time."""
        from .ranking_text import fulltext_text

        text_of = chunk_texts(self.embedder)

        pending: list[tuple[_Candidate, ChunkedFile]] = []
        size = 0
        for number, candidate in enumerate(changed, 1):
            text = (candidate.data or b"").decode("utf-8", errors="replace")
            result = chunk_file(candidate.path, text)
            candidate.data = None  # the text lives on in the chunks; free the bytes
            summary.data_chunks_skipped += result.skipped_data_chunks
            summary.parsers[result.parser] = summary.parsers.get(result.parser, 0) + 1
            summary.files_minified += result.parser == "minified"
            summary.files_generated += result.parser == "generated"
            if result.chunks_found:
                summary.files_capped.append({"path": candidate.path,
                                             "chunks_found": result.chunks_found,
                                             "chunks_kept": len(result.chunks)})
            pending.append((candidate, result))
            size += len(result.chunks)
            if size >= self.batch_chunks or number == len(changed):
                yield _Batch.build(pending, text_of, fulltext_text, number)
                pending, size = [], 0

    def _embed_and_write(self, tables: IndexTables, changed: list[_Candidate],
                         report: ProgressCallback, summary: IndexSummary,
                         written: set[str]) -> None:
        """Parsing (pure Python, holds the GIL) runs in a helper thread while this one
        embeds and writes (numpy and LanceDB release the GIL), so on two cores the parse
        cost hides behind the embedding cost."""
        if not changed:
            return
        total = len(changed)
        report(IndexProgress("parse", 0, total, "parsing changed files"))
        files_before = 0
        for batch in _in_background(self._parse_batches(changed, summary)):
            def embedded(done: int, todo: int, before: int = files_before,
                         batch: _Batch = batch) -> None:
                # files of this batch counted in proportion to its chunks embedded so far
                files = before + (batch.files_done - before) * done // max(1, todo)
                report(IndexProgress("embed", files, total,
                                     f"{done}/{todo} chunks of this batch"))

            self._write_batch(tables, batch, summary, embedded)
            written.update(c.id for c in batch.chunks)
            report(IndexProgress("embed", batch.files_done, total, batch.paths[-1]))
            files_before = batch.files_done

    def _write_batch(self, tables: IndexTables, batch: _Batch, summary: IndexSummary,
                     embedded: Callable[[int, int], None] | None = None) -> None:
        self._guard()
        vectors = self._vectors(tables, batch.paths, batch.texts, batch.hashes, summary,
                                embedded)
        rows = [_chunk_row(c, f, h, v) for c, f, h, v in
                zip(batch.chunks, batch.fulltexts, batch.hashes, vectors, strict=True)]
        where = path_filter(batch.paths)
        self._commit(tables, "writing chunks", lambda: self.commits.merged(
            "writing chunks", _replace_rows(tables.chunks, "id", rows, where)))
        self._commit(tables, "writing graph edges", lambda: self.commits.merged(
            "writing graph edges", _replace_rows(tables.edges, "id", batch.edge_rows, where)))
        self._record_files(tables, batch.candidates, batch.counts)

    def _vectors(self, tables: IndexTables, paths: list[str], texts: list[ChunkText],
                 hashes: list[str], summary: IndexSummary,
                 embedded: Callable[[int, int], None] | None = None) -> list[np.ndarray]:
        """Vectors for the texts: reused when the same text was embedded before for these
        files (an edit re-embeds only the chunks it changed), else embedded once per text."""
        reuse: dict[str, np.ndarray] = {}
        if tables.chunks is not None and tables.chunks.count_rows() > 0:
            wanted = set(hashes)
            existing = (tables.chunks.search().where(path_filter(paths))
                        .select(["text_hash", "vector"]).limit(None).to_arrow())
            for text_hash, vector in zip(existing.column("text_hash").to_pylist(),
                                         existing.column("vector").to_numpy(
                                             zero_copy_only=False), strict=True):
                if text_hash in wanted:
                    reuse[text_hash] = np.asarray(vector, dtype=np.float32)
        todo: dict[str, ChunkText] = {}
        for text, text_hash in zip(texts, hashes, strict=True):
            if text_hash not in reuse and text_hash not in todo:
                todo[text_hash] = text
        if todo:
            started = time.perf_counter()
            pending = list(todo.values())
            vectors: list[np.ndarray] = []
            for start in range(0, len(pending), EMBED_SLICE):
                if embedded is not None:
                    embedded(start, len(pending))
                vectors.extend(embed_texts(self.embedder, pending[start : start + EMBED_SLICE]))
            if embedded is not None:
                embedded(len(pending), len(pending))
            summary.embed_seconds += time.perf_counter() - started
            for text_hash, vector in zip(todo, vectors, strict=True):
                reuse[text_hash] = vector
        summary.chunks_embedded += len(todo)
        summary.chunks_reused += len(texts) - len(todo)
        return [reuse[h] for h in hashes]

    def _record_files(self, tables: IndexTables, candidates: list[_Candidate],
                      counts: dict[str, tuple[int, str]]) -> None:
        self._guard()
        if not candidates:
            return
        self._commit(tables, "recording indexed files",
                     lambda: self._record_files_once(tables, candidates, counts))

    def _record_files_once(self, tables: IndexTables, candidates: list[_Candidate],
                           counts: dict[str, tuple[int, str]]) -> None:
        known = {}
        if not counts:
            rows = (tables.files.search().where(path_filter([c.path for c in candidates]))
                    .limit(None).to_arrow().to_pylist())
            known = {r["path"]: r for r in rows}
        rows = []
        for c in candidates:
            chunks, parser = counts.get(c.path) or (known.get(c.path, {}).get("chunks", 0),
                                                    known.get(c.path, {}).get("parser", ""))
            rows.append({"path": c.path, "hash": c.digest, "size": c.size,
                         "mtime_ns": c.mtime_ns, "chunks": chunks, "parser": parser})
        self.commits.merged("recording indexed files", (
            tables.files.merge_insert("path").when_matched_update_all()
            .when_not_matched_insert_all().execute(arrow_rows(rows, tables.files))))

    def _forget_cross_file(self, tables: IndexTables) -> dict[str, str] | None:
        """Drop the record of the sections written; returns what it held (None: none)."""
        from .lance_store import CROSS_FILE

        if tables.cross_file is None:
            return None
        try:
            found = tables.cross_file.to_arrow()
            stored: dict[str, str] | None = dict(zip(
                found.column("id").to_pylist(), found.column("section").to_pylist(),
                strict=True))
        except RuntimeError as exc:  # another writer (no lock) dropped it this instant
            if "not found" not in str(exc).lower():
                raise
            stored = None
        self._guard()
        try:
            tables.db.drop_table(tables.name(CROSS_FILE))
        except (ValueError, FileNotFoundError, OSError) as exc:  # another writer's drop
            if "not found" not in str(exc).lower():
                raise
        tables.cross_file = None
        return stored

    def _refresh_cross_file(self, tables: IndexTables, written: set[str],
                            stored: dict[str, str] | None) -> int:
        """Recompute every chunk's cross-file full-text section (cross_file.py) from the
        final chunks and call edges, and rewrite the full-text column of the chunks whose
        section changed: those ``written`` now (their new text has none yet) and, in files
        left alone, those whose callers changed elsewhere. Nothing is embedded. Returns
        how many chunks were rewritten."""
        from .cross_file import section_of, sections, with_section
        from .lance_store import CROSS_FILE, cross_file_schema

        self._guard()
        refresh(tables)  # the final tables, other writers' commits included
        meta = (tables.chunks.search().select(["id", "path", "kind", "name", "parent",
                                                "language", "doc"])
                .limit(None).to_arrow().to_pylist())
        calls = (tables.edges.search().where("kind = 'calls'").select(["src", "dst"])
                 .limit(None).to_arrow())
        wanted = sections(meta, zip(calls.column("src").to_pylist(),
                                    calls.column("dst").to_pylist(), strict=True))
        if stored is None:  # none recorded (an older index, a stopped run): what the chunks hold
            found = tables.chunks.search().select(["id", "fulltext"]).limit(None).to_arrow()
            stored = {i: section_of(t) for i, t in zip(
                found.column("id").to_pylist(), found.column("fulltext").to_pylist(),
                strict=True)}
        todo: dict[str, str] = {}
        for row in meta:
            chunk_id = row["id"]
            section = wanted.get(chunk_id, "")
            if chunk_id in written:
                if section:  # a fresh row has no section
                    todo[chunk_id] = section
            elif section != stored.get(chunk_id, ""):
                todo[chunk_id] = section
        ids = sorted(todo)

        def rewrite(part: list[str]) -> None:
            # read inside the step: a retry after a conflict starts from the latest rows
            rows = (tables.chunks.search().where(id_filter(part)).limit(None)
                    .to_arrow().to_pylist())
            for row in rows:
                row["fulltext"] = with_section(row["fulltext"], todo[row["id"]])
            if rows:
                self.commits.merged("writing callers' words", (
                    tables.chunks.merge_insert("id").when_matched_update_all()
                    .execute(arrow_rows(rows, tables.chunks))))

        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            self._commit(tables, "writing callers' words", lambda part=part: rewrite(part))
        # written last: a run stopped before this point redoes the rewrite (it is idempotent)
        sections_rows = [{"id": k, "section": v} for k, v in sorted(wanted.items())]
        tables.cross_file = self._commit(
            tables, "recording callers' words", lambda: replace_table(
                tables.db, tables.name(CROSS_FILE), sections_rows, cross_file_schema()))
        return len(ids)

    def _prepare_vocabulary(self, tables: IndexTables, embedder: Embedder,
                            summary: IndexSummary) -> None:
        """Embed the project's words and the doc sentences once for a new or rebuilt index,
        so that its first search does not. Nothing here is part of the index: a failure is
        only noted (the first search then makes them)."""
        from .doc_sentences import doc_vectors_for, sentence_embedder
        from .vocabulary import vocabulary_for

        self._guard()
        refresh(tables)
        home = self.settings.home
        vocabulary, error = _derived(lambda: vocabulary_for(tables, self.location, home,
                                                            embedder))
        summary.vocabulary_words = len(vocabulary.candidates) if vocabulary else 0
        summary.vocabulary_note = (vocabulary.note if vocabulary
                                   else f"project words not prepared: {error}")
        reader = sentence_embedder(embedder)
        if reader is not None:
            found, error = _derived(lambda: doc_vectors_for(tables, self.location, home, reader))
            summary.doc_sentences = len(found.ids) if found else 0
            summary.doc_sentences_note = (found.note if found
                                          else f"doc sentences not prepared: {error}")

    def _prune_vocabularies(self, embedder: Embedder) -> list[dict[str, Any]]:
        """Remove the cached project words and doc sentences of indexes that are gone, and
        the oldest beyond the caches' limits (:mod:`.vocabulary_prune`); this index's own
        stay."""
        from . import doc_sentences
        from .vocabulary import cache_file, word_embedder
        from .vocabulary_prune import prune_vocabulary_caches

        home = self.settings.home
        keep = cache_file(home, self.location, word_embedder(embedder).name)
        removed = prune_vocabulary_caches(home, keep)
        reader = doc_sentences.sentence_embedder(embedder)
        own = doc_sentences.cache_file(home, self.location, reader.name) if reader else None
        removed += prune_vocabulary_caches(home, own, folder=doc_sentences.cache_folder(home))
        return [r._asdict() for r in removed]

    def _refresh_fulltext(self, tables: IndexTables, report: ProgressCallback) -> None:
        """Keep the full-text index current (ICU segmentation splits Chinese words offline).

        Rows added since the index was built are still searched (LanceDB scans them), so a
        small edit does not pay for a rebuild; the index is rebuilt once more than
        FTS_STALE_SHARE of the rows are outside it.
        """
        self._guard()
        total = tables.chunks.count_rows()
        if total == 0:
            return
        try:
            stats = tables.chunks.index_stats(FTS_INDEX_NAME)
        except Exception:  # noqa: BLE001 - no index yet, or stats unsupported: rebuild
            stats = None
        if stats is not None and stats.num_unindexed_rows <= FTS_STALE_SHARE * total:
            return
        report(IndexProgress("fulltext", 0, 1))
        from lancedb.index import FTS

        self._commit(tables, "building the full-text index",
                     lambda: tables.chunks.create_index("fulltext",
                                                        config=FTS(base_tokenizer="icu"),
                                                        replace=True, name=FTS_INDEX_NAME))
        report(IndexProgress("fulltext", 1, 1))


@dataclass
class _Batch:
    """Parsed files ready to embed and commit together."""

    candidates: list[_Candidate]
    counts: dict[str, tuple[int, str]]
    chunks: list[Chunk]
    texts: list[ChunkText]
    hashes: list[str]
    fulltexts: list[str]
    edge_rows: list[dict[str, Any]]
    files_done: int

    @property
    def paths(self) -> list[str]:
        return [c.path for c in self.candidates]

    @classmethod
    def build(cls, parsed: list[tuple[_Candidate, ChunkedFile]],
              text_of: Callable[[Chunk], ChunkText], fulltext_text: Callable[[Chunk], str],
              files_done: int) -> _Batch:
        chunks: list[Chunk] = []
        seen: set[str] = set()
        for _, result in parsed:
            for chunk in result.chunks:
                if chunk.id not in seen:
                    seen.add(chunk.id)
                    chunks.append(chunk)
        from .ranking_text import attach_parent_docs  # members rank with their class's doc

        attach_parent_docs(chunks)
        texts = [text_of(c) for c in chunks]
        return cls(
            candidates=[c for c, _ in parsed],
            counts={c.path: (len(r.chunks), r.parser) for c, r in parsed},
            chunks=chunks, texts=texts, hashes=[text_hash(t) for t in texts],
            fulltexts=[fulltext_text(c) for c in chunks],
            edge_rows=_edge_rows(parsed), files_done=files_done)


ChunkText = str | tuple[str, ...]
"""What is embedded for a chunk: one text, or one per part of a paired embedder whose parts
read different texts (paired.ranking_texts)."""


def chunk_texts(embedder: Embedder) -> Callable[[Chunk], ChunkText]:
    """The function giving a chunk's embedded text(s) for ``embedder``: one text when every
    part reads the same kind (as before, so such an index keeps its text hashes), else a
    tuple with each part's text."""
    from ..embedders.paired import ranking_texts
    from .ranking_text import RANKING_TEXTS

    kinds = ranking_texts(embedder)
    unknown = [k for k in kinds if k not in RANKING_TEXTS]
    if unknown:
        raise ValueError(f"unknown ranking text {unknown[0]!r}: use one of "
                         f"{', '.join(RANKING_TEXTS)}")
    if len(set(kinds)) == 1:
        return RANKING_TEXTS[kinds[0]]
    builders = [RANKING_TEXTS[k] for k in kinds]
    return lambda chunk: tuple(build(chunk) for build in builders)


def text_hash(text: ChunkText) -> str:
    """What vectors are reused by: the sha1 of the text, or of the parts' texts joined by the
    ASCII record separator."""
    joined = text if isinstance(text, str) else "\x1e".join(text)
    return hashlib.sha1(joined.encode("utf-8", "surrogatepass")).hexdigest()


def embed_texts(embedder: Embedder, texts: list[ChunkText]) -> np.ndarray:
    """Vectors for chunk texts made by :func:`chunk_texts` for this ``embedder``."""
    if texts and not isinstance(texts[0], str):
        return embedder.embed_parts(texts)  # type: ignore[attr-defined]
    return embedder.embed(texts)  # type: ignore[arg-type]


_DONE = object()


def _in_background(items: Iterator[_Batch], depth: int = 2) -> Iterator[_Batch]:
    """Run the ``items`` generator in a helper thread, ``depth`` batches ahead; its
    exceptions are raised here."""
    results: queue.Queue[Any] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def produce() -> None:
        try:
            for item in items:
                if stop.is_set():
                    return
                results.put(item)
            results.put(_DONE)
        except BaseException as exc:  # noqa: BLE001 - handed over to the consumer
            results.put(exc)

    worker = threading.Thread(target=produce, name="paicli-index-parse", daemon=True)
    worker.start()
    try:
        while True:
            item = results.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        while worker.is_alive():  # unblock a producer waiting on a full queue
            try:
                results.get_nowait()
            except queue.Empty:
                worker.join(0.05)


def _replace_rows(table: Any, key: str, rows: list[dict[str, Any]], where: str) -> Any:
    """Make the rows matching ``where`` exactly ``rows`` in one commit (merge on the key:
    rows kept are updated, new ones inserted, the others deleted). Idempotent: applied
    again on a later version it ends with the same rows, one copy of each key."""
    if not rows:
        return table.delete(where)
    return (table.merge_insert(key).when_matched_update_all().when_not_matched_insert_all()
            .when_not_matched_by_source_delete(where).execute(arrow_rows(rows, table)))


def _chunk_row(chunk: Chunk, fulltext: str, text_hash: str, vector: np.ndarray) -> dict[str, Any]:
    return {
        "id": chunk.id, "path": chunk.path, "kind": chunk.kind, "name": chunk.name,
        "start_line": chunk.start_line, "end_line": chunk.end_line,
        "language": chunk.language, "parent": chunk.parent or "", "doc": chunk.doc,
        "signature": chunk.signature, "context": chunk.context, "source": chunk.source,
        "fulltext": fulltext, "text_hash": text_hash, "vector": vector.tolist(),
    }


def _edge_rows(batch: list[tuple[_Candidate, ChunkedFile]]) -> list[dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for _, result in batch:
        for edge in result.edges:
            key = hashlib.sha1(f"{edge.src}\0{edge.dst}\0{edge.kind}\0{edge.path}\0{edge.line}"
                               .encode()).hexdigest()[:20]
            rows[key] = {"id": key, "src": edge.src, "dst": edge.dst, "kind": edge.kind,
                         "path": edge.path, "line": edge.line}
    return list(rows.values())


def _regular_lock_file(path: Path) -> None:
    """Make sure the lock file is a regular file before the lock opens it: a FIFO a project
    ships as ``.paicli/index.lock`` held every index build forever (opening a FIFO for
    writing waits for a reader). Opened without blocking; anything else is an OSError."""
    refused = f"{path} is not a regular file; remove it to index again"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO nobody reads
            raise OSError(exc.errno, refused) from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, refused)
    finally:
        os.close(fd)


class _IndexLock:
    """One index update at a time per index (another process waits, then proceeds): a lock
    file beside a local index, a lease object beside an ``s3://`` one (:mod:`.index_lease`);
    other object stores get neither (``kind`` "none", shown in the summary)."""

    def __init__(self, location: str, on_wait: Callable[[str], None] | None = None) -> None:
        self.path = Path(location.removeprefix("file://") + ".lock") if is_local(location) \
            else None
        self._lock: Any = None
        self.lease: Any = None
        self.note = ""
        """Why a remote index has no lock ("" when it has one)."""
        if self.path is None:
            from .index_lease import IndexLease, LeaseTarget

            target = LeaseTarget.for_index(location)
            if target is None:
                self.note = (f"{location.split('://', 1)[0]}:// indexes have no lock across "
                             "machines: indexers running at once retry their commit "
                             "conflicts, but each does the whole work")
            else:
                self.lease = IndexLease(target, on_wait=on_wait)
                if not self.lease.client.has_credentials:
                    # no credentials the lease can find (the index's store may still have
                    # some of its own): index without the lease, and say so
                    self.note = ("no lock across machines: the lease needs AWS_ACCESS_KEY_ID "
                                 "and AWS_SECRET_ACCESS_KEY in the environment, an AWS "
                                 "profile's credentials file, or a container's or instance "
                                 "role's credentials; indexers running at once retry their "
                                 "commit conflicts, but each does the whole work")
                    self.lease = None
        self.kind = "file" if self.path is not None else "lease" if self.lease else "none"

    def __enter__(self) -> _IndexLock:
        if self.path is not None:
            import portalocker

            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.parent.name == ".paicli":
                # the index and its lock are local build products, never committed
                keep_dot_dir_out_of_git(self.path.parent)
            _regular_lock_file(self.path)
            self._lock = portalocker.Lock(str(self.path), timeout=600)
            self._lock.acquire()
        elif self.lease is not None:
            self.lease.acquire()
        return self

    def check(self) -> None:
        """Raise when a remote lease was lost (another indexer took it over): stop writing."""
        if self.lease is not None:
            self.lease.check()

    def __exit__(self, *exc: object) -> None:
        if self._lock is not None:
            self._lock.release()
        if self.lease is not None:
            self.lease.release()


def _derived(make: Callable[[], Any]) -> tuple[Any, str]:
    """(what ``make`` returns, "") or (None, why it failed): a cache derived from the index
    that a search can make later never fails the indexing run."""
    try:
        return make(), ""
    except Exception as exc:  # noqa: BLE001 - a derived cache: the search makes it later
        return None, str(exc)
