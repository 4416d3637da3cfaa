"""The memory file: format, locking under concurrency, crash safety, corrupt files (behaviour §11)."""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paicli_tui.config import load_settings
from paicli_tui.core.memory.book import MemoryBook
from paicli_tui.core.memory.entry import MemoryEntry, new_entry_id
from paicli_tui.core.memory.store import MemoryStore, _parse, serialise

FIXED = datetime(2026, 11, 1, 12, 0, 0, tzinfo=UTC)


def _entry(content: str) -> MemoryEntry:
    return MemoryEntry(id=new_entry_id(), content=content, created_at="2026-11-01T12:00:00Z",
                       last_verified_at="2026-11-01T12:00:00Z", project="/p")


def test_file_is_the_reference_list_and_round_trips(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "m.json")
    saved = store.add(_entry("我们用 Maven 构建"))
    data = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    assert isinstance(data, list) and data[0]["content"] == "我们用 Maven 构建"
    assert set(data[0]) == {"id", "content", "type", "timestamp", "lastVerifiedAt",
                            "metadata", "tokenCount"}
    assert data[0]["type"] == "FACT" and data[0]["timestamp"] == "2026-11-01T12:00:00Z"
    assert data[0]["metadata"]["scope"] == "project"
    assert all(isinstance(v, str) for v in data[0]["metadata"].values())
    assert MemoryStore(tmp_path / "m.json").entries() == [saved]


def test_unknown_metadata_survives_a_rewrite(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    raw = _entry("fact one").to_dict()
    raw["metadata"]["future_field"] = {"x": 1}
    path.write_text(json.dumps({"schema_version": 1, "entries": [raw]}), encoding="utf-8")
    store = MemoryStore(path)
    store.add(_entry("fact two"))
    data = json.loads(path.read_text(encoding="utf-8"))
    # kept, as the string every metadata value is in the shared file
    assert json.loads(data[0]["metadata"]["future_field"]) == {"x": 1}


def test_entries_without_scope_count_as_global(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_text(json.dumps([{"id": "a1", "content": "old fact"}]), encoding="utf-8")
    (entry,) = MemoryStore(path).entries()
    assert entry.is_global and entry.visible_in("/anywhere")


def test_corrupt_file_is_moved_aside_and_held_entries_are_written_back(tmp_path: Path) -> None:
    path = tmp_path / "long_term_memory.json"
    store = MemoryStore(path, clock=lambda: FIXED)
    first = store.add(_entry("kept fact"))
    path.write_text('{"schema_version": 1, "entries": [', encoding="utf-8")  # torn by someone
    assert store.entries() == [first]  # the program keeps working with what it held
    backups = list(tmp_path.glob("long_term_memory.json.corrupt-*"))
    assert [b.name for b in backups] == ["long_term_memory.json.corrupt-20261101T120000000000Z"]
    assert backups[0].read_text(encoding="utf-8").startswith('{"schema_version"')
    store.add(_entry("new fact"))
    contents = [e["content"] for e in json.loads(path.read_text(encoding="utf-8"))]
    assert contents == ["kept fact", "new fact"]


@pytest.mark.parametrize("garbage", ["", "not json", "[1, 2]", '{"entries": 5}',
                                     '{"entries": [{"content": "no id"}]}', "\udcff"])
def test_unreadable_files_are_never_overwritten_empty(tmp_path: Path, garbage: str) -> None:
    path = tmp_path / "long_term_memory.json"
    path.write_bytes(garbage.encode("utf-8", "surrogateescape"))
    store = MemoryStore(path)
    assert store.entries() == []
    assert not path.exists()
    assert len(list(tmp_path.glob("*.corrupt-*"))) == 1


def _save_many(home: str, project: str, worker: int, count: int) -> None:
    settings = load_settings({}, {"PAICLI_HOME": home})
    book = MemoryBook(settings, project)
    for i in range(count):
        # force: "fact 1" and "fact 2" are version variants of each other by design
        result = book.save(f"worker {worker} fact {i}", force=True)
        assert result.status == "saved", result


@pytest.mark.slow
def test_eight_processes_saving_fifty_each_lose_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = home / "memory" / "long_term_memory.json"
    ctx = multiprocessing.get_context("fork")
    workers = [ctx.Process(target=_save_many, args=(str(home), str(tmp_path), w, 50))
               for w in range(8)]
    for w in workers:
        w.start()
    reads = 0
    while any(w.is_alive() for w in workers):
        if path.exists():
            _parse(path.read_text(encoding="utf-8"))  # readers never see half a file
            reads += 1
        time.sleep(0.005)
    for w in workers:
        w.join()
        assert w.exitcode == 0
    entries = _parse(path.read_text(encoding="utf-8"))
    assert len(entries) == 400
    assert len({e.content for e in entries}) == 400
    assert reads > 0


def _write_forever(path: str) -> None:
    store = MemoryStore(Path(path))
    i = 0
    while True:
        store.add(_entry(f"fact {i} " + "x" * 200))
        i += 1


def test_writer_killed_at_random_moments_never_leaves_a_broken_file(tmp_path: Path) -> None:
    path = tmp_path / "long_term_memory.json"
    rng = random.Random(4)
    seen = 0
    # Warm the parent first (the store imports its file lock on first use): every forked
    # writer then starts like a running app's and writes within the kill window, even on a
    # loaded machine.
    MemoryStore(tmp_path / "warm-up.json").add(_entry("warm up"))
    for _ in range(100):
        pid = os.fork()
        if pid == 0:  # child: write until killed
            try:
                _write_forever(str(path))
            finally:
                os._exit(0)
        time.sleep(rng.uniform(0.0, 0.015))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        if path.exists():
            seen = len(_parse(path.read_text(encoding="utf-8")))
    assert seen > 0
    assert not list(tmp_path.glob("*.corrupt-*"))


def _store_process(path: str, orders, answers) -> None:  # noqa: ANN001 - pipe ends
    """A process of its own holding one store: runs each order sent, answers the contents."""
    store = MemoryStore(Path(path))
    for order, argument in iter(orders.recv, None):
        if order == "read":
            answers.send([e.content for e in store.entries()])
        else:
            store.add(_entry(argument))
            answers.send([e.content for e in store.entries()])


# The file is found unreadable by one process while another holds the same memories. The
# first moved it aside and kept its entries for its next save; the other, finding no file,
# read that as a removal on purpose and dropped what it held, and its next save wrote only
# its new memory, which the first then read as the file. Every memory but the new ones was
# left in the unreadable backup only.
@pytest.mark.parametrize(("finder_read_it", "first_writer"), [
    (True, "holder"), (True, "finder"), (False, "holder"), (False, "finder"),
])
def test_a_file_moved_aside_by_another_process_loses_no_memory(
        tmp_path: Path, finder_read_it: bool, first_writer: str) -> None:
    path = tmp_path / "long_term_memory.json"
    seed = MemoryStore(path)
    for i in range(10):
        seed.add(_entry(f"old fact {i}"))
    old = {f"old fact {i}" for i in range(10)}
    ctx = multiprocessing.get_context("fork")
    pipes, workers = {}, []
    for name in ("holder", "finder"):
        orders_out, orders_in = ctx.Pipe()
        answers_out, answers_in = ctx.Pipe()
        worker = ctx.Process(target=_store_process, args=(str(path), orders_out, answers_in))
        worker.start()
        workers.append(worker)
        pipes[name] = (orders_in, answers_out)

    def ask(name: str, order: str, argument: str = "") -> list[str]:
        pipes[name][0].send((order, argument))
        assert pipes[name][1].poll(120), f"{name} did not answer"
        return pipes[name][1].recv()

    try:
        assert set(ask("holder", "read")) == old
        if finder_read_it:
            assert set(ask("finder", "read")) == old
        path.write_text('[{"id": "x", "content": ', encoding="utf-8")  # torn by someone
        ask("finder", "read")  # the finder moves it aside
        second = "finder" if first_writer == "holder" else "holder"
        ask(first_writer, "add", f"new fact by the {first_writer}")
        ask(second, "add", f"new fact by the {second}")
        on_disk = {e.content for e in _parse(path.read_text(encoding="utf-8"))}
        assert on_disk == old | {"new fact by the holder", "new fact by the finder"}
    finally:
        for orders_in, _ in pipes.values():
            orders_in.send(None)
        for worker in workers:
            worker.join(60)


def test_a_file_removed_on_purpose_stays_empty(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    store = MemoryStore(path)
    store.add(_entry("old fact"))
    path.unlink()
    store.add(_entry("new fact"))
    assert [e.content for e in MemoryStore(path).entries()] == ["new fact"]


def test_changes_by_another_writer_are_seen_even_with_equal_size(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    mine, theirs = MemoryStore(path), MemoryStore(path)
    first = mine.add(_entry("fact AAAA"))
    assert theirs.entries() == [first]
    theirs.update(lambda entries: entries.__setitem__(0, first.evolve(content="fact BBBB")))
    mine.add(_entry("fact CCCC"))
    assert [e.content for e in MemoryStore(path).entries()] == ["fact BBBB", "fact CCCC"]


def test_unwritable_folder_is_a_clear_error(tmp_path: Path) -> None:
    from paicli_tui.core.memory.store import MemoryFileError

    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    store = MemoryStore(blocker / "memory" / "m.json")
    with pytest.raises(MemoryFileError, match="could not"):
        store.add(_entry("fact"))


@given(st.lists(st.text(min_size=1, max_size=40), max_size=8))
@settings(max_examples=50, deadline=None)
def test_serialised_file_round_trips_any_text(contents: list[str]) -> None:
    entries = [_entry(text) for text in contents]
    assert _parse(serialise(entries)) == entries


def test_a_newer_file_is_left_alone_with_a_clear_error(tmp_path: Path) -> None:
    from paicli_tui.core.memory.store import MemoryFileError

    path = tmp_path / "m.json"
    text = json.dumps({"schema_version": 99, "entries": []})
    path.write_text(text, encoding="utf-8")
    store = MemoryStore(path)
    with pytest.raises(MemoryFileError, match="Upgrade"):
        store.add(_entry("fact"))
    assert path.read_text(encoding="utf-8") == text
    assert not list(tmp_path.glob("*.corrupt-*"))


def test_unknown_entry_fields_survive_a_rewrite(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    raw = _entry("fact one").to_dict()
    raw["embedding_hint"] = [1, 2]
    path.write_text(json.dumps({"schema_version": 1, "entries": [raw]}), encoding="utf-8")
    MemoryStore(path).add(_entry("fact two"))
    assert json.loads(path.read_text(encoding="utf-8"))[0]["embedding_hint"] == [1, 2]


def test_a_reader_never_moves_aside_a_file_a_writer_just_fixed(tmp_path: Path,
                                                              monkeypatch) -> None:
    """A lock-free reader that sees a bad file takes the lock and looks again before moving
    anything: a writer may have replaced the file with a good one in between."""
    import paicli_tui.core.memory.store as store_module

    path = tmp_path / "long_term_memory.json"
    path.write_text("not json", encoding="utf-8")
    good = serialise([_entry("fixed by another process")])
    real_parse = store_module.parse_file
    calls = []

    def parse_then_writer_fixes_it(text: str):
        calls.append(text)
        if len(calls) == 1:
            path.write_text(good, encoding="utf-8")  # the writer wins the race
        return real_parse(text)

    monkeypatch.setattr(store_module, "parse_file", parse_then_writer_fixes_it)
    entries = MemoryStore(path).entries()
    assert [e.content for e in entries] == ["fixed by another process"]
    assert not list(tmp_path.glob("*.corrupt-*"))
    assert path.read_text(encoding="utf-8") == good


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=6)


@given(st.dictionaries(st.sampled_from(["id", "content", "type", "created_at",
                                        "last_verified_at", "metadata", "token_count"]),
                       _JSON, max_size=7),
       st.dictionaries(st.sampled_from(["scope", "project", "source", "verification",
                                        "source_file"]), _JSON, max_size=5))
@settings(max_examples=80, deadline=None)
def test_a_hand_edited_entry_never_crashes_a_reader(raw: dict, metadata: dict) -> None:
    """Any JSON in an entry either reads as an entry that every consumer can use, or makes the
    file count as unreadable (moved aside, never lost) — never an unexpected exception."""
    from paicli_tui.core.memory.freshness import is_stale
    from paicli_tui.core.memory.retrieval import format_line

    raw = {"id": "a1b2", "content": "fact", **raw}
    if metadata:
        raw["metadata"] = metadata
    try:
        entry = MemoryEntry.from_dict(raw)
    except ValueError:
        return
    entry.visible_in("/p")
    is_stale(entry, FIXED, 30, "/p")
    format_line(entry, False)
    assert _parse(serialise([entry])) == [entry]


def test_every_write_locks_writes_tmp_fsyncs_then_replaces(tmp_path: Path, monkeypatch) -> None:
    """behaviour §11 order: the sibling .lock is held, the text goes to a sibling .tmp, is fsynced,
    and only then atomically replaces the file."""
    import portalocker

    import paicli_tui.core.memory.store as store_module

    path = tmp_path / "long_term_memory.json"
    store = MemoryStore(path)
    steps: list[str] = []
    real_lock, real_fsync, real_replace = portalocker.lock, os.fsync, os.replace

    def lock(handle, flags):
        steps.append(f"lock {Path(handle.name).name}")
        return real_lock(handle, flags)

    def fsync(fd):
        steps.append("fsync")
        return real_fsync(fd)

    def replace(src, dst):
        steps.append(f"replace {Path(src).name} -> {Path(dst).name}")
        return real_replace(src, dst)

    monkeypatch.setattr(portalocker, "lock", lock)
    monkeypatch.setattr(store_module.os, "fsync", fsync)
    monkeypatch.setattr(store_module.os, "replace", replace)
    store.add(_entry("fact"))
    assert steps[:4] == ["lock long_term_memory.json.lock", "fsync",
                         "replace long_term_memory.json.tmp -> long_term_memory.json", "fsync"]
    assert not path.with_name(path.name + ".tmp").exists()


def _delete(store: MemoryStore, entry: MemoryEntry) -> None:
    store.update(lambda entries: entries.remove(entry))


def test_a_memory_deleted_after_a_move_aside_is_not_written_back(tmp_path: Path) -> None:
    """Two programs hold the same memories. B finds the file torn, moves it aside and writes
    back what it held; the person then deletes one memory in B. A, reading next, took the
    missing memory for one lost in the move aside and wrote it back: a deleted memory came
    back. What B wrote back was not lost, so its absence later is a deletion."""
    path = tmp_path / "long_term_memory.json"
    a, b = MemoryStore(path), MemoryStore(path, clock=lambda: FIXED)
    gone, kept = a.add(_entry("deleted fact")), a.add(_entry("kept fact"))
    assert b.entries() == a.entries() == [gone, kept]
    path.write_text('[{"id": ', encoding="utf-8")  # torn by someone
    assert b.entries() == [gone, kept]  # moved aside, written back
    _delete(b, gone)
    assert a.entries() == [kept]
    assert [e["content"] for e in json.loads(path.read_text(encoding="utf-8"))] == ["kept fact"]
    assert len(list(tmp_path.glob("long_term_memory.json.corrupt-*"))) == 1


def test_a_memory_the_mover_did_not_hold_is_still_written_back(tmp_path: Path) -> None:
    """The case the write-back is for: B, holding less than A, moves the torn file aside
    and writes back only its own; A's memory that B never saw is written back by A."""
    path = tmp_path / "long_term_memory.json"
    a, b = MemoryStore(path), MemoryStore(path, clock=lambda: FIXED)
    shared = a.add(_entry("shared fact"))
    assert b.entries() == [shared]
    only_a = a.add(_entry("fact only A saw"))
    path.write_text('[{"id": ', encoding="utf-8")  # torn before B read again
    assert b.entries() == [shared]
    assert a.entries() == [shared, only_a]
    contents = [e["content"] for e in json.loads(path.read_text(encoding="utf-8"))]
    assert contents == ["shared fact", "fact only A saw"]
