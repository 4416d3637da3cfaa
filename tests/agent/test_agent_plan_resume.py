"""Resuming a session whose plan was interrupted: the finished tasks keep their results, and
continuing runs only the unfinished ones (scripted model at the protocol: the requests it
receives are the proof)."""

from __future__ import annotations

import asyncio

import pytest
from agent_script import Step
from test_agent_plan import PlanModel, approve, plan_json

from paicli_tui.core.agent.plan_resume import interrupted_plan
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.context.ledger import list_sessions
from paicli_tui.core.context.pairing import pairing_problems
from paicli_tui.core.contracts.events import (
    PlanContinued,
    PlanFinished,
    PlanTaskFinished,
    PlanTaskStarted,
)
from paicli_tui.core.messages import Role

PLAN = plan_json(("a", []), ("b", []), ("c", ["a", "b"]))


class Hold:
    """A task step that never answers (the run is cancelled while it waits)."""

    def __init__(self) -> None:
        self.reached = asyncio.Event()


class HoldingModel(PlanModel):
    async def stream(self, messages, tools=(), *, model=None):
        if tools:
            user = next(m.content for m in messages if m.role is Role.USER)
            task_id = user.split("Your task (", 1)[1].split(":", 1)[0]
            if self.tasks[task_id] and isinstance(self.tasks[task_id][0], Hold):
                self.task_inputs.setdefault(task_id, []).append(user)
                self.tasks[task_id][0].reached.set()
                await asyncio.Event().wait()  # until cancelled
        async for event in super().stream(messages, tools, model=model):
            yield event


async def run_until_held(session, hold: Hold, done: str, **kwargs) -> list:
    """Run (or continue) the plan until a task is held and task ``done`` finished, then
    cancel it as Esc would."""
    events: list = []
    finished = asyncio.Event()

    async def consume() -> None:
        async for event in session.run_plan("ship it", review=approve, **kwargs):
            events.append(event)
            if isinstance(event, PlanTaskFinished) and event.task_id == done:
                finished.set()

    task = asyncio.ensure_future(consume())
    await asyncio.wait_for(asyncio.gather(hold.reached.wait(), finished.wait()), 20)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    return events


async def test_interrupted_plan_continues_with_only_the_unfinished_tasks(settings,
                                                                         project_dir) -> None:
    hold_b = Hold()
    first = HoldingModel([PLAN], {"a": [Step(text="A found x.py")], "b": [hold_b], "c": []})
    session = await AgentSession.start(settings, project_dir, client=first)
    assert session.interrupted_plan() is None
    events = await run_until_held(session, hold_b, "a")
    assert [(e.task_id, e.status) for e in events if isinstance(e, PlanTaskFinished)] == [
        ("a", "done")]
    session_id = session.session_id
    await session.aclose()
    # nothing joined the history (a plan does at its end), yet the session is listed, so
    # /resume and --resume can find it: it was left out, with no title
    listed = {s.session_id: s.title for s in list_sessions(settings.home, None)}
    assert listed.get(session_id) == "/plan ship it"

    # resumed: a is done, b and c are not; continuing runs b, holds c, is cancelled again
    hold_c = Hold()
    second = HoldingModel([], {"b": [Step(text="B found y.py")], "c": [hold_c]})
    session = await AgentSession.start(settings, project_dir, client=second, resume=session_id)
    found = session.interrupted_plan()
    assert found is not None and found.plan.goal == "ship it"
    assert (list(found.finished), found.remaining) == (["a"], ["b", "c"])
    assert found.finished["a"] == ("done", "A found x.py")
    assert "1 of 3 tasks finished" in found.describe()
    events = await run_until_held(session, hold_c, "b", resume=found)
    continued = events[1]
    assert isinstance(continued, PlanContinued)
    assert (continued.done, continued.remaining) == (("a",), ("b", "c"))
    assert [e.task_id for e in events if isinstance(e, PlanTaskStarted)] == ["b", "c"]
    assert list(second.task_inputs) == ["b", "c"], "a was not asked for again"
    assert "Result of task a (title a):\nA found x.py" in second.task_inputs["c"][0]
    await session.aclose()

    # resumed again: a (carried over by the continued run) and b are done; only c runs
    third = PlanModel([], {"c": [Step(text="C joined them")]})
    session = await AgentSession.start(settings, project_dir, client=third, resume=session_id)
    found = session.interrupted_plan()
    assert found is not None and found.remaining == ["c"]
    events = [e async for e in session.run_plan("", review=approve, resume=found)]
    assert list(third.task_inputs) == ["c"]
    c_input = third.task_inputs["c"][0]
    assert "A found x.py" in c_input and "B found y.py" in c_input
    finished = next(e for e in events if isinstance(e, PlanFinished))
    assert (finished.status, finished.done, finished.total) == ("done", 3, 3)
    assert session.history[-2].content.endswith("/plan ship it")
    assert "3 of 3 tasks done" in session.history[-1].content
    assert pairing_problems(session.history) == []
    assert session.interrupted_plan() is None, "a finished plan is not offered again"
    await session.aclose()


async def test_finished_rejected_and_stopped_plans_are_not_offered(settings,
                                                                   project_dir) -> None:
    done = PlanModel([plan_json(("a", []))], {"a": [Step(text="ok")]})
    session = await AgentSession.start(settings, project_dir, client=done)
    [_ async for _ in session.run_plan("ship it", review=approve)]
    assert session.interrupted_plan() is None

    async def reject(plan):
        return None

    rejected = PlanModel([plan_json(("a", []))], {})
    session.switch_model(rejected)
    [_ async for _ in session.run_plan("again", review=reject)]
    assert session.interrupted_plan() is None
    stopped = PlanModel([plan_json(("a", []))], {"a": [RuntimeError("x"), RuntimeError("y")]})
    session.switch_model(stopped)
    [_ async for _ in session.run_plan("third", review=approve)]
    assert session.interrupted_plan() is None
    await session.aclose()


def test_unreadable_or_torn_ledgers_offer_nothing(tmp_path) -> None:
    assert interrupted_plan(tmp_path / "missing.jsonl") is None
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(b'{"type":"event","kind":"plan_started","plan":{"goal":"g","tasks":[{"id"'
                     b'\n{"type":"event","kind":"plan_started","plan":{"goal":"g","tasks":[]}}\n')
    assert interrupted_plan(torn) is None  # torn line skipped; an empty plan is not a plan


class ChattyPlanModel(PlanModel):
    """Answers a plain turn too (exec --resume with a PROMPT)."""

    async def stream(self, messages, tools=(), *, model=None):
        if tools and "Your task (" not in next(m.content for m in messages
                                                if m.role is Role.USER):
            from paicli_tui.core.contracts.llm import StreamDone
            from paicli_tui.core.messages import Message

            yield StreamDone(Message.assistant("hi"), "stop")
            return
        async for event in super().stream(messages, tools, model=model):
            yield event


def exec_args(*argv: str):
    import argparse

    from paicli_tui.commands import exec_cmd

    parser = argparse.ArgumentParser()
    exec_cmd.configure(parser)
    return parser.parse_args(list(argv))


async def interrupt_after_a(settings, project_dir) -> str:
    hold_b = Hold()
    model = HoldingModel([PLAN], {"a": [Step(text="A found x.py")], "b": [hold_b], "c": []})
    session = await AgentSession.start(settings, project_dir, client=model)
    await run_until_held(session, hold_b, "a")
    await session.aclose()
    return session.session_id


async def test_exec_plan_continue_runs_only_the_unfinished_tasks(settings, project_dir,
                                                                 monkeypatch) -> None:
    import io
    import json

    from paicli_tui.commands import exec_cmd
    from paicli_tui.core.llm import registry

    session_id = await interrupt_after_a(settings, project_dir)
    model = ChattyPlanModel([], {"b": [Step(text="B found y.py")],
                                 "c": [Step(text="C joined")]})
    monkeypatch.setattr(registry, "build_client", lambda settings: model)
    monkeypatch.setattr(exec_cmd, "_services", lambda *a: (None, None))
    # a plain resume says the plan can be continued, and how (JSON: an event)
    out, err = io.StringIO(), io.StringIO()
    code = await exec_cmd._run("hello", exec_args("hello", "--resume", session_id, "--json"),
                               settings, project_dir, out, err)
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    offer = next(e for e in events if e["type"] == "plan_interrupted")
    assert (offer["done"], offer["remaining"]) == (["a"], ["b", "c"]) and code == 0
    assert model.task_inputs == {}, "a plain turn continues nothing"
    # --plan-continue runs b and c only, a's result feeding c
    out, err = io.StringIO(), io.StringIO()
    code = await exec_cmd._run("", exec_args("--resume", session_id, "--plan-continue"),
                               settings, project_dir, out, err)
    assert code == 0, err.getvalue()
    assert list(model.task_inputs) == ["b", "c"]
    assert "A found x.py" in model.task_inputs["c"][0]
    assert "[plan] continuing: a finished, running b, c" in err.getvalue()
    assert "3 of 3 tasks done" in out.getvalue()
    # nothing left to continue: a clear usage error
    out, err = io.StringIO(), io.StringIO()
    code = await exec_cmd._run("", exec_args("--resume", session_id, "--plan-continue"),
                               settings, project_dir, out, err)
    assert code == 2 and "has no interrupted plan" in err.getvalue()


def test_exec_plan_continue_usage_errors(settings, capsys) -> None:
    from paicli_tui.commands import exec_cmd

    table = [
        (("--plan-continue",), "needs --resume SESSION"),
        (("goal", "--resume", "s1", "--plan-continue"), "takes no PROMPT"),
        (("--resume", "s1", "--plan-continue", "--plan"), "cannot be used with --plan"),
        ((), "the prompt is empty"),
    ]
    for argv, message in table:
        assert exec_cmd.run(exec_args(*argv), settings) == 2
        assert message in capsys.readouterr().err


@pytest.mark.parametrize(("status", "done", "total", "detail", "line"), [
    ("invalid", 0, 0, 'the plan must be {"tasks": [...]}',
     '[plan] invalid: the plan must be {"tasks": [...]}'),
    ("rejected", 0, 2, "", "[plan] rejected: 0 of 2 tasks done"),
    ("done", 3, 3, "", "[plan] done: 3 of 3 tasks done"),
    ("stopped", 1, 3, "task b failed", "[plan] stopped: 1 of 3 tasks done (task b failed)"),
])
def test_exec_says_how_a_plan_ended_in_one_readable_line(status, done, total, detail, line):
    from paicli_tui.commands.exec_cmd import plan_finished_line
    from paicli_tui.core.contracts.events import PlanFinished

    event = PlanFinished(status=status, done=done, total=total, detail=detail)
    assert plan_finished_line(event) == line
