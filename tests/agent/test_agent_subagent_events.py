"""A sub-agent's steps reach the parent's event stream as they happen (typed, with the
sub-agent's id and its parent), and the parent keeps each sub-agent's own numbers."""

from __future__ import annotations

import asyncio
import json

import pytest
from agent_script import ScriptedClient, Step
from test_agent_subagents import delegate, start

from paicli_tui.core.contracts.events import (
    RequestStarted,
    SubAgentFinished,
    SubAgentStarted,
    SubAgentStep,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
)


async def test_steps_arrive_live_framed_and_named(settings, project_dir) -> None:
    (project_dir / "a.py").write_text("A = 1\n")
    seen_read = asyncio.Event()

    def answer_after_the_parent_saw_the_read(messages):
        # The sub-agent's second request waits until the parent's consumer has the step:
        # if steps were only passed on after the sub-agent ended, this would never return.
        return Step(text="ONE: a.py defines A", wait=seen_read)

    routes = {
        "parent": ScriptedClient([delegate("ONE: read a.py", "TWO: say hi"), Step(text="ok")]),
        "ONE": ScriptedClient([Step(calls=[("read_file", {"path": "a.py"})]),
                               answer_after_the_parent_saw_the_read]),
        "TWO": ScriptedClient([Step(text="TWO: hi")]),
    }
    session, _ = await start(settings, project_dir, routes)
    events = []

    async def consume() -> None:
        async for event in session.run_turn("go"):
            events.append(event)
            if isinstance(event, SubAgentStep) and isinstance(event.event, ToolCallFinished):
                seen_read.set()

    await asyncio.wait_for(consume(), 20)
    assert isinstance(events[-1], TurnFinished) and events[-1].final_text == "ok"
    calls = [e.call_id for e in events if isinstance(e, ToolCallStarted)]
    started = {e.label.rstrip(":"): e for e in events if isinstance(e, SubAgentStarted)}
    assert sorted(started) == ["ONE", "TWO"]
    assert sorted(e.call_id for e in started.values()) == sorted(calls)
    one = started["ONE"]
    assert one.parent == session.session_id and one.subagent.startswith(
        session.session_id + ".sub-") and one.task_id == ""
    steps = [e for e in events if isinstance(e, SubAgentStep) and e.subagent == one.subagent]
    assert [type(s.event).__name__ for s in steps] == [
        "RequestStarted", "ToolCallStarted", "ToolCallFinished", "RequestStarted"]
    assert steps[1].event.name == "read_file" and steps[1].parent == session.session_id
    finished = {e.subagent: e for e in events if isinstance(e, SubAgentFinished)}
    done = finished[one.subagent]
    assert (done.status, done.requests, done.tool_calls, done.compactions) == ("done", 2, 1, 0)
    assert done.history_tokens > 0 and done.elapsed_s >= 0
    # framed inside the parent's run_subagent call: started, steps, finished, then its result
    order = [events.index(e) for e in (one, *steps, done)]
    assert order == sorted(order)
    parent_result = next(i for i, e in enumerate(events)
                         if isinstance(e, ToolCallFinished) and e.call_id == one.call_id)
    assert order[-1] < parent_result
    # the sub-agent's requests never moved the parent's gauge: the parent's own requests
    # are the only RequestStarted at the top level
    assert sum(isinstance(e, RequestStarted) for e in events) == 2
    records = {r.label.rstrip(":"): r for r in session.subagent_records}
    assert (records["ONE"].status, records["ONE"].messages, records["ONE"].requests,
            records["ONE"].tool_calls) == ("done", 5, 2, 1)  # system, task, call, result, answer
    assert (records["TWO"].messages, records["TWO"].requests) == (3, 1)
    # exec --json: the step carries the sub-agent's event as JSON with its own type
    record = steps[1].to_json()
    assert record["type"] == "subagent_step" and record["event"]["type"] == "tool_call_started"
    assert json.loads(json.dumps(record))["subagent"] == one.subagent
    await session.aclose()


async def test_cancelled_subagent_is_recorded_as_cancelled(settings, project_dir) -> None:
    never = asyncio.Event()
    child = ScriptedClient([Step(calls=[("list_dir", {"path": "."})]),
                            Step(text="late", wait=never)])
    session, _ = await start(settings, project_dir,
                             {"parent": ScriptedClient([delegate("DELTA: explore")]),
                              "DELTA": child})
    events = []

    async def consume() -> None:
        async for event in session.run_turn("go"):
            events.append(event)

    task = asyncio.ensure_future(consume())
    for _ in range(200):
        await asyncio.sleep(0.02)
        if len(child.requests) == 2:
            break
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    [record] = session.subagent_records
    assert (record.status, record.requests, record.tool_calls) == ("cancelled", 2, 1)
    assert any(isinstance(e, SubAgentStep) and isinstance(e.event, ToolCallStarted)
               and e.event.name == "list_dir" for e in events)
    await session.aclose()


async def test_resumed_session_lists_its_subagents_and_numbers_on(settings,
                                                                  project_dir) -> None:
    from paicli_tui.core.agent.session import AgentSession
    from paicli_tui.core.context.ledger import SessionLedger
    from paicli_tui.core.tokens import estimate_request

    (project_dir / "a.py").write_text("A = 1\n")
    first = {"parent": ScriptedClient([delegate("ONE: read a.py"), Step(text="ok")]),
             "ONE": ScriptedClient([Step(calls=[("read_file", {"path": "a.py"})]),
                                    Step(text="ONE: A is 1")])}
    session, _ = await start(settings, project_dir, first)
    [_ async for _ in session.run_turn("go")]
    session_id, old = session.session_id, session.subagent_records[0]
    await session.aclose()

    second = {"parent": ScriptedClient([delegate("TWO: say hi"), Step(text="ok")]),
              "TWO": ScriptedClient([Step(text="TWO: hi")])}
    from test_agent_subagents import RoutedClient

    session = await AgentSession.start(settings, project_dir, client=RoutedClient(second),
                                       resume=session_id)
    [restored] = session.subagent_records
    assert (restored.subagent, restored.status, restored.messages, restored.requests,
            restored.tool_calls, restored.compactions) == (
        old.subagent, "done", 5, 2, 1, 0)
    # the same numbers as while it ran (its last request's estimate, tool schemas included),
    # not a recount of its messages alone (before: 2.3k live, 1.4k resumed)
    assert (restored.history_tokens, restored.prompt_tokens, restored.completion_tokens) == (
        old.history_tokens, old.prompt_tokens, old.completion_tokens)
    assert restored.elapsed_s == pytest.approx(old.elapsed_s, abs=0.01)
    assert restored.history_tokens == old.history_tokens > estimate_request(
        session.subagent_history(restored.subagent))
    # the run_subagent call it answered, so a resumed chat can draw that call as it
    delegation = next(m for m in session.history if m.tool_calls)
    assert restored.call_id == old.call_id == delegation.tool_calls[0].id != ""
    # and its own messages, read from its stream (only this session's sub-agents)
    own = session.subagent_history(restored.subagent)
    assert [m.role.value for m in own] == ["system", "user", "assistant", "tool", "assistant"]
    assert own[-1].content == "ONE: A is 1" and own[2].tool_calls[0].name == "read_file"
    with pytest.raises(KeyError):
        session.subagent_history(f"{session_id}.sub-9")
    events = [e async for e in session.run_turn("again")]
    [started] = [e for e in events if isinstance(e, SubAgentStarted)]
    assert started.subagent == f"{session_id}.sub-2", "a new stream, not the old one"
    first_stream = SessionLedger.open(settings.home, f"{session_id}.sub-1").path
    heads = [line for line in first_stream.read_text().splitlines() if '"type":"session"' in line]
    assert len(heads) == 1
    assert [r.subagent for r in session.subagent_records] == [
        f"{session_id}.sub-1", f"{session_id}.sub-2"]
    await session.aclose()


def test_plain_exec_prints_one_line_per_subagent_start_tool_and_end() -> None:
    import io

    from paicli_tui.commands.exec_cmd import _Printer
    from paicli_tui.core.contracts import events as ev

    out, err = io.StringIO(), io.StringIO()
    printer = _Printer(as_json=False, out=out, err=err)
    sub = "20261201-120000-abcdef.sub-2"
    for event in [
        ev.SubAgentStarted(subagent=sub, parent="p", label="explore", call_id="c1"),
        ev.SubAgentStep(subagent=sub, parent="p", event=ev.RequestStarted(1, 900, 1, 1, 1)),
        ev.SubAgentStep(subagent=sub, parent="p",
                        event=ev.ToolCallStarted("t1", "read_file", '{"path": "a.py"}')),
        ev.SubAgentStep(subagent=sub, parent="p",
                        event=ev.ToolCallFinished("t1", "read_file", "done", "A = 1")),
        ev.SubAgentFinished(subagent=sub, parent="p", status="done", requests=2, tool_calls=1,
                            history_tokens=1_234, elapsed_s=3.25),
    ]:
        printer.emit(event)
    assert err.getvalue().splitlines() == [
        "[sub-agent sub-2] started: explore",
        '  [sub-agent sub-2] → read_file {"path": "a.py"}',
        "[sub-agent sub-2] done: 2 requests, 1 tool call, its history 1,234 tokens, 3.2 s",
    ]
    assert out.getvalue() == ""
