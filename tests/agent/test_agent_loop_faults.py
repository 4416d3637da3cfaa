"""Faults in the loop: context overflow, broken streams, cancellation; history stays valid."""

from __future__ import annotations

import asyncio
import json

import pytest
from agent_script import ScriptedClient, Step, call, drain
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from paicli_tui.core.agent.ledger_events import ledger_events
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.context.ledger import SessionLedger
from paicli_tui.core.context.pairing import pairing_problems
from paicli_tui.core.contracts.asks import ApprovalDecision
from paicli_tui.core.contracts.events import AgentError, ContextCompacted, ToolCallStarted
from paicli_tui.core.contracts.llm import (
    ContextLengthExceeded,
    LLMError,
    StreamDone,
    StreamInterrupted,
)
from paicli_tui.core.messages import Role, ToolCall


async def start(settings, project, steps, **kwargs):
    client = ScriptedClient(list(steps))
    return await AgentSession.start(settings, project, client=client, **kwargs), client


def big_file(project, name="big.txt", lines=3000):
    (project / name).write_text("".join(f"row {i} " + "x" * 40 + "\n" for i in range(lines)))


async def test_context_length_forces_compaction_and_retries_once(settings, project_dir) -> None:
    for i in range(5):
        big_file(project_dir, f"f{i}.txt", lines=300)
    reads = [Step(calls=[call("read_file", path=f"f{i}.txt")]) for i in range(5)]
    steps = [*reads, Step(error=ContextLengthExceeded("maximum context length")),
             Step(text="finished")]
    session, client = await start(settings, project_dir, steps)
    events = await drain(session.run_turn("read them all"))
    assert events[-1].reason == "done"
    cleared = [e for e in events if isinstance(e, ContextCompacted) and e.tier == "clearing"]
    assert cleared, "a forced prepare must clear old tool results"
    retry_request = client.requests[-1]
    assert sum("cleared" in m.content.lower() or "placeholder" in m.content.lower()
               for m in retry_request if m.role is Role.TOOL) >= 1
    assert client.problems == []
    ledger = SessionLedger.open(settings.home, session.session_id)
    history = ledger.compaction_history()
    assert history and history[0]["tier"] == "clearing"
    restored = ledger.restore().messages
    assert [m.content for m in restored] == [m.content for m in session.history]
    before = ledger.checkpoint_before_last_compaction()
    assert before is not None and len(before) < len(session.history)


async def test_second_context_length_error_ends_the_turn(settings, project_dir) -> None:
    steps = [Step(error=ContextLengthExceeded("too long")),
             Step(error=ContextLengthExceeded("too long"))]
    session, client = await start(settings, project_dir, steps)
    events = await drain(session.run_turn("x"))
    assert events[-1].reason == "error" and len(client.requests) == 2
    assert "still too long" in events[-2].message
    assert not pairing_problems(session.history)


@pytest.mark.parametrize("error", [StreamInterrupted("cut"), LLMError("HTTP 500 boom")])
async def test_failing_provider_appends_no_half_message(settings, project_dir, error) -> None:
    steps = [Step(text="partial answ", error=error, error_after_text=True)]
    session, _ = await start(settings, project_dir, steps)
    events = await drain(session.run_turn("x"))
    assert isinstance(events[-2], AgentError) and events[-1].reason == "error"
    assert [m.role for m in session.history] == [Role.SYSTEM, Role.USER]


# A turn the provider ended (retries used up on 429s, a stream cut, a reply past its time
# cap, a client bug) left no trace in the session file: resumed or read later, the session
# showed the person's message without any answer or reason. Each is a ledger event now.
@pytest.mark.parametrize("error", [
    LLMError("custom: HTTP 429: slow down (gave up after 4 attempts)"),
    StreamInterrupted("custom: the connection broke mid-reply"),
    RuntimeError("boom with Bearer sk-live-abcdefghijklmnop"),
])
async def test_a_failed_request_is_recorded_in_the_session_file(settings, project_dir,
                                                                error) -> None:
    session, _ = await start(settings, project_dir, [Step(error=error)])
    events = await drain(session.run_turn("hi"))
    (shown,) = [e.message for e in events if isinstance(e, AgentError)]
    recorded = ledger_events(SessionLedger.open(settings.home, session.session_id).path,
                             "request_failed")
    assert [e["detail"] for e in recorded] == [shown]
    assert "sk-live" not in recorded[0]["detail"]


async def test_the_session_file_says_why_each_message_got_no_reply(settings, project_dir):
    """A resumed session shows the reason under each unanswered message: the failure names
    the person's message it ended; an answered turn is not listed."""
    session, _ = await start(settings, project_dir, [
        Step(text="fine"), Step(error=LLMError("custom: HTTP 503: overloaded"))])
    await drain(session.run_turn("first"))
    await drain(session.run_turn("second"))
    users = [m for m in session.history if m.role is Role.USER and m.internal is None]
    reasons = SessionLedger.open(settings.home, session.session_id).unanswered_reasons()
    assert reasons == {users[1].id: "custom: HTTP 503: overloaded"}


class SilentClient(ScriptedClient):
    """A provider whose stream ends without a reply (no StreamDone, no error)."""

    async def stream(self, messages, tools=(), *, model=None):
        self.requests.append(list(messages))
        return
        yield


# The two other ways a provider ends a turn: a context-length refusal that stays after the
# forced compaction, and a stream that ends without a reply. Both were shown and not written.
@pytest.mark.parametrize("client", [
    ScriptedClient([Step(error=ContextLengthExceeded("maximum context length")),
                    Step(error=ContextLengthExceeded("maximum context length"))]),
    SilentClient([]),
], ids=["too-long-after-compacting", "no-reply"])
async def test_every_turn_the_provider_ended_is_recorded(settings, project_dir,
                                                         client) -> None:
    session = await AgentSession.start(settings, project_dir, client=client)
    events = await drain(session.run_turn("hi"))
    (shown,) = [e.message for e in events if isinstance(e, AgentError)]
    recorded = ledger_events(SessionLedger.open(settings.home, session.session_id).path,
                             "request_failed")
    assert [e["detail"] for e in recorded] == [shown]


async def test_cancel_during_tool_leaves_valid_history(settings, project_dir) -> None:
    started = asyncio.Event()

    async def slow_approval(request):
        started.set()
        await asyncio.sleep(60)
        return ApprovalDecision.ONCE

    steps = [Step(calls=[call("execute_command", command="true"),
                         call("read_file", path="nothing")])]
    session, _ = await start(settings, project_dir, steps, approve=slow_approval)

    async def consume():
        return await drain(session.run_turn("run"))

    task = asyncio.create_task(consume())
    await asyncio.wait_for(started.wait(), 60)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not pairing_problems(session.history)
    results = [m for m in session.history if m.role is Role.TOOL]
    assert len(results) == 2 and all("cancel" in m.content.lower() for m in results)
    restored = SessionLedger.open(settings.home, session.session_id).restore()
    assert not pairing_problems(restored.messages)
    assert len(restored.messages) == len(session.history)


async def test_aclose_mid_turn_repairs(settings, project_dir) -> None:
    (project_dir / "a.txt").write_text("a")
    steps = [Step(calls=[call("read_file", path="a.txt"), call("list_dir")])]
    session, _ = await start(settings, project_dir, steps)
    events = session.run_turn("x")
    async for event in events:
        if isinstance(event, ToolCallStarted):
            break
    await events.aclose()
    assert not pairing_problems(session.history)
    assert session.history[-1].role is Role.TOOL


async def test_next_turn_after_cancel_is_valid(settings, project_dir) -> None:
    gate = asyncio.Event()
    steps = [Step(text="never", wait=gate), Step(text="second ok")]
    session, client = await start(settings, project_dir, steps)
    task = asyncio.create_task(drain(session.run_turn("first")))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    events = await drain(session.run_turn("second"))
    assert events[-1].reason == "done" and client.problems == []


# A random script of model behaviour never leaves an invalid history.
_STEP = st.one_of(
    st.just(Step(text="answer")),
    st.builds(lambda n: Step(calls=[call("list_dir", depth=(i % 3) + 1) for i in range(n)]),
              st.integers(1, 3)),
    st.just(Step(calls=[call("nope")])),
    st.just(Step(error=LLMError("boom"))),
    st.just(Step(text="half", error=StreamInterrupted("cut"), error_after_text=True)),
    st.just(Step(error=ContextLengthExceeded("too long"))),
)


@hsettings(max_examples=25, deadline=None,
           suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(script=st.lists(_STEP, min_size=1, max_size=8), turns=st.integers(1, 3))
async def test_history_always_valid(settings, project_dir, script, turns) -> None:
    steps = list(script) + [Step(text="end")] * 30
    session, client = await start(settings.with_overrides(max_iterations=4), project_dir, steps)
    for turn in range(turns):
        await drain(session.run_turn(f"turn {turn}"))
        assert not pairing_problems(session.history)
    assert client.problems == []
    restored = SessionLedger.open(settings.home, session.session_id).restore()
    assert not pairing_problems(restored.messages)


async def test_unexpected_client_exception_ends_the_turn_cleanly(settings, project_dir,
                                                                  caplog) -> None:
    # A client bug (not an LLMError) becomes an error event with the key shape scrubbed;
    # the history keeps the user turn and stays valid.
    steps = [Step(error=RuntimeError("boom with Bearer sk-live-abcdefghijklmnop"))]
    session, client = await start(settings, project_dir, steps)
    events = await drain(session.run_turn("hi"))
    errors = [e for e in events if isinstance(e, AgentError)]
    assert events[-1].reason == "error" and len(errors) == 1
    assert "boom" in errors[0].message and "sk-live" not in errors[0].message
    assert "boom" in caplog.text and "sk-live" not in caplog.text
    assert pairing_problems(session.history) == []
    assert [m.role for m in session.history] == [Role.SYSTEM, Role.USER]


async def _read_x_with_arguments(settings, project_dir, arguments: str):
    """A turn whose one read_file call arrives with ``arguments`` as the model wrote them."""
    session, client = await start(settings, project_dir,
                                  [Step(calls=[call("read_file", path="x")]), Step(text="ok")])
    scripted = client.stream

    async def stream(messages, tools=(), *, model=None):
        async for event in scripted(messages, tools, model=model):
            if isinstance(event, StreamDone) and event.tool_calls:
                bad = ToolCall(event.tool_calls[0].id, "read_file", arguments)
                event = StreamDone(event.message.evolve(tool_calls=(bad,)), "tool_calls")
            yield event

    client.stream = stream
    return session, client, await drain(session.run_turn("read x"))


async def test_malformed_tool_arguments_get_an_error_and_a_sendable_history(settings,
                                                                           project_dir) -> None:
    # The model's broken JSON is answered with a clear error, and the stored call carries
    # a JSON object so the next request is one a provider accepts.
    session, _, events = await _read_x_with_arguments(settings, project_dir, '{"path": "x')
    assert events[-1].reason == "done"
    assistant = next(m for m in session.history if m.tool_calls)
    assert json.loads(assistant.tool_calls[0].arguments) == {"invalid_arguments": '{"path": "x'}
    result = next(m for m in session.history if m.role is Role.TOOL)
    assert "not valid JSON" in result.content


@pytest.mark.parametrize(("arguments", "said"), [
    ('{"path": "x', "(Unterminated string starting at position 9)"),
    ('{"path": "x\ty"}', "(Invalid control character at position 11)"),
    ('{"path": "x",}', "(Expecting property name enclosed in double quotes at position 13)"),
    ('{"path": "x"} {}', "(Extra data at position 14)"),
])
async def test_the_json_error_names_the_place_once(settings, project_dir, arguments,
                                                   said) -> None:
    session, _, _ = await _read_x_with_arguments(settings, project_dir, arguments)
    result = next(m for m in session.history if m.role is Role.TOOL)
    assert f"are not valid JSON {said}." in result.content


@pytest.mark.parametrize("arguments", ["[" * 100_000, '{"a": ' * 100_000 + "1",
                                       '{"path": "x", "more": ' + "[" * 50_000 + "]" * 50_000 + "}"])
async def test_arguments_nested_past_the_recursion_limit_get_an_error_not_a_crash(
        settings, project_dir, arguments) -> None:
    # json.loads raises RecursionError (not a JSONDecodeError) for such text: the turn ended
    # with that exception out of run_turn (exec printed a traceback, no TurnFinished); now the
    # call is answered like any malformed one and the turn goes on
    session, client, events = await _read_x_with_arguments(settings, project_dir, arguments)
    assert events[-1].reason == "done" and events[-1].final_text == "ok"
    result = next(m for m in session.history if m.role is Role.TOOL)
    assert "nested too deeply to read" in result.content or "not valid JSON" in result.content
    assert pairing_problems(session.history) == [] and client.problems == []

class SlowMemory:
    """Memory whose recall takes until ``release`` is set (a first run loading its models)."""

    def __init__(self) -> None:
        import threading

        self.recalling = threading.Event()
        self.release = threading.Event()

    def project_rules(self):
        from paicli_tui.core.contracts.services import ProjectRules

        return ProjectRules("", files=())

    def injection_block(self, query: str, budget_tokens: int) -> str:
        self.recalling.set()
        self.release.wait(30)
        return ""

    async def selected_block(self, query, budget_tokens, complete):
        from paicli_tui.core.contracts.services import MemoryChoice

        return MemoryChoice(self.injection_block(query, budget_tokens))

    def tools(self):
        return []

    def note_tool_result(self, tool_name, arguments, output, session) -> None:
        pass

    async def after_turn(self, user_input, session, complete):
        return []


async def test_cancel_while_memories_are_recalled_keeps_the_message(settings,
                                                                     project_dir) -> None:
    """Found in tmux: a message sent on a fresh machine waited ~9 s while memories were
    recalled; Esc then cancelled the turn and the message was gone for good (the chat had
    shown it; after --resume it was not there and the model never saw it). It now stays in
    the history and the ledger, the turn counts as cancelled, the next turn is valid."""
    memory = SlowMemory()
    session, client = await start(settings, project_dir, [Step(text="second ok")],
                                  memory=memory)
    task = asyncio.create_task(drain(session.run_turn("install the deps with uv")))
    assert await asyncio.to_thread(memory.recalling.wait, 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    memory.release.set()
    last = session.history[-1]
    assert last.role is Role.USER and last.meta.get("user_input") == "install the deps with uv"
    ledger = SessionLedger.open(settings.home, session.session_id)
    assert [m.content for m in ledger.restore().messages] == \
        [m.content for m in session.history]
    events = await drain(session.run_turn("second"))
    assert events[-1].reason == "done" and client.problems == []
