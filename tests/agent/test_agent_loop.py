"""The agent loop against a scripted model: events, tools, ledger, guards, limits."""

from __future__ import annotations

import json

from agent_script import ScriptedClient, Step, call, drain

from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.context.ledger import SessionLedger
from paicli_tui.core.context.pairing import pairing_problems
from paicli_tui.core.contracts.asks import approve_all
from paicli_tui.core.contracts.events import (
    AgentError,
    AssistantMessage,
    ContextCompacted,
    RequestStarted,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
    Usage,
)
from paicli_tui.core.contracts.llm import UsageReport
from paicli_tui.core.messages import InternalKind, Role


async def start(settings, project, steps, **kwargs) -> tuple[AgentSession, ScriptedClient]:
    client = ScriptedClient(list(steps))
    session = await AgentSession.start(settings, project, client=client, **kwargs)
    return session, client


async def test_plain_answer_events_history_and_ledger(settings, project_dir) -> None:
    session, client = await start(settings, project_dir, [Step(text="Hello there")])
    events = await drain(session.run_turn("hi"))
    kinds = [type(e) for e in events]
    assert kinds == [TurnStarted, RequestStarted, TextDelta, AssistantMessage, TurnFinished]
    assert events[-1].reason == "done" and events[-1].final_text == "Hello there"
    assert [m.role for m in session.history] == [Role.SYSTEM, Role.USER, Role.ASSISTANT]
    user = session.history[1]
    assert user.content.startswith("<turn_context>\nToday: ") and user.content.endswith("\n\nhi")
    restored = SessionLedger.open(settings.home, session.session_id).restore()
    assert [m.content for m in restored.messages] == [m.content for m in session.history]
    assert restored.title == "hi"
    request = events[1]
    assert request.window == 128_000 and request.compaction_trigger == 95_000
    assert request.clearing_trigger == 57_000


async def test_tool_round_trip_with_boundary(settings, project_dir) -> None:
    (project_dir / "a.txt").write_text("alpha\n")
    steps = [Step(text="Reading.", calls=[call("read_file", path="a.txt")]),
             Step(text="It says alpha.")]
    session, client = await start(settings, project_dir, steps)
    events = await drain(session.run_turn("what is in a.txt?"))
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert started[0].name == "read_file" and finished[0].status == "done"
    tool_message = session.history[3]
    assert tool_message.role is Role.TOOL and tool_message.tool_call_id == started[0].call_id
    assert tool_message.content.startswith('<tool_result tool="read_file" '
                                           'trust="untrusted-data">')
    assert "alpha" in tool_message.content
    assert client.problems == []
    # the second request extends the first one exactly (stable prefix)
    assert client.requests[1][:2] == client.requests[0]
    assert all(r[0].content == client.requests[0][0].content for r in client.requests)


async def test_denied_write_in_headless_default(settings, project_dir) -> None:
    steps = [Step(calls=[call("write_file", path="x.txt", content="x")]), Step(text="ok")]
    session, _ = await start(settings, project_dir, steps)
    events = await drain(session.run_turn("write x"))
    finished = next(e for e in events if isinstance(e, ToolCallFinished))
    assert finished.status == "denied" and not (project_dir / "x.txt").exists()


async def test_command_output_offloaded(settings, project_dir) -> None:
    command = "python3 -c \"print('z' * 20000)\""
    steps = [Step(calls=[call("execute_command", command=command)]), Step(text="done")]
    session, client = await start(settings, project_dir, steps, approve=approve_all)
    events = await drain(session.run_turn("run it"))
    offload = [e for e in events if isinstance(e, ContextCompacted)]
    assert offload and offload[0].tier == "offload"
    finished = next(e for e in events if isinstance(e, ToolCallFinished))
    assert finished.offload_path and (project_dir / finished.offload_path).is_file()
    assert len(session.history[3].content) < 10_000
    # the size shown on the call's block is the output's, not the notice's (it read
    # "9.2k chars · offloaded" for 20,000 characters)
    assert finished.chars >= 20_000
    assert (project_dir / ".paicli/tool-outputs/.gitignore").read_text() == "*\n"


async def test_runaway_guard_after_three_identical_calls(settings, project_dir) -> None:
    (project_dir / "a.txt").write_text("a")
    same = Step(calls=[call("read_file", path="a.txt")])
    steps = [same, Step(calls=[call("read_file", path="a.txt")]),
             Step(calls=[call("read_file", path="a.txt")]), Step(text="I stop.")]
    session, client = await start(settings, project_dir, steps)
    await drain(session.run_turn("loop"))
    notices = [m for m in session.history if m.internal is InternalKind.RUNAWAY_GUARD]
    assert len(notices) == 1 and "read_file" in notices[0].content
    index = session.history.index(notices[0])
    assert session.history[index - 1].role is Role.TOOL
    assert client.problems == [] and not pairing_problems(session.history)


async def test_iteration_limit(settings, project_dir) -> None:
    steps = [Step(calls=[call("list_dir", path=".", depth=i % 3 + 1)]) for i in range(5)]
    session, client = await start(settings.with_overrides(max_iterations=3), project_dir, steps)
    events = await drain(session.run_turn("go"))
    assert events[-1].reason == "max_iterations" and len(client.requests) == 3
    assert any(isinstance(e, AgentError) for e in events)
    assert not pairing_problems(session.history)


async def test_usage_feeds_the_calibrator(settings, project_dir) -> None:
    # a credible count (about 1.6 times the estimate; one past 6 times is ignored)
    usage = UsageReport(prompt_tokens=6_000, completion_tokens=5, cached_tokens=1_000)
    session, _ = await start(settings, project_dir, [Step(text="x", usage=usage)])
    events = await drain(session.run_turn("hi " * 400))
    reported = next(e for e in events if isinstance(e, Usage))
    assert reported.cached_tokens == 1_000 and reported.prompt_tokens == 6_000
    assert session.calibrator.factor > 1.0


async def test_no_model_explains_how_to_configure(settings, project_dir) -> None:
    session = await AgentSession.start(settings, project_dir)
    events = await drain(session.run_turn("hi"))
    assert isinstance(events[-2], AgentError) and "DEEPSEEK_API_KEY" in events[-2].message
    assert events[-1].reason == "error" and len(session.history) == 1


async def test_resume_continues_the_same_view(settings, project_dir) -> None:
    session, _ = await start(settings, project_dir, [Step(text="first answer")])
    await drain(session.run_turn("first"))
    again, client = await start(settings, project_dir, [Step(text="second answer")],
                                resume=session.session_id)
    assert [m.content for m in again.history] == [m.content for m in session.history]
    await drain(again.run_turn("second"))
    assert client.requests[0][:3] == again.history[:3]
    assert again.history[0] is client.requests[0][0] or \
        again.history[0].content == session.history[0].content


async def test_unknown_tool_and_bad_arguments_are_results(settings, project_dir) -> None:
    def bad_json(messages):
        step = Step(calls=[call("read_file")])
        return step

    steps = [Step(calls=[call("no_such_tool", x=1)]), bad_json, Step(text="ok")]
    session, client = await start(settings, project_dir, steps)
    events = await drain(session.run_turn("x"))
    statuses = [e.status for e in events if isinstance(e, ToolCallFinished)]
    assert statuses == ["failed", "failed"]
    assert "Unknown tool" in session.history[3].content
    assert client.problems == []


async def test_switch_model_moves_thresholds(settings, project_dir) -> None:
    session, _ = await start(settings, project_dir, [])
    assert session.profile.compaction_trigger == 95_000
    session.switch_model(ScriptedClient([], window=200_000))
    assert session.profile.compaction_trigger == 167_000
    assert session.profile.clearing_trigger == 100_000


async def test_clear_history_keeps_ledger(settings, project_dir) -> None:
    session, _ = await start(settings, project_dir, [Step(text="a")])
    await drain(session.run_turn("one"))
    session.clear_history()
    assert [m.role for m in session.history] == [Role.SYSTEM]
    lines = session.ledger.path.read_text().splitlines()
    assert any('"content": "a"' in line or '"a"' in line for line in lines)
    assert SessionLedger.open(settings.home, session.session_id).restore().messages[-1].role \
        is Role.SYSTEM


async def test_events_serialise_to_json(settings, project_dir) -> None:
    session, _ = await start(settings, project_dir, [Step(text="x")])
    for event in await drain(session.run_turn("hi")):
        assert json.loads(json.dumps(event.to_json()))["type"] == event.type


async def test_resume_after_crash_mid_turn_answers_dangling_calls(settings, project_dir) -> None:
    from paicli_tui.core.messages import Message, ToolCall

    session, _ = await start(settings, project_dir, [])
    session.append(Message.user("do it"))
    session.append(Message.assistant("", [ToolCall("c1", "list_dir", "{}")]))
    # the process dies here: no result for c1 was ever written
    again, client = await start(settings, project_dir, [Step(text="recovered")],
                                resume=session.session_id)
    assert not pairing_problems(again.history)
    await drain(again.run_turn("continue"))
    assert client.problems == []


async def test_switch_model_closes_the_old_client(settings, project_dir) -> None:
    session, old = await start(settings.with_overrides(light_model="tiny"), project_dir, [])
    new = ScriptedClient([], provider="other", window=200_000)
    session.switch_model(new)
    await session.wait_background()
    assert old.closed and not new.closed and session.client is new
    assert session.light_completer() is not None


async def test_parallel_read_only_calls_keep_call_order(settings, project_dir) -> None:
    import asyncio as aio

    from paicli_tui.core.agent.loop import _batches
    from paicli_tui.core.messages import ToolCall

    calls = [ToolCall(str(i), n) for i, n in enumerate(
        ["read_file", "list_dir", "write_file", "read_file", "execute_command", "grep_code",
         "glob_files"])]
    assert [[c.id for c in b] for b in _batches(calls)] == [["0", "1"], ["2"], ["3"], ["4"],
                                                             ["5", "6"]]

    class SlowFirst:
        name, description, requires_approval = "read_file", "d", False
        parameters = {"type": "object"}

        async def run(self, arguments, context):
            from paicli_tui.core.contracts.tools import ToolOutput

            await aio.sleep(0.05 if arguments["n"] == 0 else 0)
            return ToolOutput(f"result {arguments['n']}")

    steps = [Step(calls=[call("read_file", n=0), call("read_file", n=1)]), Step(text="ok")]
    session, client = await start(settings, project_dir, steps)
    session.tools.add(SlowFirst())
    events = await drain(session.run_turn("x"))
    finished = [e.preview for e in events if isinstance(e, ToolCallFinished)]
    assert finished == ["result 0", "result 1"]
    tools = [m for m in session.history if m.role is Role.TOOL]
    assert "result 0" in tools[0].content and "result 1" in tools[1].content
    assert client.problems == []
