"""Attack table, files on disk: a memory file or a tool-outputs folder crafted to crash,
hang, lose memories or write outside the project. Also: the file stays in the reference's
own shape, so the reference keeps reading it. One test per attempt, named after it."""

from __future__ import annotations

import json
import os
import stat
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from paicli_tui.core.memory.entry import MemoryEntry, new_entry_id
from paicli_tui.core.memory.store import MemoryFileError, MemoryStore, NewerFileError

FIXED = datetime(2026, 11, 1, 12, 0, 0, tzinfo=UTC)


def _entry(content: str) -> MemoryEntry:
    return MemoryEntry(id=new_entry_id(), content=content, created_at="2026-11-01T12:00:00Z",
                       last_verified_at="2026-11-01T12:00:00Z", project="/p")


def _store(tmp_path: Path) -> tuple[Path, MemoryStore]:
    path = tmp_path / "long_term_memory.json"
    return path, MemoryStore(path, clock=lambda: FIXED)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_deep_nesting_is_moved_aside_without_a_traceback(tmp_path: Path) -> None:
    path, store = _store(tmp_path)
    held = store.add(_entry("kept"))
    path.write_text("[" * 200_000, encoding="utf-8")
    assert store.entries() == [held]
    assert len(list(tmp_path.glob("long_term_memory.json.corrupt-*"))) == 1
    store.add(_entry("next"))
    assert [e["content"] for e in json.loads(path.read_text())] == ["kept", "next"]


def test_lone_surrogate_in_valid_json_does_not_break_every_command(tmp_path: Path) -> None:
    path, store = _store(tmp_path)
    path.write_text('[{"id": "a1", "content": "bad \\ud800 char", "type": "FACT"}]')
    (entry,) = store.entries()
    assert entry.content == "bad \ufffd char"
    store.add(_entry("another"))
    path.read_bytes().decode("utf-8")  # valid UTF-8 on disk
    assert len(MemoryStore(path).entries()) == 2


def test_one_bad_entry_is_set_aside_alone_the_rest_stay_live(tmp_path: Path) -> None:
    path, store = _store(tmp_path)
    good = _entry("good fact").to_reference()
    path.write_text(json.dumps([good, {"content": "no id"}, 7, good | {"id": "b2"}]))
    assert [e.id for e in store.entries()] == [good["id"], "b2"]
    assert store.set_aside == 2
    store.add(_entry("new fact"))
    assert [e["id"] for e in json.loads(path.read_text())][:2] == [good["id"], "b2"]
    sidecar = [json.loads(line) for line in store.rejected_path.read_text().splitlines()]
    assert [json.loads(s["entry"]) for s in sidecar] == [{"content": "no id"}, 7]
    assert _mode(store.rejected_path) == 0o600
    assert not list(tmp_path.glob("*.corrupt-*"))


def test_unknown_top_level_and_entry_keys_are_kept(tmp_path: Path) -> None:
    path, store = _store(tmp_path)
    raw = _entry("fact one").to_dict() | {"embedding_hint": [1, 2]}
    original = json.dumps({"schema_version": 1, "entries": [raw], "owner": "team-a"})
    path.write_text(original)
    store.add(_entry("fact two"))
    data = json.loads(path.read_text())
    assert data[0]["embedding_hint"] == [1, 2]  # entry keys stay in the entry
    (backup,) = tmp_path.glob("long_term_memory.json.v1-backup-*")
    assert backup.read_text() == original
    assert _mode(backup) == 0o600


def test_old_top_level_keys_stay_live_beside_the_list(tmp_path: Path) -> None:
    """The live file must be the reference's bare list, so the old file's own keys live in
    the ``.keys.json`` sidecar: kept through later writes, readable by a new process, and
    merged (newest wins) when an older paicli-tui writes its shape again."""
    path, store = _store(tmp_path)
    raw = _entry("fact one").to_dict()
    path.write_text(json.dumps({"schema_version": 1, "entries": [raw], "owner": "team-a",
                                "sync": {"etag": "w/1", "peers": [1, 2]}}))
    assert store.top_level_keys() == {"owner": "team-a", "sync": {"etag": "w/1",
                                                                  "peers": [1, 2]}}
    store.add(_entry("fact two"))
    store.add(_entry("fact three"))
    assert isinstance(json.loads(path.read_text()), list)
    kept = {"owner": "team-a", "sync": {"etag": "w/1", "peers": [1, 2]}}
    assert json.loads(store.keys_path.read_text()) == kept and _mode(store.keys_path) == 0o600
    assert MemoryStore(path).top_level_keys() == kept
    entries = json.loads(path.read_text())
    path.write_text(json.dumps({"schema_version": 1, "entries": entries, "owner": "team-b",
                                "x": 1}))
    store.add(_entry("fact four"))
    assert MemoryStore(path).top_level_keys() == kept | {"owner": "team-b", "x": 1}


def test_schema_version_as_a_string_is_not_read_as_1(tmp_path: Path) -> None:
    path, store = _store(tmp_path)
    path.write_text(json.dumps({"schema_version": "2", "entries": [_entry("x").to_dict()]}))
    assert [e.content for e in store.entries()] == ["x"]
    with pytest.raises(NewerFileError):
        store.add(_entry("y"))


def test_newer_schema_still_lists(tmp_path: Path) -> None:
    path, store = _store(tmp_path)
    text = json.dumps({"schema_version": 99, "entries": [_entry("from the future").to_dict()]})
    path.write_text(text)
    assert [e.content for e in store.entries()] == ["from the future"]
    with pytest.raises(NewerFileError, match="Upgrade"):
        store.add(_entry("y"))
    assert path.read_text() == text


def test_symlinked_store_is_written_through(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "memories.json"
    real.parent.mkdir()
    real.write_text("[]")
    link = tmp_path / "long_term_memory.json"
    link.symlink_to(real)
    MemoryStore(link).add(_entry("through the link"))
    assert link.is_symlink()
    assert json.loads(real.read_text())[0]["content"] == "through the link"


@pytest.mark.parametrize("kind", ["dev_zero_link", "fifo"])
def test_non_regular_store_is_refused_without_hanging(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "long_term_memory.json"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    outcome: list[BaseException | list] = []

    def read() -> None:
        try:
            outcome.append(MemoryStore(path).entries())
        except BaseException as exc:  # noqa: BLE001 - inspected below
            outcome.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(30)
    assert not reader.is_alive(), "reading the store hung"
    assert isinstance(outcome[0], MemoryFileError) and "not a regular file" in str(outcome[0])
    with pytest.raises(MemoryFileError):
        MemoryStore(path).add(_entry("x"))


def test_store_lock_and_tmp_are_0600(tmp_path: Path) -> None:
    os.umask(0o022)
    path, store = _store(tmp_path)
    path.write_text("[]")
    os.chmod(path, 0o644)
    store.add(_entry("private"))
    assert _mode(path) == 0o600 and _mode(store.lock_path) == 0o600


def test_written_file_is_the_reference_shape(tmp_path: Path) -> None:
    path, store = _store(tmp_path)
    entry = _entry("we use Maven").evolve(source_file="pom.xml", extra={"k": "v"})
    store.add(entry)
    (row,) = json.loads(path.read_text())
    assert list(row) == ["id", "content", "type", "timestamp", "lastVerifiedAt", "metadata",
                         "tokenCount"]
    assert row["type"] == "FACT" and row["timestamp"].endswith("Z")
    assert datetime.fromisoformat(row["lastVerifiedAt"].replace("Z", "+00:00"))
    assert all(isinstance(v, str) for v in row["metadata"].values())
    assert row["metadata"]["source_file"] == "pom.xml" and row["metadata"]["k"] == "v"


def test_a_file_the_reference_wrote_is_read_and_kept(tmp_path: Path) -> None:
    path, store = _store(tmp_path)
    theirs = [{"id": "r-1", "content": "团队统一使用 Java 21", "type": "PREFERENCE",
               "timestamp": "2026-10-01T08:30:00Z", "lastVerifiedAt": "2026-10-02T08:30:00Z",
               "metadata": {"scope": "global", "source": "explicit", "sessionId": "abc"},
               "tokenCount": 9}]
    path.write_text(json.dumps(theirs, ensure_ascii=False))
    (entry,) = store.entries()
    assert entry.type == "preference" and entry.is_global and entry.token_count == 9
    store.add(_entry("ours"))
    written = json.loads(path.read_text())
    mine, original = dict(written[0]), dict(theirs[0])
    # every field the reference wrote comes back unchanged (we may add our own metadata)
    assert mine.pop("metadata").items() >= original.pop("metadata").items()
    assert mine == original
    assert not list(tmp_path.glob("*.v1-backup-*"))  # already the shared shape


def test_old_shape_is_converted_on_first_write_with_a_backup(tmp_path: Path) -> None:
    path, store = _store(tmp_path)
    old = json.dumps({"schema_version": 1, "entries": [_entry("old fact").to_dict()]})
    path.write_text(old)
    assert [e.content for e in store.entries()] == ["old fact"]
    assert path.read_text() == old  # reading converts nothing
    store.add(_entry("new fact"))
    assert [r["content"] for r in json.loads(path.read_text())] == ["old fact", "new fact"]
    assert [b.read_text() for b in tmp_path.glob("*.v1-backup-*")] == [old]


def test_planted_tool_outputs_symlink_never_writes_outside(tmp_path: Path, settings) -> None:
    from paicli_tui.core.context.offload import offload_tool_result
    from paicli_tui.core.contracts.session_state import SessionState
    from paicli_tui.paths import ProjectPaths

    project = tmp_path / "project"
    elsewhere = tmp_path / "elsewhere"
    (project / ".paicli").mkdir(parents=True)
    elsewhere.mkdir()
    (project / ".paicli" / "tool-outputs").symlink_to(elsewhere)
    result = offload_tool_result(
        tool_name="execute_command", content="x" * 50_000, arguments={},
        project=ProjectPaths.for_dir(project), session=SessionState("s1"), settings=settings,
        is_command=True)
    assert list(elsewhere.rglob("*")) == []
    assert result.truncated and result.offload_path is None


def test_offloaded_outputs_are_0600(tmp_path: Path, settings) -> None:
    from paicli_tui.core.context.offload import offload_tool_result
    from paicli_tui.core.contracts.session_state import SessionState
    from paicli_tui.paths import ProjectPaths

    os.umask(0o022)
    project = tmp_path / "project"
    project.mkdir()
    result = offload_tool_result(
        tool_name="execute_command", content="y" * 50_000, arguments={},
        project=ProjectPaths.for_dir(project), session=SessionState("s1"), settings=settings,
        is_command=True)
    assert result.offload_path
    assert _mode(project / result.offload_path) == 0o600
