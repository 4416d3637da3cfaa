"""A scripted chat model for agent-loop tests (not a test module).

It speaks the ChatClient protocol: each request takes the next scripted step. Summary
requests (no tools, as the context manager sends them) get a valid four-section summary.
Every request is checked for pairing and recorded.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from paicli_tui.core.context.pairing import pairing_problems
from paicli_tui.core.context.summary import SECTION_TITLES
from paicli_tui.core.contracts.llm import LLMError, StreamDelta, StreamDone, UsageReport
from paicli_tui.core.messages import Message, ToolCall


def valid_summary(note: str = "") -> str:
    return "\n".join(f"## {title}\n- {note or 'kept'} {i}" for i, title in
                     enumerate(SECTION_TITLES))


@dataclass
class Step:
    """One scripted reply: text and/or tool calls, or an exception to raise."""

    text: str = ""
    calls: Sequence[tuple[str, dict[str, Any]]] = ()
    reasoning: str = ""
    error: Exception | None = None
    error_after_text: bool = False
    usage: UsageReport | None = None
    wait: asyncio.Event | None = None
    ids: Sequence[str] = ()
    pieces: Sequence[str] = ()
    """The text streamed in these pieces (``text`` is then their concatenation)."""

    def __post_init__(self) -> None:
        if self.pieces:
            self.text = "".join(self.pieces)


def call(name: str, **arguments: Any) -> tuple[str, dict[str, Any]]:
    return name, arguments


@dataclass
class ScriptedClient:
    steps: list[Step | Callable[[Sequence[Message]], Step]]
    provider: str = "scripted"
    model: str = "script-1"
    window: int = 128_000
    requests: list[list[Message]] = field(default_factory=list)
    tool_lists: list[list[dict]] = field(default_factory=list)
    summary_requests: int = 0
    problems: list[str] = field(default_factory=list)
    counter: int = 0
    closed: bool = False

    async def stream(self, messages: Sequence[Message], tools: Sequence[dict] = (), *,
                     model: str | None = None) -> AsyncIterator[Any]:
        if not tools:  # the context manager's summary call (agent requests carry tools)
            self.summary_requests += 1
            yield StreamDone(Message.assistant(valid_summary()), "stop")
            return
        self.requests.append(list(messages))
        self.tool_lists.append(list(tools))
        self.problems += pairing_problems(messages)
        self.problems += [f"empty {m.role} message" for m in messages
                          if not m.content and not m.tool_calls]
        if not self.steps:
            raise AssertionError("the scripted model ran out of steps")
        step = self.steps.pop(0)
        if callable(step):
            step = step(messages)
        if step.wait is not None:
            await step.wait.wait()
        if step.error is not None and not step.error_after_text:
            raise step.error
        if step.reasoning:
            yield StreamDelta(reasoning=step.reasoning)
        for piece in step.pieces or ([step.text] if step.text else []):
            yield StreamDelta(text=piece)
        if step.error is not None:
            raise step.error
        calls = []
        for index, (name, arguments) in enumerate(step.calls):
            self.counter += 1
            call_id = step.ids[index] if index < len(step.ids) else f"call_{self.counter}"
            calls.append(ToolCall(call_id, name, json.dumps(arguments)))
        if not step.text and not calls:
            raise LLMError("scripted empty reply")
        message = Message.assistant(step.text, calls, reasoning=step.reasoning or None)
        yield StreamDone(message, "tool_calls" if calls else "stop", step.usage, tuple(calls))

    async def aclose(self) -> None:
        self.closed = True


async def drain(iterator) -> list:
    return [event async for event in iterator]


async def one_turn_calls(settings: Any, root: Any, steps: list[Step], approve: Any
                         ) -> tuple[list[tuple[str, str, str]], list]:
    """Run one turn of a new session on ``steps``: each finished call as (name, status,
    permission), and every event."""
    from paicli_tui.core.agent.session import AgentSession
    from paicli_tui.core.contracts.events import ToolCallFinished

    session = await AgentSession.start(settings, root, client=ScriptedClient(steps),
                                       approve=approve)
    events = await drain(session.run_turn("go"))
    return [(e.name, e.status, e.permission) for e in events
            if isinstance(e, ToolCallFinished)], events
