"""A day-long session's ledger: what reading it costs must not grow with every message.

The context inspector (F4) and a resumed sub-agent read a session's compaction history; a
day's file holds tens of MB of messages, and each look used to decode every line of it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paicli_tui.core.context import ledger_read
from paicli_tui.core.context.ledger import SessionLedger
from paicli_tui.core.messages import Message, ToolCall
from paicli_tui.paths import HomePaths


@pytest.fixture
def home(paicli_home: Path) -> HomePaths:
    return HomePaths(paicli_home)


class CountingLoads:
    """json.loads as the ledger reader calls it, counting the lines it decodes."""

    def __init__(self) -> None:
        self.calls = 0
        self._loads = json.loads

    def __call__(self, text: str | bytes, *args: object, **kwargs: object) -> object:
        self.calls += 1
        return self._loads(text, *args, **kwargs)


def one_turn(turn: int) -> tuple[Message, ...]:
    call = ToolCall(f"c{turn}", "read_file", json.dumps({"path": f"src/f{turn}.py"}))
    return (Message.user(f"turn {turn}"), Message.assistant("", [call]),
            Message.tool(call.id, "read_file", "x = 1\n" * 20), Message.assistant(f"done {turn}"))


def long_ledger(home: HomePaths, project: Path, turns: int) -> SessionLedger:
    """``turns`` turns of four messages; a compaction event every 50 turns; two messages
    that merely mention a compaction (in their text, and as a field of their meta)."""
    ledger = SessionLedger.create(home, project)
    ledger.append(Message.system("sys"))
    for turn in range(1, turns + 1):
        for message in one_turn(turn):
            ledger.append(message)
        if turn % 50 == 0:
            ledger.event("compaction", tier="summary", tokens_before=turn, tokens_after=1)
    ledger.append(Message.user('my notes say {"kind":"compaction"} somewhere'))
    ledger.append(Message.assistant("ok").evolve(meta={"kind": "compaction"}))
    return ledger


def test_compaction_history_decodes_only_the_lines_naming_a_compaction(
        home: HomePaths, project_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = long_ledger(home, project_dir, 300)
    lines = len(ledger.path.read_bytes().splitlines())
    counting = CountingLoads()
    monkeypatch.setattr(ledger_read.json, "loads", counting)
    history = ledger.compaction_history()
    assert [e["tokens_before"] for e in history] == [50, 100, 150, 200, 250, 300]
    assert lines > 1_200
    # the six events and the message whose meta holds the same key and value; not the
    # 1,200 others (the text's quotes are escaped in the file, so it is not even looked at)
    assert counting.calls == 7


def test_compaction_history_reads_a_hand_edited_line_and_skips_a_torn_one(
        home: HomePaths, project_dir: Path) -> None:
    ledger = long_ledger(home, project_dir, 50)
    with ledger.path.open("ab") as handle:
        handle.write(b'{"type": "event", "kind" : "compaction", "tier": "clearing"}\n')
        handle.write(b'{"type":"event","kind":"compaction","tier":"sum')  # torn by a crash
    assert [e["tier"] for e in ledger.compaction_history()] == ["summary", "clearing"]


def test_compaction_history_of_a_deferred_session_is_read_from_memory(
        home: HomePaths, project_dir: Path) -> None:
    ledger = SessionLedger.create(home, project_dir, deferred=True)
    ledger.event("model", provider="p", model="m", window=1)
    assert not ledger.path.exists() and ledger.compaction_history() == []


def compacting_ledger(home: HomePaths, project: Path, turns: int, every: int,
                      full_min_bytes: int) -> SessionLedger:
    """A session whose view is summarised every ``every`` turns (the compaction event, the
    summary appended, the new view recorded, as the session writes them)."""
    ledger = SessionLedger.create(home, project)
    ledger.full_min_bytes = full_min_bytes
    system = Message.system("sys")
    view = [system]
    ledger.append(system)
    for turn in range(1, turns + 1):
        for message in one_turn(turn):
            ledger.append(message)
            view.append(message)
            ledger.checkpoint(view, "append")
        if turn % every == 0:
            ledger.event("compaction", tier="summary", tokens_before=turn, tokens_after=1)
            summary = Message.user(f"summary up to turn {turn}")
            ledger.append(summary)
            view = [system, summary, *view[-4:]]
            ledger.checkpoint(view, "compaction")
    return ledger


def view_before_by_reading_everything(ledger: SessionLedger) -> list[dict]:
    """The reference: the whole file read from the top up to the last compaction."""
    with ledger.path.open("rb") as handle:
        total = len(ledger_read.read_events(handle, "compaction"))
    seen = [0]

    def at_last(record: dict) -> bool:
        if record.get("type") == "event" and record.get("kind") == "compaction":
            seen[0] += 1
        return seen[0] == total

    with ledger.path.open("rb") as handle:
        return ledger_read.read_ledger(handle, tail=False, stop=at_last).view


def test_the_view_before_the_last_compaction_is_read_from_a_checkpoint_near_it(
        home: HomePaths, project_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inspector `r` (restore the view before the last compaction) read the whole file
    from the top, twice; now it decodes the compaction events and the lines from the last
    full checkpoint before the last one."""
    ledger = compacting_ledger(home, project_dir, 300, 40, 64 * 1024)
    lines = len(ledger.path.read_bytes().splitlines())
    expected = view_before_by_reading_everything(ledger)
    counting = CountingLoads()
    monkeypatch.setattr(ledger_read.json, "loads", counting)
    before = ledger.checkpoint_before_last_compaction()
    assert [m.to_record(strip_images=True) for m in before] == expected
    assert before[-1].content == "done 280" and len(before) == 6 + 40 * 4
    # a read from the top decodes the ~1,150 lines before the event; from the last full
    # checkpoint before it, 234 today (the events, and that checkpoint's tail)
    assert lines > 1_200 and counting.calls < lines // 4


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(turns=st.integers(1, 60), every=st.integers(1, 12),
       full_min_bytes=st.sampled_from([1, 3_000, 20_000, 10**9]))
def test_the_view_before_the_last_compaction_matches_a_read_of_the_whole_file(
        turns: int, every: int, full_min_bytes: int, tmp_path_factory) -> None:
    root = tmp_path_factory.mktemp("ledger")
    home = HomePaths(root / "home")
    (root / "project").mkdir()
    ledger = compacting_ledger(home, root / "project", turns, every, full_min_bytes)
    before = ledger.checkpoint_before_last_compaction()
    if turns < every:
        assert before is None
        return
    assert [m.to_record(strip_images=True) for m in before] == \
        view_before_by_reading_everything(ledger)
