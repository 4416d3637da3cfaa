"""The loop at its limits: the request cap's wrap-up, duplicate call ids, a request that
cannot fit the window (never sent)."""

from __future__ import annotations

import json

from agent_script import ScriptedClient, Step, call, drain

from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.context.pairing import pairing_problems
from paicli_tui.core.contracts.events import AgentError, RequestStarted, ToolCallFinished
from paicli_tui.core.messages import InternalKind, Role


class WrapUpClient(ScriptedClient):
    """Answers the tool-less request with a best-effort text and records it."""

    tool_less: list = []

    async def stream(self, messages, tools=(), *, model=None):  # noqa: ANN001, ANN201
        from paicli_tui.core.contracts.llm import StreamDone
        from paicli_tui.core.messages import Message

        if not tools and messages[0].content != "":
            if "best" in messages[-1].content or "requests this turn" in messages[-1].content:
                self.tool_less.append(list(messages))
                yield StreamDone(Message.assistant("Best effort: listed three folders."),
                                 "stop")
                return
        async for event in super().stream(messages, tools, model=model):
            yield event


async def test_request_cap_asks_for_one_answer_without_tools(settings, project_dir) -> None:
    steps = [Step(calls=[call("list_dir", path=".", depth=i % 3 + 1)]) for i in range(5)]
    client = WrapUpClient(list(steps))
    client.tool_less = []
    session = await AgentSession.start(settings.with_overrides(max_iterations=3), project_dir,
                                       client=client)
    events = await drain(session.run_turn("go"))
    assert len(client.requests) == 3 and len(client.tool_less) == 1
    last = client.tool_less[0]
    assert last[-1].role is Role.USER and "3 model requests" in last[-1].content
    assert events[-1].reason == "max_iterations"
    assert events[-1].final_text == "Best effort: listed three folders."
    assert any(isinstance(e, AgentError) and "final answer without tools" in e.message
               for e in events)
    notice = [m for m in session.history if m.internal is InternalKind.NOTICE]
    assert len(notice) == 1 and not pairing_problems(session.history)


class RefusingWrapUp(WrapUpClient):
    """Refuses the first wrap-up request as too long (a provider's 400), then answers."""

    refusals: int = 0

    async def stream(self, messages, tools=(), *, model=None):  # noqa: ANN001, ANN201
        from paicli_tui.core.contracts.llm import ContextLengthExceeded

        last = messages[-1].content if messages else ""
        if not tools and "3 model requests" in last and self.refusals == 0:
            self.refusals += 1
            raise ContextLengthExceeded("maximum context length is 128000 tokens")
        async for event in super().stream(messages, tools, model=model):
            yield event


async def test_a_refused_wrap_up_is_compacted_and_sent_once_more(settings,
                                                                  project_dir) -> None:
    steps = [Step(calls=[call("list_dir", path=".", depth=i % 3 + 1)]) for i in range(5)]
    client = RefusingWrapUp(list(steps))
    client.tool_less, client.refusals = [], 0
    session = await AgentSession.start(settings.with_overrides(max_iterations=3), project_dir,
                                       client=client)
    events = await drain(session.run_turn("go"))
    assert client.refusals == 1 and len(client.tool_less) == 1
    assert events[-1].reason == "max_iterations"
    assert events[-1].final_text == "Best effort: listed three folders."
    assert not pairing_problems(session.history)


async def test_cap_zero_means_no_cap(settings, project_dir) -> None:
    steps = [Step(calls=[call("list_dir", path=".", depth=i % 3 + 1)]) for i in range(45)]
    steps.append(Step(text="finally done"))
    client = ScriptedClient(steps)
    session = await AgentSession.start(settings.with_overrides(max_iterations=0), project_dir,
                                       client=client)
    events = await drain(session.run_turn("go"))
    assert events[-1].reason == "done" and events[-1].final_text == "finally done"
    assert len(client.requests) == 46


async def test_duplicate_call_ids_are_made_unique(settings, project_dir) -> None:
    (project_dir / "a.txt").write_text("alpha")
    (project_dir / "b.txt").write_text("beta")
    steps = [Step(calls=[call("read_file", path="a.txt"), call("read_file", path="b.txt")],
                  ids=["call_0", "call_0"]),
             Step(calls=[call("read_file", path="a.txt")], ids=["call_0"]),
             Step(text="read both")]
    client = ScriptedClient(steps)
    session = await AgentSession.start(settings, project_dir, client=client)
    events = await drain(session.run_turn("read"))
    finished = [e.call_id for e in events if isinstance(e, ToolCallFinished)]
    assert finished == ["call_0", "call_0-2", "call_0-3"]
    last_request = client.requests[-1]
    results = [m.content for m in last_request if m.role is Role.TOOL]
    assert "alpha" in results[0] and "beta" in results[1] and "alpha" in results[2]
    assert client.problems == [] and pairing_problems(session.history) == []


async def test_a_request_above_the_window_is_never_sent(settings, project_dir) -> None:
    """A 4k window whose fixed part (here: project rules made the system prompt ~5,000
    tokens) cannot fit: the turn says why and what to do, and sends nothing."""
    client = ScriptedClient([Step(text="never")], window=4_000)
    session = await AgentSession.start(settings, project_dir, client=client)
    session.history[0] = session.history[0].evolve(content="rule " * 4_000)
    events = await drain(session.run_turn("hello"))
    errors = [e.message for e in events if isinstance(e, AgentError)]
    assert errors and errors[0].startswith("Not sent") and "window is 4,000" in errors[0]
    assert "too small for this set-up" in errors[0]
    assert not any(isinstance(e, RequestStarted) for e in events) and client.requests == []
    assert events[-1].reason == "error"


async def test_a_reply_with_thousands_of_calls_runs_the_first_64(settings, project_dir) -> None:
    """A model stuck in a loop asked for 5,000 list_dir calls in one reply: every one ran
    and added its result (80,000 fit the reply cap). Now the first 64 run, the rest are
    dropped from the reply, the person gets an error line, the ledger a record, and the
    model a notice after the results; the next request is valid."""
    from paicli_tui.core.agent.loop import MAX_CALLS_PER_REPLY

    asked = 5_000
    client = ScriptedClient([Step(calls=[call("list_dir", path=".", depth=i % 3 + 1)
                                         for i in range(asked)]),
                             Step(text="Listed what I needed.")])
    session = await AgentSession.start(settings, project_dir, client=client)
    events = await drain(session.run_turn("look around"))
    assert MAX_CALLS_PER_REPLY == 64
    assert sum(isinstance(e, ToolCallFinished) for e in events) == 64
    errors = [e.message for e in events if isinstance(e, AgentError)]
    assert errors == ["The model asked for 5,000 tool calls in one reply: the first 64 run, "
                      "the other 4,936 were dropped (it is told so)."]
    second = client.requests[1]
    assert [m.role for m in second[2:]] == [Role.ASSISTANT] + [Role.TOOL] * 64 + [Role.USER]
    assert len(second[2].tool_calls) == 64
    assert second[-1].internal is InternalKind.NOTICE
    assert "asked for 5000 tool calls at once; only the first 64 were run" in second[-1].content
    assert client.problems == [] and not pairing_problems(session.history)
    records = [json.loads(line) for line in session.ledger.path.read_text().splitlines()]
    dropped = [(r["asked"], r["kept"]) for r in records if r.get("kind") == "tool_calls_dropped"]
    assert dropped == [(5_000, 64)] and events[-1].reason == "done"
