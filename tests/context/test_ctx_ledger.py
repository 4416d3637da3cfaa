"""Session ledger (behaviour §7): append-only, checkpoints, resume, torn and corrupt lines."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paicli_tui.core.context.ledger import (
    LedgerError,
    SessionLedger,
    list_sessions,
)
from paicli_tui.core.context.pairing import pairing_problems
from paicli_tui.core.messages import ImagePart, InternalKind, Message, ToolCall
from paicli_tui.core.tokens import estimate_request
from paicli_tui.paths import HomePaths


@pytest.fixture
def home(paicli_home: Path) -> HomePaths:
    return HomePaths(paicli_home)


def _lines(ledger: SessionLedger) -> list[dict]:
    return [json.loads(line) for line in ledger.path.read_text(encoding="utf-8").splitlines()]


def test_records_have_schema_version_and_type(home: HomePaths, project_dir: Path) -> None:
    ledger = SessionLedger.create(home, project_dir)
    ledger.append(Message.system("sys"))
    ledger.append(Message.user("hello"))
    ledger.checkpoint([Message.system("sys")], "test")
    ledger.event("usage", prompt_tokens=10)
    records = _lines(ledger)
    assert all(r["schema_version"] == 2 and "ts" in r for r in records)
    assert [r["type"] for r in records] == ["session", "message", "message", "event",
                                            "view_checkpoint", "event"]
    assert records[4]["full"] is True  # the first checkpoint of a session is a full one
    assert records[4]["state"] == {"messages": 2, "title": "hello",
                                   "external_content_used": False}
    assert records[0]["project"] == str(project_dir.resolve())
    assert ledger.path == home.history_raw_dir / f"{ledger.session_id}.jsonl"


def test_title_from_first_real_user_message(home: HomePaths, project_dir: Path) -> None:
    ledger = SessionLedger.create(home, project_dir)
    ledger.append(Message.user("skill text", internal=InternalKind.SKILL))
    ledger.append(Message.user("请帮我重构  登录模块\n" + "x" * 100))
    ledger.append(Message.user("second"))
    restored = SessionLedger.open(home, ledger.session_id).restore()
    assert restored.title.startswith("请帮我重构 登录模块 x") and len(restored.title) == 60
    assert sum(1 for r in _lines(ledger) if r.get("kind") == "title") == 1


def test_restore_is_last_checkpoint_plus_later_messages(home: HomePaths,
                                                        project_dir: Path) -> None:
    ledger = SessionLedger.create(home, project_dir, title="t")
    sys_msg, u1, a1 = Message.system("s"), Message.user("one"), Message.assistant("r1")
    for m in (sys_msg, u1, a1):
        ledger.append(m)
    ledger.checkpoint([sys_msg, u1, a1], "append")
    compacted = [sys_msg, Message.user("summary", internal=InternalKind.SUMMARY),
                 Message.assistant("ok")]
    ledger.checkpoint(compacted, "compaction")
    u2 = Message.user("two")
    ledger.append(u2)
    restored = SessionLedger.open(home, ledger.session_id).restore()
    assert [m.content for m in restored.messages] == ["s", "summary", "ok", "two"]
    assert restored.messages[1].internal is InternalKind.SUMMARY
    assert [m.id for m in restored.messages] == [m.id for m in [*compacted, u2]]
    assert restored.warnings == [] and restored.title == "t"


def test_changes_record_only_what_changed(home: HomePaths, project_dir: Path) -> None:
    """An append is its own checkpoint; a rewrite records the replaced range and the new
    entries (refs for messages the file already holds)."""
    ledger = SessionLedger.create(home, project_dir)
    sys_msg = Message.system("s")
    ledger.append(sys_msg)
    ledger.checkpoint([sys_msg], "append")  # first checkpoint: full
    big = Message.user("b" * 10_000)
    ledger.append(big)
    size = ledger.path.stat().st_size
    ledger.checkpoint([sys_msg, big], "append")
    assert ledger.path.stat().st_size == size  # the append implied it
    cleared = big.evolve(content="cleared")
    ledger.checkpoint([sys_msg, cleared], "clearing")
    ledger.checkpoint([sys_msg, cleared], "again")  # nothing changed: nothing written
    summary = Message.user("S", internal=InternalKind.SUMMARY)
    ledger.append(summary)
    ledger.checkpoint([sys_msg, summary], "compaction")
    changes = [r for r in _lines(ledger) if r["type"] == "view_change"]
    assert [(c["reason"], c["base"], c["splices"]) for c in changes] == [
        ("clearing", 2, [[1, 2, [cleared.to_record()]]]),
        ("compaction", 3, [[1, 2, []]]),
    ]
    restored = SessionLedger.open(home, ledger.session_id).restore()
    assert [m.content for m in restored.messages] == ["s", "S"]
    ledger.checkpoint([sys_msg, cleared, summary], "undo")
    assert _lines(ledger)[-1]["splices"] == [[1, 1, [{"ref": cleared.id}]]]
    restored = SessionLedger.open(home, ledger.session_id).restore()
    assert [m.content for m in restored.messages] == ["s", "cleared", "S"]


def test_images_are_stripped_from_checkpoints(home: HomePaths, project_dir: Path) -> None:
    ledger = SessionLedger.create(home, project_dir)
    msg = Message.user("look", images=[ImagePart(data_base64="AAAA" * 1000)])
    ledger.append(msg)
    ledger.checkpoint([msg], "append")
    checkpoint = _lines(ledger)[-1]
    assert "AAAA" not in json.dumps(checkpoint)
    assert checkpoint["messages"][0]["images_stripped"] == 1


def test_torn_and_corrupt_lines_are_skipped(home: HomePaths, project_dir: Path) -> None:
    ledger = SessionLedger.create(home, project_dir)
    u1, u2 = Message.user("one"), Message.user("two")
    ledger.append(u1)
    ledger.checkpoint([u1], "append")
    with ledger.path.open("ab") as f:
        f.write(b'{"schema_version":1,"type":"message","message":{"id":"x", garbage\n')
    ledger.append(u2)
    with ledger.path.open("ab") as f:
        f.write(b'{"schema_version":1,"type":"mess')  # torn last line
    before = ledger.path.read_bytes()
    reopened = SessionLedger.open(home, ledger.session_id)
    restored = reopened.restore()
    assert [m.content for m in restored.messages] == ["one", "two"]
    assert len(restored.warnings) == 2 and all("skipped" in w for w in restored.warnings)
    # appending after a torn line does not glue the new record to it
    reopened.append(Message.user("three"))
    assert reopened.path.read_bytes().startswith(before)
    again = SessionLedger.open(home, ledger.session_id).restore()
    assert [m.content for m in again.messages] == ["one", "two", "three"]


def test_newer_schema_is_read_and_never_rewritten(home: HomePaths, project_dir: Path) -> None:
    ledger = SessionLedger.create(home, project_dir)
    ledger.append(Message.user("one"))
    with ledger.path.open("ab") as f:
        f.write(json.dumps({"schema_version": 7, "type": "hologram", "x": 1}).encode() + b"\n")
        f.write(json.dumps({"schema_version": 7, "type": "message",
                            "message": {"id": "m2", "role": "assistant", "content": "hi",
                                        "future": True}}).encode() + b"\n")
    before = ledger.path.read_bytes()
    restored = SessionLedger.open(home, ledger.session_id).restore()
    assert [m.content for m in restored.messages] == ["one", "hi"]
    assert any("newer" in w for w in restored.warnings)
    assert ledger.path.read_bytes() == before


def test_orphans_in_loaded_session_are_repaired(home: HomePaths, project_dir: Path) -> None:
    ledger = SessionLedger.create(home, project_dir)
    ledger.append(Message.user("go"))
    ledger.append(Message.assistant(tool_calls=[ToolCall("c1", "read_file", "{}")]))
    ledger.append(Message.tool("zz", "read_file", "orphan"))
    restored = SessionLedger.open(home, ledger.session_id).restore()
    assert pairing_problems(restored.messages) == []
    assert restored.messages[-1].tool_call_id == "c1"
    assert any("orphan" in w or "answers no" in w for w in restored.warnings)


def test_compaction_history_and_checkpoint_before(home: HomePaths, project_dir: Path) -> None:
    ledger = SessionLedger.create(home, project_dir)
    assert ledger.checkpoint_before_last_compaction() is None
    msgs = [Message.user("a"), Message.assistant("b"), Message.user("c")]
    for m in msgs:
        ledger.append(m)
    ledger.checkpoint(msgs, "append")
    ledger.event("compaction", tier="summary", tokens_before=100, tokens_after=10)
    ledger.checkpoint([Message.user("S", internal=InternalKind.SUMMARY), msgs[2]], "compaction")
    history = ledger.compaction_history()
    assert [h["tier"] for h in history] == ["summary"] and history[0]["tokens_before"] == 100
    before = ledger.checkpoint_before_last_compaction()
    assert [m.content for m in before] == ["a", "b", "c"]


def test_bad_session_ids(home: HomePaths) -> None:
    with pytest.raises(LedgerError, match="valid session id"):
        SessionLedger.open(home, "../../etc/passwd")
    with pytest.raises(LedgerError, match="no session"):
        SessionLedger.open(home, "nope")


def test_list_sessions_newest_first(home: HomePaths, project_dir: Path, tmp_path: Path) -> None:
    assert list_sessions(home) == []
    other = tmp_path / "other"
    other.mkdir()
    first = SessionLedger.create(home, project_dir)
    first.append(Message.user("first task"))
    second = SessionLedger.create(home, other)
    second.append(Message.user("second task"))
    second.append(Message.assistant("done"))
    os.utime(first.path, (time.time() - 100, time.time() - 100))
    infos = list_sessions(home)
    assert [i.session_id for i in infos] == [second.session_id, first.session_id]
    assert infos[0].title == "second task" and infos[0].message_count == 2
    mine = list_sessions(home, project_dir)
    assert [i.session_id for i in mine] == [first.session_id]


def test_sessions_without_messages_are_not_listed(home: HomePaths, project_dir: Path) -> None:
    """Opening the app and quitting leaves nothing to resume, so it is not offered."""
    empty = SessionLedger.create(home, project_dir)
    used = SessionLedger.create(home, project_dir)
    used.append(Message.user("real work"))
    assert [i.session_id for i in list_sessions(home)] == [used.session_id]
    listed = {i.session_id for i in list_sessions(home, include_empty=True)}
    assert listed == {empty.session_id, used.session_id}


WRITER = r"""
import sys
from pathlib import Path
from paicli_tui.core.context.ledger import SessionLedger
from paicli_tui.core.messages import Message, ToolCall
from paicli_tui.paths import HomePaths
ledger = SessionLedger.create(HomePaths(Path(sys.argv[1])), Path(sys.argv[2]))
print(ledger.session_id, flush=True)
view = [Message.system("sys")]
i = 0
while True:
    i += 1
    new = [Message.user(f"turn {i}"),
           Message.assistant(tool_calls=[ToolCall(f"c{i}", "read_file", "{}")]),
           Message.tool(f"c{i}", "read_file", "r" * 5000), Message.assistant(f"answer {i}")]
    for m in new:
        ledger.append(m)
        view.append(m)
        ledger.checkpoint(view[-50:], "append")
"""


@pytest.mark.slow
def test_writer_killed_mid_append(home: HomePaths, project_dir: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(home.home), str(project_dir)],
                            stdout=subprocess.PIPE, text=True)
    try:
        session_id = proc.stdout.readline().strip()
        path = home.session_ledger(session_id)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and path.stat().st_size < 2_000_000:
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    restored = SessionLedger.open(home, session_id).restore()
    assert len(restored.messages) >= 10
    assert pairing_problems(restored.messages) == []
    assert all("skipped" in w or "repaired" in w for w in restored.warnings)
    turns = [m.content for m in restored.messages if m.role.value == "user"]
    numbers = [int(t.split()[1]) for t in turns]
    assert numbers == sorted(numbers) and numbers == list(range(numbers[0], numbers[-1] + 1))


@pytest.mark.parametrize("bad", [
    {"id": "b1", "role": "user", "content": 5},
    {"id": "b2", "role": "user", "content": ["a", "list"]},
    {"id": "b3", "role": "wizard", "content": "x"},
    {"id": "b4", "role": "assistant", "content": "", "tool_calls": ["not-a-dict"]},
    {"id": "b5", "role": "assistant", "content": "", "tool_calls": [
        {"id": "c", "name": "read_file", "arguments": {"path": "a"}}]},
    {"id": "b6", "role": "tool", "content": "r", "tool_call_id": 7},
    {"id": "b7", "role": "user", "content": "x", "meta": "not a mapping"},
    "just a string",
])
def test_hand_edited_message_records_are_left_out_with_a_warning(
        home: HomePaths, project_dir: Path, bad: object) -> None:
    # Issue #2 "bad input": a record of the wrong shape is reported, never crashes a later
    # estimate or request, and the good messages around it survive.
    ledger = SessionLedger.create(home, project_dir)
    ledger.append(Message.user("before"))
    ledger._write({"type": "message", "message": bad})
    ledger.append(Message.user("after"))
    restored = SessionLedger.open(home, ledger.session_id).restore()
    contents = [m.content for m in restored.messages]
    assert contents[0] == "before" and contents[-1] == "after"
    assert all(isinstance(m.content, str) for m in restored.messages)
    estimate_request(restored.messages)  # never raises
    assert contents == ["before", "after"]
