"""A day-long session's ledger: what reading it costs must not grow with every message.

The context inspector (F4) and a resumed sub-agent read a session's compaction history; a
day's file holds tens of MB of messages, and each look used to decode every line of it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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


def long_ledger(home: HomePaths, project: Path, turns: int) -> SessionLedger:
    """``turns`` turns of four messages; a compaction event every 50 turns; two messages
    that merely mention a compaction (in their text, and as a field of their meta)."""
    ledger = SessionLedger.create(home, project)
    ledger.append(Message.system("sys"))
    for turn in range(1, turns + 1):
        call = ToolCall(f"c{turn}", "read_file", json.dumps({"path": f"src/f{turn}.py"}))
        for message in (Message.user(f"turn {turn}"), Message.assistant("", [call]),
                        Message.tool(call.id, "read_file", "x = 1\n" * 20),
                        Message.assistant(f"done {turn}")):
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
