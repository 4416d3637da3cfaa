"""behaviour §7 through the agent: every change of the history is recorded in the ledger.

The ledger is read back line by line: the file cut after each message record (an append
implies its checkpoint) resumes to a view ending with that message, and /clear and /compact
each record their change while leaving every earlier line of the file untouched.
"""

from __future__ import annotations

import json

from agent_script import ScriptedClient, Step, call, drain

from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.context.ledger import SessionLedger
from paicli_tui.core.context.ledger_read import open_regular, read_ledger


def _records(session: AgentSession) -> list[dict]:
    return [json.loads(line) for line in session.ledger.path.read_text().splitlines()]


async def _session_with_tools(settings, project_dir) -> AgentSession:
    (project_dir / "a.txt").write_text("alpha\n")
    steps = [Step(text="Reading.", calls=[call("read_file", path="a.txt"),
                                          call("list_dir", path=".")]),
             Step(text="Done.")]
    session = await AgentSession.start(settings, project_dir, client=ScriptedClient(steps))
    await drain(session.run_turn("look at a.txt"))
    return session


async def test_every_append_is_followed_by_a_checkpoint(settings, project_dir, tmp_path) -> None:
    session = await _session_with_tools(settings, project_dir)
    records = _records(session)
    lines = session.ledger.path.read_bytes().splitlines(keepends=True)
    message_lines = [i for i, r in enumerate(records) if r["type"] == "message"]
    # system, user, assistant(2 calls), 2 tool results, final assistant
    assert len(message_lines) == 6
    for n, line in enumerate(message_lines):
        cut = tmp_path / f"cut{n}.jsonl"  # the file as a crash right after the append
        cut.write_bytes(b"".join(lines[:line + 1]))
        with open_regular(cut) as handle:
            view = read_ledger(handle).view  # as recorded (a resume then repairs pairing)
        assert view[-1]["id"] == records[line]["message"]["id"]
    # the file replays to the whole view the model sees
    restored = SessionLedger.open(settings.home, session.session_id).restore()
    assert [m.id for m in restored.messages] == [m.id for m in session.history]


async def test_clear_and_compact_checkpoint_and_never_rewrite(settings, project_dir) -> None:
    session = await _session_with_tools(settings, project_dir)
    before = session.ledger.path.read_bytes()
    length = len(session.history)
    session.clear_history()
    after_clear = session.ledger.path.read_bytes()
    assert after_clear.startswith(before)  # append-only: /clear rewrites nothing
    last = _records(session)[-1]
    assert last["type"] == "view_change" and last["reason"] == "clear"
    assert last["splices"] == [[1, length, []]]  # only the system prompt is left in view
    restored = SessionLedger.open(settings.home, session.session_id).restore()
    assert [m.id for m in restored.messages] == [m.id for m in session.history]


async def test_resume_after_turn_equals_the_live_view(settings, project_dir) -> None:
    session = await _session_with_tools(settings, project_dir)
    restored = SessionLedger.open(settings.home, session.session_id).restore()
    assert restored.warnings == []
    assert [(m.id, m.content) for m in restored.messages] == \
        [(m.id, m.content) for m in session.history]


async def test_summary_messages_join_the_raw_stream_once(settings, project_dir) -> None:
    # behaviour §7: every message sent is appended. The summary and its acknowledgement are sent
    # from the compaction on; placeholders are rewrites and stay checkpoint-only.
    steps = [Step(text=f"answer {i}") for i in range(3)]
    session = await AgentSession.start(settings, project_dir, client=ScriptedClient(steps))
    for i in range(3):
        await drain(session.run_turn(f"question {i} " + "words " * 300))
    outcome = await session.compact_now()
    assert outcome.compacted and any(e.tier == "summary" for e in outcome.events)
    records = _records(session)
    ids = [r["message"]["id"] for r in records if r["type"] == "message"]
    assert len(ids) == len(set(ids))  # no message recorded twice
    summary, ack = session.history[1], session.history[2]
    assert summary.id in ids and ack.id in ids
    ledger = SessionLedger.open(settings.home, session.session_id)
    before = ledger.checkpoint_before_last_compaction()
    assert before is not None and summary.id not in {m.id for m in before}
    assert [m.id for m in ledger.restore().messages] == [m.id for m in session.history]


async def test_compact_now_shows_what_the_ledger_records(settings, project_dir) -> None:
    """/compact: the session turns each notable tier into its ledger record and its event in
    one step, so the faces show exactly what the ledger keeps (no event built elsewhere)."""
    steps = [Step(text=f"answer {i}") for i in range(3)]
    session = await AgentSession.start(settings, project_dir, client=ScriptedClient(steps))
    for i in range(3):
        await drain(session.run_turn(f"question {i} " + "words " * 300))
    before = len(_records(session))
    outcome = await session.compact_now("keep the numbers")
    written = [r for r in _records(session)[before:] if r.get("kind") == "compaction"]
    assert outcome.compacted and outcome.why_not == ""
    assert [(e.tier, e.tokens_before, e.tokens_after, e.outcome) for e in outcome.events] == \
        [(r["tier"], r["tokens_before"], r["tokens_after"], r["outcome"]) for r in written]
    assert [e.tier for e in outcome.events] == ["summary"]


async def test_compact_now_with_nothing_to_compact_says_why(settings, project_dir) -> None:
    session = await AgentSession.start(settings, project_dir,
                                       client=ScriptedClient([Step(text="hi")]))
    await drain(session.run_turn("hello"))
    outcome = await session.compact_now()
    assert (outcome.events, outcome.compacted) == ((), False)
    assert "nothing to summarise before the last turn" in outcome.why_not


async def test_compact_now_of_a_short_session_is_no_failure(settings, project_dir) -> None:
    """/compact after two short turns: the model's summary is longer than the one turn it
    would replace, so nothing is compacted, no failure is recorded or shown, and the reason
    is said in words (the person saw a red "Digest failed" card here before)."""
    summary = ("## 1. Current goal and success criteria\nSay hello back.\n"
               "## 2. User requirements and confirmed decisions\nNone so far.\n"
               "## 3. Work done and evidence\nGreeted the person once.\n"
               "## 4. Open problems and next steps\nWait for the next request.\n")
    steps = [Step(text="hi"), Step(text="hi again"), Step(text=summary)]
    session = await AgentSession.start(settings, project_dir, client=ScriptedClient(steps))
    await drain(session.run_turn("hello"))
    await drain(session.run_turn("again"))
    before = len(_records(session))
    outcome = await session.compact_now()
    written = [r for r in _records(session)[before:] if r.get("kind") == "compaction"]
    assert (outcome.events, outcome.compacted) == ((), False)
    assert all(r["outcome"] != "failed" for r in written)
    assert outcome.why_not.startswith("the turns before the last one are already short")
