"""Writers of one index that are not kept apart by a lock (an object store without a lease:
gs://, az://, S3 with credentials the lease cannot read) commit over each other. A write
refused by a commit conflict is re-applied on the table's latest version, bounded, counted
in the summary; two writers inserting the same key conflict instead of both committing a
copy (the key columns are Lance's primary key). Tested with a writer injected between the
indexer's read and its commit, and with two unlocked indexer processes started at once."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from doubles.embedders import HashEmbedder
from hypothesis import given, settings
from hypothesis import strategies as st
from test_code_index_concurrent import INDEXER

from paicli_tui.config import load_settings
from paicli_tui.core.code import indexer as indexer_module
from paicli_tui.core.code.commit_retry import (
    ATTEMPTS,
    CommitRetry,
    IndexCommitConflictError,
    is_commit_conflict,
)
from paicli_tui.core.code.indexer import CodeIndexer
from paicli_tui.core.code.lance_store import (
    chunk_schema,
    files_schema,
    import_lancedb,
    is_keyed,
    open_index,
)

RETRYABLE = ("lance error: Retryable commit conflict for version 7: This Update transaction "
             "was preempted by concurrent transaction Update at version 7. Please retry.")
INCOMPATIBLE = ("lance error: Incompatible transaction: This Update transaction is incompatible "
                "with concurrent transaction Overwrite at version 2., conflict_resolver.rs:821")
CONTENTION = "lance error: Too much write contention: 20 attempts were made"


@pytest.mark.parametrize(("error", "conflict"), [
    (RuntimeError(RETRYABLE), True),
    (RuntimeError(INCOMPATIBLE), True),
    (RuntimeError(CONTENTION), True),
    (OSError("lance error: Commit conflict for version 3: other writer"), True),
    (RuntimeError("commit conflict: creating the meta table raced another writer"), True),
    (ValueError("Table 'meta' was not found"), False),
    (OSError(28, "No space left on device"), False),
    (RuntimeError("lance error: Schema error: field vector has dimension 8, not 16"), False),
    (KeyError("commit conflict"), False),  # not an error lancedb raises for a commit
    (IndexCommitConflictError("writing chunks: still conflicting after 8 tries"), False),
])
def test_which_errors_are_commit_conflicts(error: BaseException, conflict: bool) -> None:
    assert is_commit_conflict(error) is conflict


@pytest.mark.parametrize(("attempt", "ceiling"), [(1, 0.1), (2, 0.2), (3, 0.4), (5, 1.6),
                                                  (6, 2.0), (7, 2.0)])
def test_backoff_is_jittered_under_a_doubling_cap(attempt: int, ceiling: float) -> None:
    retry = CommitRetry(rng=random.Random(7))
    delays = [retry.delay(attempt) for _ in range(200)]
    assert all(0.0 <= d <= ceiling for d in delays)
    assert max(delays) > 0.8 * ceiling and min(delays) < 0.2 * ceiling  # spread, not fixed
    assert len(set(delays)) == 200


@settings(max_examples=60, deadline=None)
@given(conflicts=st.integers(min_value=0, max_value=ATTEMPTS + 3))
def test_a_step_is_re_applied_after_each_conflict_up_to_the_bound(conflicts: int) -> None:
    """k conflicts then success: the step's result, k retries counted, k refreshes, each
    after a sleep; k >= ATTEMPTS: a clear error after exactly ATTEMPTS tries."""
    calls, refreshes, sleeps = [], [], []

    def step() -> str:
        calls.append(len(refreshes))  # how many refreshes this try saw
        if len(calls) <= conflicts:
            raise RuntimeError(RETRYABLE)
        return "written"

    retry = CommitRetry(sleep=sleeps.append, rng=random.Random(1))
    if conflicts < ATTEMPTS:
        assert retry.run("writing chunks", step, lambda: refreshes.append(1)) == "written"
        assert (retry.retried, len(refreshes), len(sleeps)) == (conflicts, conflicts, conflicts)
        assert calls == list(range(conflicts + 1))  # every retry ran on a refreshed table
    else:
        with pytest.raises(IndexCommitConflictError) as caught:
            retry.run("writing chunks", step, lambda: refreshes.append(1))
        assert len(calls) == ATTEMPTS and retry.retried == ATTEMPTS - 1
        assert str(caught.value).startswith(
            f"writing chunks: still conflicting with another writer of this index after "
            f"{ATTEMPTS} tries (lance error: Retryable commit conflict")
        assert "run `paicli-tui index` again" in str(caught.value)


def test_other_errors_are_not_retried() -> None:
    retry = CommitRetry(sleep=lambda _: pytest.fail("slept"))
    with pytest.raises(ValueError, match="dimension"):
        retry.run("writing chunks", lambda: (_ for _ in ()).throw(ValueError("dimension 8")),
                  lambda: pytest.fail("refreshed"))
    assert retry.retried == 0


# --- a conflicting writer injected between the indexer's read and its commit ---------------

def _project(root: Path, count: int) -> Path:
    root.mkdir()
    for i in range(count):
        (root / f"m{i}.py").write_text(f"def f{i}(x):\n    '''Step {i}.'''\n    return x + {i}\n")
    return root


class _Replacer:
    """Another writer of the index that replaces the chunks table with its own copy of the
    same rows (what a concurrent rebuild or compaction commits) just before the indexer's
    next ``times`` chunk writes commit: those writes were planned on a version that no
    longer exists, and Lance refuses them as incompatible."""

    def __init__(self, location: str, times: int) -> None:
        self.db = import_lancedb().connect(location)
        self.times = times
        self.fired = 0

    def __call__(self) -> None:
        if self.fired < self.times:
            self.fired += 1
            rows = self.db.open_table("chunks").to_arrow()
            self.db.create_table("chunks", data=rows, mode="overwrite")


def _inject(monkeypatch: pytest.MonkeyPatch, writer) -> None:
    real = indexer_module._replace_rows

    def replace_after_the_other_writer(table, key, rows, where):
        if key == "id" and "src" not in table.schema.names:  # the chunks table
            writer()
        return real(table, key, rows, where)

    monkeypatch.setattr(indexer_module, "_replace_rows", replace_after_the_other_writer)


def _rows(location: str) -> tuple[list[str], list[str]]:
    tables = open_index(location)
    chunks = tables.chunks.to_arrow().column("id").to_pylist()
    files = tables.files.to_arrow().column("path").to_pylist()
    return chunks, files


def test_a_write_refused_by_another_writer_is_re_applied_once(
        tmp_path: Path, paicli_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = _project(tmp_path / "p", 6)
    settings_ = load_settings({}, {"PAICLI_HOME": str(paicli_home)})
    first = CodeIndexer(settings_, project, HashEmbedder()).update()
    assert first.commit_conflicts_retried == 0
    (project / "m2.py").write_text("def f2(x):\n    '''Step two.'''\n    return x * 2\n")
    (project / "m9.py").write_text("def f9(x):\n    return 9\n")
    indexer = CodeIndexer(settings_, project, HashEmbedder())
    indexer.commits.sleep = lambda _: None
    writer = _Replacer(indexer.location, times=1)
    _inject(monkeypatch, writer)
    summary = indexer.update()
    assert (writer.fired, summary.files_indexed, summary.commit_conflicts_retried) == (1, 2, 1)
    chunks, files = _rows(indexer.location)
    assert len(chunks) == len(set(chunks)) == 7 and sorted(files) == sorted(
        f"m{i}.py" for i in (0, 1, 2, 3, 4, 5, 9))
    assert summary.chunks_total == 7
    assert "'''Step two.'''" in next(
        r["source"] for r in open_index(indexer.location).chunks.to_arrow().to_pylist()
        if r["path"] == "m2.py")


def test_a_writer_that_always_wins_ends_in_a_clear_error_and_nothing_half_recorded(
        tmp_path: Path, paicli_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = _project(tmp_path / "p", 3)
    settings_ = load_settings({}, {"PAICLI_HOME": str(paicli_home)})
    CodeIndexer(settings_, project, HashEmbedder()).update()
    (project / "m1.py").write_text("def f1(x):\n    return 'changed'\n")
    indexer = CodeIndexer(settings_, project, HashEmbedder())
    slept: list[float] = []
    indexer.commits.sleep = slept.append
    writer = _Replacer(indexer.location, times=10 ** 6)
    _inject(monkeypatch, writer)
    with pytest.raises(IndexCommitConflictError, match=r"^writing chunks: still conflicting "
                       rf"with another writer of this index after {ATTEMPTS} tries"):
        indexer.update()
    assert writer.fired == ATTEMPTS and len(slept) == ATTEMPTS - 1
    tables = open_index(indexer.location)
    recorded = {r["path"]: r["hash"] for r in tables.files.to_arrow().to_pylist()}
    from paicli_tui.core.code.indexer import file_digest

    assert recorded["m1.py"] != file_digest((project / "m1.py").read_bytes())  # not recorded
    monkeypatch.undo()
    again = CodeIndexer(settings_, project, HashEmbedder()).update()  # the next run mends it
    assert (again.files_indexed, again.commit_conflicts_retried) == (1, 0)
    chunks, _ = _rows(indexer.location)
    assert len(chunks) == len(set(chunks)) == 3


def test_two_writers_inserting_one_key_keep_one_copy(tmp_path: Path) -> None:
    """The keyed tables: a merge that inserts a key another writer inserted since the merge
    read the table is refused and merged again by Lance (counted), never a second copy."""
    lancedb = import_lancedb()
    import pyarrow as pa

    db = lancedb.connect(str(tmp_path / "db"))
    mine = db.create_table("files", schema=files_schema())
    theirs = lancedb.connect(str(tmp_path / "db")).open_table("files")

    def row(path: str, digest: str) -> dict:
        return {"path": path, "hash": digest, "size": 1, "mtime_ns": 1, "chunks": 1,
                "parser": "python"}

    def merge(table, rows):
        return (table.merge_insert("path").when_matched_update_all()
                .when_not_matched_insert_all()
                .execute(pa.Table.from_pylist(rows, schema=files_schema())))

    mine.count_rows()  # read version 1
    merge(theirs, [row("a.py", "theirs")])
    retry = CommitRetry()
    retry.merged("recording indexed files", merge(mine, [row("a.py", "mine")]))
    assert retry.retried == 1
    mine.checkout_latest()
    assert mine.to_arrow().to_pylist() == [row("a.py", "mine")]
    assert chunk_schema(8).field("id").nullable is False


def test_a_version_1_index_is_copied_into_keyed_tables_without_embedding_again(
        tmp_path: Path, paicli_home: Path) -> None:
    """An index written before the keys were marked (schema 1), holding a duplicate row two
    unlocked writers made: copied once, the duplicate dropped, vectors kept, nothing
    embedded; then writes are keyed."""
    import pyarrow as pa

    project = _project(tmp_path / "p", 4)
    settings_ = load_settings({}, {"PAICLI_HOME": str(paicli_home)})
    CodeIndexer(settings_, project, HashEmbedder()).update()
    location = CodeIndexer(settings_, project).location
    db = import_lancedb().connect(location)
    for name in ("chunks", "files", "edges", "meta"):  # back to schema 1: no keys marked
        data = db.open_table(name).to_arrow()
        plain = pa.schema([f.with_nullable(True).remove_metadata() for f in data.schema])
        if name == "chunks":
            data = pa.concat_tables([data, data.slice(0, 1)])  # one duplicate copy
        if name == "meta":
            data = pa.Table.from_pylist([{"key": k, "value": "1" if k == "schema" else v}
                                         for k, v in zip(data.column("key").to_pylist(),
                                                         data.column("value").to_pylist(),
                                                         strict=True)])
        db.create_table(name, data=data.cast(plain) if name != "meta" else data,
                        mode="overwrite")
    assert not is_keyed(open_index(location))
    fake = HashEmbedder()
    summary = CodeIndexer(settings_, project, fake).update()
    assert summary.rebuilt == ("index format 1 -> 2: the tables were copied with their keys "
                               "marked, nothing embedded again, 1 duplicate row dropped")
    assert (fake.calls, summary.chunks_total, summary.files_unchanged) == (0, 4, 4)
    tables = open_index(location)
    assert is_keyed(tables) and tables.meta["schema"] == "2"
    chunks, files = _rows(location)
    assert len(chunks) == len(set(chunks)) == 4 and len(files) == 4
    from paicli_tui.core.code.search import search_project

    hits = search_project(settings_, project, "f3", mode="text").hits
    assert hits and hits[0].path == "m3.py"


# --- two unlocked indexer processes started at the same instant ------------------------------

NO_LOCK = r"""
import json
from paicli_tui.core.code import indexer

class NoLock(indexer._IndexLock):
    # what an index on an object store without a lease gets: no lock at all
    def __init__(self, location, on_wait=None):
        super().__init__(location, on_wait)
        self.path, self.lease, self.kind = None, None, "none"

indexer._IndexLock = NoLock
"""
UNLOCKED_INDEXER = (INDEXER.replace("time.sleep(0.2)", "time.sleep(0.05)")
                    .replace("\nwhile not", NO_LOCK + "\nwhile not")
                    .replace("CodeIndexer(settings, Path(sys.argv[1]), Embedder())",
                             "CodeIndexer(settings, Path(sys.argv[1]), Embedder(), "
                             "batch_chunks=8)")
                    .replace("print(summary.files_indexed, summary.chunks_total, summary.lock)",
                             "print(json.dumps(summary.to_json()))"))
"""The same fake-embedder indexer process, without a lock, committing every 8 chunks."""


def run_unlocked_indexers(project: Path, home: Path, go: Path, env: dict[str, str],
                          count: int = 2) -> list[dict]:
    """``count`` indexer processes without a lock, released at the same instant; their
    summaries (each asserted to have exited 0)."""
    runs = [subprocess.Popen([sys.executable, "-c", UNLOCKED_INDEXER, str(project), str(go),
                              str(home)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env) for _ in range(count)]
    time.sleep(1.5)
    go.touch()
    outputs = [r.communicate(timeout=600) for r in runs]
    assert [r.returncode for r in runs] == [0] * count, [o[1][-3000:] for o in outputs]
    return [json.loads(o[0].strip().splitlines()[-1]) for o in outputs]


def assert_each_file_once(location: str, settings_, project: Path, count: int) -> None:
    """Every file's chunk present exactly once, recorded once, and found by a search."""
    tables = open_index(location)
    rows = tables.chunks.to_arrow().to_pylist()
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)) == count
    assert sorted(r["path"] for r in rows) == sorted(f"m{i}.py" for i in range(count))
    files = tables.files.to_arrow().column("path").to_pylist()
    assert sorted(files) == sorted(f"m{i}.py" for i in range(count))
    from paicli_tui.core.code.search import search_project

    for i in (0, count // 2, count - 1):
        hits = search_project(settings_, project, f"f{i}", mode="text").hits
        assert hits and hits[0].path == f"m{i}.py", (i, [h.path for h in hits[:3]])


@pytest.mark.slow
def test_two_unlocked_indexers_on_one_local_index_lose_and_duplicate_nothing(
        tmp_path: Path, paicli_home: Path) -> None:
    """Without the index lock (before this, such a run died on a commit conflict or left
    every chunk twice): both exit 0, every file's chunks exactly once, search finds them."""
    project = _project(tmp_path / "project", 40)
    shared = tmp_path / "shared-index"
    (paicli_home / "config.toml").write_text(f'index_uri = "{shared.as_posix()}"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAICLI_")}
    summaries = run_unlocked_indexers(project, paicli_home, tmp_path / "go", env)
    assert [s["lock"] for s in summaries] == ["none", "none"]
    assert all(s["chunks_total"] == 40 for s in summaries)
    assert sum(s["files_indexed"] for s in summaries) >= 40
    settings_ = load_settings({}, {"PAICLI_HOME": str(paicli_home)})
    assert_each_file_once(str(shared), settings_, project, 40)
    print("commit conflicts retried:", [s["commit_conflicts_retried"] for s in summaries])


@pytest.mark.parametrize(("retried", "failure", "expected", "code"), [
    (3, None, "3 commit conflicts with another writer of this index retried (each write "
              "applied again on the latest version).", 0),
    (0, None, None, 0),
    (0, IndexCommitConflictError("writing chunks: still conflicting with another writer of "
                                 "this index after 8 tries (x); nothing of this step was "
                                 "written: run `paicli-tui index` again"),
     "paicli-tui index: writing chunks: still conflicting", 1),
])
def test_the_index_command_reports_retried_conflicts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        retried: int, failure: Exception | None, expected: str | None, code: int) -> None:
    from paicli_tui import cli

    def update(self, progress=None, *, rebuild=False):
        if failure is not None:
            raise failure
        return indexer_module.IndexSummary(commit_conflicts_retried=retried, lock="none")

    monkeypatch.setattr(CodeIndexer, "update", update)
    project = _project(tmp_path / "p", 1)
    assert cli.main(["index", "--quiet", str(project)]) == code
    out = capsys.readouterr()
    text = out.out + out.err
    if expected is None:
        assert "commit conflict" not in text
    else:
        assert expected in " ".join(text.split())
    if code == 0:
        assert cli.main(["index", "--json", str(project)]) == 0
        assert json.loads(capsys.readouterr().out)["commit_conflicts_retried"] == retried


@pytest.mark.parametrize(("retried", "tail"), [
    (2, "in 1.5s with ; 2 commit conflicts with another indexer retried"),
    (0, "in 1.5s with "),
])
def test_the_apps_index_job_reports_retried_conflicts(
        tmp_path: Path, paicli_home: Path, monkeypatch: pytest.MonkeyPatch, retried: int,
        tail: str) -> None:
    """The line the app shows when its index job ends names the conflicts retried."""
    def update(self, progress=None, *, rebuild=False):
        return indexer_module.IndexSummary(files_indexed=3, chunks_total=9, seconds=1.5,
                                           commit_conflicts_retried=retried)

    monkeypatch.setattr(CodeIndexer, "update", update)
    assert apps_index_line(paicli_home, tmp_path) == (
        "indexed 0 files (3 parsed, 0 unchanged, 0 removed, 0 skipped): 9 chunks (0 "
        f"embedded, 0 reused, 0 data blocks left out), 0 graph edges {tail}")


def apps_index_line(paicli_home: Path, project: Path) -> str:
    """The line the app's index job ends with (the chat's "Code index: ..." notice)."""
    from paicli_tui.core.code.service import LocalCodeService
    from paicli_tui.ui.core_adapters import CodeAdapter

    settings_ = load_settings({}, {"PAICLI_HOME": str(paicli_home)})
    return CodeAdapter(LocalCodeService(settings_, project), settings_, project).index(
        lambda step: None)


def test_the_app_and_the_index_command_report_the_same_counts(
        tmp_path: Path, paicli_home: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """/index in the app said "(0 unchanged, 0 deleted)" where `paicli-tui index` said
    "(4 parsed, 60 unchanged, 0 removed, ...)", and its "in 116.8 s" wrapped in the chat
    with "s" alone on the next row. Both now say the same words, the unit attached."""
    from paicli_tui import cli

    summary = indexer_module.IndexSummary(
        files_seen=64, files_indexed=4, files_unchanged=60, chunks_total=500,
        chunks_embedded=20, chunks_reused=480, edges_total=300, seconds=116.84,
        embedder="use+minilm", lock="none")
    monkeypatch.setattr(CodeIndexer, "update", lambda self, progress=None, *, rebuild=False:
                        summary)
    project = _project(tmp_path / "p", 1)
    assert cli.main(["index", "--quiet", str(project)]) == 0
    said = next(line for line in capsys.readouterr().out.splitlines()
                if line.startswith("Indexed "))
    counts = ("64 files (4 parsed, 60 unchanged, 0 removed, 0 skipped): 500 chunks (20 "
              "embedded, 480 reused, 0 data blocks left out), 300 graph edges in 116.8s "
              "with use+minilm")
    assert said == f"Indexed {counts}."
    assert apps_index_line(paicli_home, project) == f"indexed {counts}"


def test_lance_crashing_while_a_table_is_replaced_at_once_is_a_retried_conflict() -> None:
    """Two writers replacing one table at the same moment can make Lance panic (seen with
    the meta table): reported as a commit conflict, so the step is retried."""
    from paicli_tui.core.code.lance_store import replace_table

    class RustPanic(Exception):  # noqa: N818 - the name pyo3 gives Lance's panics
        pass

    class Racing:
        def create_table(self, *args, **kwargs):
            raise RustPanic("rust future panicked: unknown error")

    with pytest.raises(RuntimeError) as caught:
        replace_table(Racing(), "cross_file", [], None)
    assert is_commit_conflict(caught.value)
    assert str(caught.value).startswith("commit conflict: replacing the cross_file table")
