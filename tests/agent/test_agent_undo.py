"""/undo puts back the files the agent changed in its newest turn with changes, only where
they still hold what the agent wrote, and tells the model with the next message."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from agent_script import ScriptedClient, Step, call, drain

from paicli_tui.core.agent.checkpoints import FileCheckpoints, UndoResult
from paicli_tui.core.agent.ledger_events import ledger_events
from paicli_tui.core.agent.session import AgentSession


async def _session(settings, project_dir, steps):
    client = ScriptedClient(list(steps))
    session = await AgentSession.start(settings, project_dir, client=client,
                                       approve=_approve_all)
    return session, client


async def _approve_all(request):
    from paicli_tui.core.contracts.asks import ApprovalDecision

    return ApprovalDecision.ONCE


async def test_undo_puts_back_the_last_turns_changes(settings, project_dir) -> None:
    app = project_dir / "app.py"
    app.write_text("print('one')\n", encoding="utf-8")
    steps = [Step(calls=[call("edit_file", path="app.py", old_string="one", new_string="two")]),
             Step(text="edited"),
             Step(calls=[call("edit_file", path="app.py", old_string="two", new_string="three"),
                         call("write_file", path="new.py", content="x = 1\n")]),
             Step(text="edited again"),
             Step(text="ok")]
    session, client = await _session(settings, project_dir, steps)
    await drain(session.run_turn("make it two"))
    await drain(session.run_turn("make it three and add new.py"))
    assert app.read_text() == "print('three')\n" and (project_dir / "new.py").exists()
    result = await session.undo_last_turn()
    assert (result.turn, result.restored, result.removed, result.kept) == \
        (2, ["app.py"], ["new.py"], [])
    assert app.read_text() == "print('two')\n" and not (project_dir / "new.py").exists()
    result = await session.undo_last_turn()  # the turn before
    assert (result.turn, result.restored) == (1, ["app.py"])
    assert app.read_text() == "print('one')\n"
    assert (await session.undo_last_turn()).turn is None  # nothing left
    # the model hears of it with the next message, once
    await drain(session.run_turn("what now?"))
    asked = client.requests[-1][-1].content
    assert asked.count("[paicli-tui] Undid the agent's file changes") == 2
    assert "put back app.py; removed new.py (created by the agent)" in asked
    assert session.pending_notes == []
    records = ledger_events(session.ledger.path, "undo")
    assert [(r["turn"], r["restored"], r["removed"]) for r in records] == \
        [(2, ["app.py"], ["new.py"]), (1, ["app.py"], [])]
    await session.aclose()


async def test_a_file_changed_since_is_left_as_it_is(settings, project_dir) -> None:
    app = project_dir / "app.py"
    app.write_text("a = 1\n", encoding="utf-8")
    steps = [Step(calls=[call("write_file", path="app.py", content="a = 2\n"),
                         call("write_file", path="b.py", content="b = 2\n")]),
             Step(text="done")]
    session, _ = await _session(settings, project_dir, steps)
    await drain(session.run_turn("change both"))
    app.write_text("a = 2  # and the person's own edit\n", encoding="utf-8")
    (project_dir / "b.py").unlink()
    result = await session.undo_last_turn()
    assert result.restored == [] and result.removed == []
    assert result.kept == [("b.py", "deleted since"), ("app.py", "changed since the agent "
                                                                 "wrote it")]
    assert app.read_text() == "a = 2  # and the person's own edit\n"  # their work kept
    assert "Left as they are: b.py (deleted since); app.py (changed since" in result.summary()
    await session.aclose()


def test_a_folder_that_now_leads_outside_is_not_written(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    target = root / "src" / "a.py"
    target.write_bytes(b"after")
    marks = FileCheckpoints(tmp_path / "marks", root)
    marks.record("t1", 1, target, "src/a.py", b"before", b"after")
    # the folder swapped for a link out of the project, holding a file like the one written
    (root / "src").rename(tmp_path / "old-src")
    (outside / "a.py").write_bytes(b"after")
    os.symlink(outside, root / "src")
    result = marks.undo_last_turn()
    assert result.kept == [("src/a.py", "its folder now leads outside the project")]
    assert (outside / "a.py").read_bytes() == b"after"


def test_nothing_to_undo_says_so(tmp_path: Path) -> None:
    result = FileCheckpoints(tmp_path / "marks", tmp_path).undo_last_turn()
    assert result == UndoResult() and result.summary().startswith("Nothing to undo")


async def test_a_subagents_changes_are_its_parent_turns(settings, project_dir) -> None:
    from test_agent_subagents import delegate, start

    (project_dir / "a.py").write_text("a\n", encoding="utf-8")
    child = ScriptedClient([Step(calls=[("write_file", {"path": "a.py", "content": "b\n"})]),
                            Step(text="EPS wrote it")])
    # the parent writes c.py itself in the same turn: one /undo takes both changes
    parent = ScriptedClient([Step(calls=[call("write_file", path="c.py", content="c\n")]),
                             delegate("EPS: change a.py", tools="all"), Step(text="ok")])
    session, _ = await start(settings, project_dir, {"parent": parent, "EPS": child},
                             approve=_approve_all)
    await drain(session.run_turn("delegate it"))
    assert (project_dir / "a.py").read_text() == "b\n"
    result = await session.undo_last_turn()
    assert (result.turn, result.restored, result.removed) == (1, ["a.py"], ["c.py"])
    assert (project_dir / "a.py").read_text() == "a\n"
    assert not (project_dir / "c.py").exists()
    await session.aclose()


async def test_a_plans_changes_are_a_turn_of_their_own(settings, project_dir) -> None:
    """The plan's tasks run after a turn that changed a file: /undo puts back what the plan
    changed and leaves the turn before's change, as a second /undo would take it; the turn
    after the plan is numbered after it, so no two undos name the same turn."""
    import json
    from dataclasses import dataclass, field

    from test_agent_plan import PlanModel, approve, plan_json

    from paicli_tui.core.contracts.llm import StreamDone
    from paicli_tui.core.messages import Message, Role, ToolCall

    @dataclass
    class TurnThenPlan(PlanModel):
        turn: list = field(default_factory=list)

        async def stream(self, messages, tools=(), *, model=None):
            user = next(m.content for m in messages if m.role is Role.USER)
            if tools and "Your task (" not in user:  # the main session's own turn
                step = self.turn.pop(0)
                calls = [ToolCall(f"main-{n}", name, json.dumps(args))
                         for n, (name, args) in enumerate(step.calls)]
                yield StreamDone(Message.assistant(step.text, calls),
                                 "tool_calls" if calls else "stop")
                return
            async for event in super().stream(messages, tools, model=model):
                yield event

    (project_dir / "a.py").write_text("a = 1\n", encoding="utf-8")
    model = TurnThenPlan([plan_json(("p", []))], {
        "p": [Step(calls=[("write_file", {"path": "b.py", "content": "b = 2\n"})]),
              Step(text="P wrote b.py")]},
        turn=[Step(calls=[call("write_file", path="a.py", content="a = 2\n")]),
              Step(text="a is 2"),
              Step(calls=[call("write_file", path="c.py", content="c = 3\n")]),
              Step(text="c is 3")])
    session = await AgentSession.start(settings, project_dir, client=model,
                                       approve=_approve_all)
    await drain(session.run_turn("make a two"))
    assert (project_dir / "a.py").read_text() == "a = 2\n"
    await drain(session.run_plan("add b", review=approve))
    assert (project_dir / "b.py").read_text() == "b = 2\n"
    await drain(session.run_turn("add c"))  # the turn after the plan is the third
    result = await session.undo_last_turn()
    assert (result.turn, result.removed) == (3, ["c.py"])
    result = await session.undo_last_turn()
    assert (result.turn, result.removed, result.restored, result.kept) == \
        (2, ["b.py"], [], [])
    assert (project_dir / "a.py").read_text() == "a = 2\n"  # the turn before stays
    result = await session.undo_last_turn()
    assert (result.turn, result.restored) == (1, ["a.py"])
    await session.aclose()


async def test_an_unwritable_home_does_not_stop_the_edit(settings, project_dir) -> None:
    """A full or read-only PAICLI_HOME: the file is still written, the result says it is
    not kept for /undo."""
    (project_dir / "a.py").write_text("a\n", encoding="utf-8")
    steps = [Step(calls=[call("write_file", path="a.py", content="b\n")]), Step(text="done")]
    session, client = await _session(settings, project_dir, steps)

    def refuse(*args) -> None:
        raise OSError(28, "No space left on device")

    session.state.checkpoints.record = refuse
    await drain(session.run_turn("change it"))
    assert (project_dir / "a.py").read_text() == "b\n"
    result = client.requests[-1][-1].content
    assert "done (+1 -1 lines). Not kept for /undo: No space left on device." in result
    await session.aclose()


def test_a_file_that_cannot_be_put_back_is_named_and_the_others_still_are(
        tmp_path: Path) -> None:
    """The first file's kept copy is gone from PAICLI_HOME (a clean-up): /undo does not
    fail half-way; it names that file and still puts back the turn's other one."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_bytes(b"a after")
    (root / "b.py").write_bytes(b"b after")
    marks = FileCheckpoints(tmp_path / "marks", root)
    marks.record("t1", 1, root / "a.py", "a.py", b"a before", b"a after")
    marks.record("t1", 1, root / "b.py", "b.py", b"b before", b"b after")
    (tmp_path / "marks" / "00002.before").unlink()
    result = marks.undo_last_turn()
    assert result.restored == ["a.py"]
    assert result.kept == [("b.py", "could not be put back: No such file or directory")]
    assert (root / "a.py").read_bytes() == b"a before"
    assert (root / "b.py").read_bytes() == b"b after"
    assert marks.undo_last_turn().turn is None  # each change is taken once


@pytest.mark.parametrize("existed", [True, False])
def test_a_file_replaced_by_a_link_since_is_left_as_it_is(tmp_path: Path,
                                                          existed: bool) -> None:
    """The person moved the file the agent wrote and left a link in its place (a
    refactor): the link reads what the agent wrote, and still it is their change, kept."""
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "lib").mkdir()
    marks = FileCheckpoints(tmp_path / "marks", root)
    marks.record("t1", 1, root / "src" / "a.py", "src/a.py", b"before" if existed else None,
                 b"after")
    (root / "lib" / "a.py").write_bytes(b"after")
    os.symlink("../lib/a.py", root / "src" / "a.py")
    result = marks.undo_last_turn()
    assert result.kept == [("src/a.py", "replaced by a link since the agent wrote it")]
    assert (result.restored, result.removed) == ([], [])
    assert os.readlink(root / "src" / "a.py") == "../lib/a.py"
    assert (root / "lib" / "a.py").read_bytes() == b"after"
