"""Ledger schema 2: changes instead of whole views, full checkpoints now and then, resume from
the last one. The property: any sequence of appends, rewrites, clears and resumes replays to
the view the model saw, exactly as the schema-1 writer's file does, also when the file is
cut after any step (a crash)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ledger_schema1 import SchemaOneLedger

from paicli_tui.core.context.ledger import SessionLedger, list_sessions
from paicli_tui.core.context.ledger_read import open_regular, read_ledger
from paicli_tui.core.messages import ImagePart, InternalKind, Message
from paicli_tui.paths import HomePaths


def _records(messages: list[Message]) -> list[dict]:
    """The view as a resume gives it back (images are never restored, nor their count)."""
    out = []
    for message in messages:
        record = message.to_record(strip_images=True)
        record.pop("images_stripped", None)
        out.append(record)
    return out


class _Writer:
    """One ledger writer and the view its session holds (the model of the property)."""

    def __init__(self, kind: type[SessionLedger], home: HomePaths, project: Path) -> None:
        self.kind, self.home = kind, home
        self.ledger = kind.create(home, project)
        self.ledger.full_min_bytes = 600  # many full checkpoints in a short run
        self.view: list[Message] = []
        self.sizes: list[int] = []
        self.views: list[list[dict]] = []

    def set_view(self, view: list[Message], reason: str) -> None:
        self.view = view
        self.ledger.checkpoint(view, reason)

    def reopen(self) -> None:
        old = self.ledger
        self.ledger = self.kind.open(self.home, old.session_id, claim=True)
        self.ledger.full_min_bytes = 600
        old.close()
        self.view = list(self.ledger.restore().messages)

    def mark(self) -> None:
        self.sizes.append(self.ledger.path.stat().st_size)
        self.views.append(_records(self.view))


_op = st.one_of(
    st.tuples(st.just("append"), st.text(max_size=40), st.booleans()),
    st.tuples(st.just("rewrite"), st.lists(st.sampled_from("keep drop edit".split()),
                                          max_size=30),
              st.integers(0, 3), st.integers(0, 30)),
    st.tuples(st.just("compact"), st.integers(0, 6)),
    st.tuples(st.just("clear")),
    st.tuples(st.just("event")),
    st.tuples(st.just("reopen")),
)


def _apply(writer: _Writer, op: tuple, step: int, shared: dict[str, Message]) -> None:
    kind = op[0]
    if kind == "append":
        message = shared.setdefault(f"a{step}", Message.user(
            op[1] or f"step {step}",
            images=[ImagePart(data_base64="QUJD" * 50)] if op[2] else ()))
        writer.ledger.append(message)
        writer.set_view([*writer.view, message], "append")
    elif kind == "rewrite":
        _, plan, inserts, where = op
        view: list[Message] = []
        for index, message in enumerate(writer.view):
            action = plan[index] if index < len(plan) else "keep"
            if action == "edit":
                view.append(message.evolve(content=f"[cleared at {step}]"))
            elif action == "keep":
                view.append(message)
        new = [shared.setdefault(f"r{step}.{k}", Message.assistant(f"new {step}.{k}"))
               for k in range(inserts)]
        for message in new:
            writer.ledger.append(message)
        at = min(where, len(view))
        writer.set_view(view[:at] + new + view[at:], "prepare")
    elif kind == "compact":
        summary = shared.setdefault(f"s{step}", Message.user(
            f"summary {step}", internal=InternalKind.SUMMARY))
        writer.ledger.event("compaction", tier="summary")
        writer.ledger.append(summary)
        keep = writer.view[-op[1]:] if op[1] else []
        writer.set_view([*writer.view[:1], summary, *keep], "compaction")
    elif kind == "clear":
        writer.set_view(writer.view[:1], "clear")
    elif kind == "event":
        writer.ledger.event("usage", prompt_tokens=step)
    else:
        writer.reopen()
    writer.mark()


def _restored_at(writer: _Writer, size: int, where: Path) -> list[dict]:
    """The view a resume sees when the file ends at ``size`` (a crash after that step)."""
    home = HomePaths(where)
    home.history_raw_dir.mkdir(parents=True, exist_ok=True)
    copy = home.session_ledger(writer.ledger.session_id)
    with writer.ledger.path.open("rb") as handle:
        copy.write_bytes(handle.read(size))
    return _records(SessionLedger.open(home, writer.ledger.session_id).restore().messages)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(ops=st.lists(_op, max_size=30))
def test_schema2_replays_like_schema1(ops: list[tuple]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        one = _Writer(SchemaOneLedger, HomePaths(root / "one"), project)
        two = _Writer(SessionLedger, HomePaths(root / "two"), project)
        shared: dict[str, Message] = {}
        system = Message.system("you are a coding agent")
        for writer in (one, two):
            writer.ledger.append(system)
            writer.set_view([system], "append")
            writer.mark()
        for step, op in enumerate(ops):
            for writer in (one, two):
                _apply(writer, op, step, shared)
        assert two.views == one.views  # the two sessions saw the same thing
        for writer in (one, two):
            restored = SessionLedger.open(writer.home, writer.ledger.session_id).restore()
            assert _records(restored.messages) == writer.views[-1]
            assert restored.warnings == []
        # the tail read (from the last full checkpoint) equals a read from the top
        with open_regular(two.ledger.path) as handle:
            top = read_ledger(handle, tail=False)
        with open_regular(two.ledger.path) as handle:
            tail = read_ledger(handle)
        assert tail.from_tail and tail.view == top.view
        assert tail.message_count == top.message_count
        # a crash after any step resumes the view of that step
        for k, size in enumerate(two.sizes):
            assert _restored_at(two, size, root / f"cut{k}") == two.views[k]
        assert sum(1 for line in two.ledger.path.read_bytes().splitlines()
                   if b'"type":"message"' in line[:80]) == \
            list_sessions(two.home, include_empty=True)[0].message_count


def _long_session(ledger: SessionLedger, turns: int) -> list[Message]:
    view = [Message.system("sys " * 200)]
    ledger.append(view[0])
    ledger.checkpoint(view, "append")
    for turn in range(turns):
        for message in (Message.user(f"turn {turn}: please refactor the login module"),
                        Message.assistant(f"done {turn}: " + "x" * 400)):
            ledger.append(message)
            view.append(message)
            ledger.checkpoint(view, "append")
    return view


def test_ledger_stays_linear(paicli_home: Path, project_dir: Path) -> None:
    """Issue 16's goal: ledger bytes at most 4x the bytes of the messages it records, and
    full checkpoints grow geometrically (a handful, not one per step)."""
    home = HomePaths(paicli_home)
    ledger = SessionLedger.create(home, project_dir)
    view = _long_session(ledger, 1000)
    message_bytes = sum(len(json.dumps(m.to_record(), ensure_ascii=False)) for m in view)
    lines = ledger.path.read_bytes().splitlines()
    fulls = [line for line in lines if line.startswith(b'{"schema_version":2,'
                                                       b'"type":"view_checkpoint"')]
    assert ledger.path.stat().st_size / message_bytes <= 4
    assert 2 <= len(fulls) <= 8


def test_resume_reads_only_from_the_last_full_checkpoint(paicli_home: Path,
                                                         project_dir: Path) -> None:
    """Bytes before the last full checkpoint are not read: damaging them changes nothing
    (and the listing's count comes from the checkpoint's state)."""
    home = HomePaths(paicli_home)
    ledger = SessionLedger.create(home, project_dir)
    view = _long_session(ledger, 600)
    raw = bytearray(ledger.path.read_bytes())
    last_full = raw.rfind(b'\n{"schema_version":2,"type":"view_checkpoint"') + 1
    assert last_full > len(raw) // 3
    first_line = raw.index(b"\n") + 1
    raw[first_line:last_full - 1] = b"#" * (last_full - 1 - first_line)  # not JSON at all
    ledger.path.write_bytes(bytes(raw))
    restored = SessionLedger.open(home, ledger.session_id).restore()
    assert [m.id for m in restored.messages] == [m.id for m in view]
    assert restored.warnings == []
    assert restored.title == "turn 0: please refactor the login module"
    info = list_sessions(home)[0]
    assert info.message_count == len(view) and info.title == restored.title


def test_resumed_schema1_file_continues_in_schema2(paicli_home: Path,
                                                   project_dir: Path) -> None:
    home = HomePaths(paicli_home)
    old = SchemaOneLedger.create(home, project_dir)
    view = _long_session(old, 20)
    old.close()
    ledger = SessionLedger.open(home, old.session_id, claim=True)
    history = list(ledger.restore().messages)
    assert [m.id for m in history] == [m.id for m in view]
    more = Message.user("after the upgrade")
    ledger.append(more)
    ledger.checkpoint([*history, more], "append")
    last = json.loads(ledger.path.read_bytes().splitlines()[-1])
    assert last["schema_version"] == 2 and last.get("full") is True
    restored = SessionLedger.open(home, old.session_id).restore()
    assert [m.id for m in restored.messages] == [*(m.id for m in view), more.id]
    assert list_sessions(home)[0].message_count == len(view) + 1
