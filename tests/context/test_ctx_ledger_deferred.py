"""A new session writes nothing until its first message: a launch closed without a word leaves
no file (and no lock) behind, and what was recorded before the message is all there after it."""

from __future__ import annotations

from paicli_tui.core.context.ledger import SessionLedger, list_sessions
from paicli_tui.core.messages import Message


def files(home) -> list[str]:
    folder = home.history_raw_dir
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_deferred_ledger_keeps_records_in_memory_until_the_first_message(paicli_home,
                                                                          project_dir) -> None:
    from paicli_tui.paths import HomePaths

    home = HomePaths(paicli_home)
    ledger = SessionLedger.create(home, project_dir, deferred=True)
    ledger.append(Message.system("You are paicli-tui."))
    ledger.event("model", provider="p", model="m", window=1000)
    assert not ledger.written and files(home) == []
    # reading a deferred ledger reads what it kept (the inspector may ask before a message)
    assert [m.content for m in ledger.restore().messages] == ["You are paicli-tui."]
    assert ledger.compaction_history() == []
    ledger.append(Message.user("hello"))
    assert ledger.written
    assert files(home) == [f"{ledger.session_id}.jsonl", f"{ledger.session_id}.lock"]
    ledger.append(Message.assistant("hi"))
    ledger.close()
    again = SessionLedger.open(home, ledger.session_id).restore()
    assert [m.content for m in again.messages] == ["You are paicli-tui.", "hello", "hi"]
    assert again.title == "hello"
    assert [i.session_id for i in list_sessions(home)] == [ledger.session_id]


def test_a_closed_deferred_ledger_leaves_nothing(paicli_home, project_dir) -> None:
    from paicli_tui.paths import HomePaths

    home = HomePaths(paicli_home)
    ledger = SessionLedger.create(home, project_dir, deferred=True)
    ledger.append(Message.system("s"))
    ledger.close()
    assert files(home) == [] and list_sessions(home, include_empty=True) == []


def test_an_old_launch_with_only_the_system_prompt_is_not_listed(paicli_home,
                                                                 project_dir) -> None:
    """Files written by older versions at every launch: untitled, one (system) message."""
    from paicli_tui.paths import HomePaths

    home = HomePaths(paicli_home)
    old = SessionLedger.create(home, project_dir)
    old.append(Message.system("s"))
    old.close()
    assert list_sessions(home) == []
    assert [i.session_id for i in list_sessions(home, include_empty=True)] == [old.session_id]


def test_an_event_past_the_launch_writes_the_file(paicli_home, project_dir) -> None:
    """A plan started from an empty chat records events before any message: those give the
    session its file (so it can be resumed); the launch's own model event does not."""
    from paicli_tui.paths import HomePaths

    home = HomePaths(paicli_home)
    ledger = SessionLedger.create(home, project_dir, deferred=True)
    ledger.append(Message.system("s"))
    ledger.event("model", provider="p", model="m", window=1000)
    assert not ledger.written
    ledger.event("plan_proposed", plan={"tasks": []})
    assert ledger.written and ledger.path.exists()
    ledger.close()
    kinds = [r.get("kind") for r in map(__import__("json").loads,
                                        ledger.path.read_text().splitlines())]
    assert kinds[-2:] == ["model", "plan_proposed"]
