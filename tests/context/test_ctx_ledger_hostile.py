"""The ledger under contention and hostile files (issue 13's ledger items), with real
processes: a session in use is refused to a second process, unknown view records fall back
to the raw messages, non-regular files never hang `sessions`, odd field types never reach
`sessions --json`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paicli_tui.core.context.ledger import LedgerBusy, LedgerError, SessionLedger
from paicli_tui.core.messages import Message
from paicli_tui.paths import HomePaths

HOLDER = r"""
import sys, time
from pathlib import Path
from paicli_tui.core.context.ledger import SessionLedger
from paicli_tui.core.messages import Message
from paicli_tui.paths import HomePaths
home = HomePaths(Path(sys.argv[1]))
ledger = SessionLedger.open(home, sys.argv[2], claim=True)
ledger.append(Message.user("held"))
print("holding", flush=True)
sys.stdin.read()
"""

RACER = r"""
import sys, time
from pathlib import Path
from paicli_tui.core.context.ledger import LedgerBusy, SessionLedger
from paicli_tui.core.messages import Message
from paicli_tui.paths import HomePaths
home = HomePaths(Path(sys.argv[1]))
Path(f"{sys.argv[3]}.{sys.argv[4]}-ready").touch()
while not Path(sys.argv[3]).exists():
    time.sleep(0.005)
try:
    ledger = SessionLedger.open(home, sys.argv[2], claim=True)
except LedgerBusy as exc:
    print("BUSY", exc, flush=True)
    sys.exit(0)
history = list(ledger.restore().messages)
for i in range(40):
    message = Message.user(f"{sys.argv[4]} {i}")
    ledger.append(message)
    history.append(message)
    ledger.checkpoint(history[-8:], "append")
    time.sleep(0.01)
print("WROTE", flush=True)
"""


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PAICLI_") and not k.endswith("_API_KEY")}
    env["PAICLI_HOME"] = str(home)
    return env


def _session(home: HomePaths, project: Path) -> str:
    ledger = SessionLedger.create(home, project)
    ledger.append(Message.system("sys"))
    ledger.append(Message.user("first task"))
    ledger.checkpoint([Message.system("other")], "append")
    ledger.close()
    return ledger.session_id


@pytest.mark.slow
def test_resuming_a_session_open_in_another_process_is_refused(
        paicli_home: Path, project_dir: Path) -> None:
    home = HomePaths(paicli_home)
    session = _session(home, project_dir)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(paicli_home), session],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env=_env(paicli_home))
    try:
        assert holder.stdout.readline().strip() == "holding"
        env = _env(paicli_home) | {"PAICLI_API_KEY": "sk-test-not-used-0123456789"}
        refused = subprocess.run(
            [sys.executable, "-m", "paicli_tui", "exec", "--provider", "custom",
             "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--resume", session,
             "go on"], cwd=project_dir, env=env, capture_output=True, text=True, timeout=60)
        assert refused.returncode == 2
        assert f"session {session} is open in another paicli-tui process " \
               f"(pid {holder.pid})" in refused.stderr
        assert "sk-test" not in refused.stderr + refused.stdout
        with pytest.raises(LedgerBusy, match=f"pid {holder.pid}"):
            SessionLedger.open(home, session, claim=True)
        # reading (the listing, the context inspector) is never refused
        assert SessionLedger.open(home, session).restore().messages[-1].content == "held"
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    # a crashed holder leaves no stale lock
    ledger = SessionLedger.open(home, session, claim=True)
    ledger.close()


@pytest.mark.slow
def test_two_processes_racing_for_one_session(paicli_home: Path, project_dir: Path,
                                             tmp_path: Path) -> None:
    home = HomePaths(paicli_home)
    session = _session(home, project_dir)
    go = tmp_path / "go"
    racers = [subprocess.Popen([sys.executable, "-c", RACER, str(paicli_home), session,
                                str(go), name], stdout=subprocess.PIPE, text=True,
                               env=_env(paicli_home)) for name in ("left", "right")]
    # both imported and waiting for the start signal: a racer that came late to a loaded
    # machine found the other done and the session free, and both wrote
    ready = [tmp_path / f"go.{name}-ready" for name in ("left", "right")]
    deadline = time.monotonic() + 120
    while not all(path.exists() for path in ready):
        assert time.monotonic() < deadline and all(r.poll() is None for r in racers)
        time.sleep(0.05)
    go.touch()
    outputs = [r.communicate(timeout=60)[0] for r in racers]
    assert sorted(o.split()[0] for o in outputs) == ["BUSY", "WROTE"]
    winner = "left" if outputs[0].startswith("WROTE") else "right"
    restored = SessionLedger.open(home, session).restore()
    assert restored.warnings == []
    assert [m.content for m in restored.messages] == [f"{winner} {i}" for i in range(32, 40)]


def _schema1(home: HomePaths, project: Path, checkpoint: dict) -> SessionLedger:
    """A schema-1 file: two messages, then a checkpoint record of some shape, then one more."""
    ledger = SessionLedger.create(home, project)
    lines = [{"schema_version": 1, "type": "message",
              "message": {"id": "m1", "role": "user", "content": "one"}},
             {"schema_version": 1, "type": "message",
              "message": {"id": "m2", "role": "assistant", "content": "two"}},
             {"schema_version": 1, "type": "view_checkpoint", **checkpoint},
             {"schema_version": 1, "type": "message",
              "message": {"id": "m3", "role": "user", "content": "three"}}]
    with ledger.path.open("ab") as handle:
        for line in lines:
            handle.write(json.dumps(line).encode() + b"\n")
    return ledger


@pytest.mark.parametrize("checkpoint", [
    {"messages": "everything"},
    {"messages": {"m1": {"role": "user"}}},
    {"messages": [1, 2, 3]},
    {"delta": [[0, 1]]},
    {"messages": None},
], ids=["string", "mapping", "numbers", "no-messages", "null"])
def test_unknown_checkpoint_formats_fall_back_to_the_raw_messages(
        paicli_home: Path, project_dir: Path, checkpoint: dict) -> None:
    home = HomePaths(paicli_home)
    ledger = _schema1(home, project_dir, checkpoint)
    restored = SessionLedger.open(home, ledger.session_id).restore()
    assert [m.content for m in restored.messages] == ["one", "two", "three"]
    assert restored.warnings == ["line 4: a checkpoint in a format this version does not "
                                 "know; the view continues from the messages recorded"]


@pytest.mark.parametrize("change", [
    {"base": 2, "splices": [[0, 5, []]]},           # past the end
    {"base": 2, "splices": [[1, 0, []]]},           # backwards
    {"base": 2, "splices": [[1, 2, []], [0, 1, []]]},  # not ascending
    {"base": 7, "splices": [[0, 1, []]]},           # written against another view
    {"base": 2, "splices": "drop all"},
    {"base": 2, "splices": [["0", "1", []]]},
    {"base": 2, "splices": [[True, 1, []]]},
], ids=["past-end", "backwards", "unordered", "other-base", "string", "text-ints",
        "bool-ints"])
def test_damaged_view_changes_are_skipped(paicli_home: Path, project_dir: Path,
                                          change: dict) -> None:
    home = HomePaths(paicli_home)
    ledger = SessionLedger.create(home, project_dir)
    ledger.append(Message.user("one"))
    ledger.append(Message.assistant("two"))
    ledger._write({"type": "view_change", "reason": "x", **change})
    ledger.append(Message.user("three"))
    restored = SessionLedger.open(home, ledger.session_id).restore()
    assert [m.content for m in restored.messages] == ["one", "two", "three"]
    assert len(restored.warnings) == 1 and "cannot apply" in restored.warnings[0]


LISTER = r"""
import json, sys
from pathlib import Path
from paicli_tui.core.context.ledger import LedgerError, SessionLedger
from paicli_tui.paths import HomePaths
home = HomePaths(Path(sys.argv[1]))
for name in sys.argv[2:]:
    try:
        SessionLedger.open(home, name)
    except LedgerError as exc:
        print(json.dumps(str(exc)))
"""


@pytest.mark.slow
def test_non_regular_files_in_the_history_folder_are_skipped(
        paicli_home: Path, project_dir: Path) -> None:
    home = HomePaths(paicli_home)
    session = _session(home, project_dir)
    raw = home.history_raw_dir
    os.mkfifo(raw / "fifo-session.jsonl")
    (raw / "zero-session.jsonl").symlink_to("/dev/zero")
    (raw / "dir-session.jsonl").mkdir()
    (raw / "dangling.jsonl").symlink_to(raw / "nowhere")
    listed = subprocess.run([sys.executable, "-m", "paicli_tui", "sessions", "--all",
                             "--json"], env=_env(paicli_home), capture_output=True, text=True,
                            timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert [s["session"] for s in json.loads(listed.stdout)["sessions"]] == [session]
    opened = subprocess.run([sys.executable, "-c", LISTER, str(paicli_home), "fifo-session",
                             "zero-session", "dir-session"], env=_env(paicli_home),
                            capture_output=True, text=True, timeout=60)
    assert [json.loads(line) for line in opened.stdout.splitlines()] == [
        f"session {name!r} is not a regular file"
        for name in ("fifo-session", "zero-session", "dir-session")]


def test_odd_field_types_never_reach_sessions_json(paicli_home: Path, project_dir: Path,
                                                   tmp_path: Path) -> None:
    home = HomePaths(paicli_home)
    raw = home.history_raw_dir
    raw.mkdir(parents=True)
    lines = [{"schema_version": 1, "type": "session", "session_id": "odd", "project": {"a": 1},
              "created": ["2026"], "title": 5},
             {"schema_version": 1, "type": "event", "kind": "title", "title": {"x": 1}},
             {"schema_version": 1, "type": "message",
              "message": {"id": "m1", "role": "user", "content": "hi"}}]
    (raw / "odd-types.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    (raw / "bad name.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    listed = subprocess.run([sys.executable, "-m", "paicli_tui", "sessions", "--all",
                             "--json"], env=_env(paicli_home), capture_output=True, text=True,
                            timeout=60)
    assert listed.returncode == 0, listed.stderr
    [row] = json.loads(listed.stdout)["sessions"]
    assert row["session"] == "odd-types" and row["message_count"] == 1
    assert row["title"] is None and row["created"] is None and row["project"] is None
    assert isinstance(row["updated"], str)
    restored = SessionLedger.open(home, "odd-types").restore()
    assert restored.title is None and restored.project is None
    with pytest.raises(LedgerError, match="valid session id"):
        SessionLedger.open(home, "bad name")


def test_a_ledger_ending_in_a_gigabyte_without_a_line_break_is_listed(
        paicli_home: Path, project_dir: Path) -> None:
    """A crash can leave a file's end full of zeros (no line break in it). The listing
    carried the unfinished line whole and copied it again with every block read: a gigabyte
    ran a process with a gigabyte of memory out of it (and took minutes before that), and
    `paicli-tui sessions` listed nothing. Only a line's head is kept now."""
    home = HomePaths(paicli_home)
    session = _session(home, project_dir)
    path = home.history_raw_dir / f"{session}.jsonl"
    with path.open("ab") as handle:
        handle.truncate(path.stat().st_size + (1 << 30))  # sparse: costs no disk
    limit = 1 << 30
    listed = subprocess.run(
        [sys.executable, "-c",
         f"import resource, sys; resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}));"
         "from paicli_tui.cli import main; sys.exit(main(['sessions', '--all', '--json']))"],
        env=_env(paicli_home), capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr[-2000:]
    [row] = json.loads(listed.stdout)["sessions"]
    assert row["session"] == session and row["message_count"] == 2
