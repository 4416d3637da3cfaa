"""One sub-agent in the chat: a collapsible block whose title follows it live (status, elapsed
seconds, requests, tool calls, the tokens of its own history) and whose body lists its tool
calls as they happen, then its answer. Open while it runs; folded once it answered (left open
when it failed). It only renders: the chat screen hands it the sub-agent's events."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from textual.containers import Vertical
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Static

from ...core.context.boundary import unwrap_tool_result
from ...core.contracts import events as ev
from ...core.messages import Message, Role
from ..format import fmt_tokens, preview_lines, token_change
from .chat_collapsible import ChatCollapsible
from .tool_block import ToolBlock, recorded_status

if TYPE_CHECKING:
    from ...core.agent.subagent_record import SubAgentRecord

ICONS = {"running": "◆", "done": "✓", "failed": "✗", "cancelled": "⊘"}


def subagent_title(name: str, status: str, seconds: float | None, requests: int,
                   tool_calls: int, tokens: int) -> str:
    """``◆ sub-agent explore · running 12 s · 3 req · 5 tools · 2.3k tok``; without the
    seconds when they are not known (a sub-agent of a resumed session)."""
    parts = [f"{ICONS.get(status, '?')} {name}",
             status if seconds is None else
             f"{status} {seconds:.0f} s" if status == "running" else f"{status} · {seconds:.1f} s"]
    if requests:
        parts.append(f"{requests} req")
    if tool_calls:
        parts.append(f"{tool_calls} tool{'' if tool_calls == 1 else 's'}")
    if tokens:
        parts.append(f"{fmt_tokens(tokens)} tok")
    return " · ".join(parts)


class SubAgentBlock(ChatCollapsible):
    status: reactive[str] = reactive("running")
    clock: Callable[[], float] = staticmethod(time.monotonic)

    def __init__(self, started: ev.SubAgentStarted, caption: str = "") -> None:
        """``caption``: the plan task's title, for a task's sub-agent."""
        self.subagent = started.subagent
        self.heading = (f"task {started.task_id}: {caption or started.label}" if started.task_id
                     else f"sub-agent {started.label}")
        self.task_id = started.task_id
        self.call_id = started.call_id
        self.started_at = self.clock()
        self.seconds: float | None = None
        self.restored = False
        """Drawn from a resumed session's ledger: its seconds are not known."""
        self.requests = self.tool_calls = self.tokens = 0
        self.tools: dict[str, ToolBlock] = {}
        self._timer: Timer | None = None
        self._steps = Vertical(classes="subagent-steps")
        self._answer = Static("", markup=False, classes="subagent-answer")
        super().__init__(self._steps, self._answer, title=self.title_text("running"),
                         collapsed=False,
                         classes="subagent-block status-running")

    def on_mount(self) -> None:
        self._answer.display = False
        if self.status == "running":
            self._timer = self.set_interval(1.0, self._refresh_title)

    def title_text(self, status: str | None = None) -> str:
        seconds = None if self.restored else (
            self.seconds if self.seconds is not None else self.clock() - self.started_at)
        return subagent_title(self.heading, status or self.status, seconds, self.requests,
                              self.tool_calls, self.tokens)

    def _refresh_title(self) -> None:
        self.title = self.title_text()

    def watch_status(self, old: str, new: str) -> None:
        self.remove_class(f"status-{old}")
        self.add_class(f"status-{new}")

    async def step(self, event: ev.AgentEvent) -> None:
        """One event of the sub-agent's own turn."""
        if isinstance(event, ev.RequestStarted):
            self.requests += 1
            self.tokens = event.estimated_tokens
        elif isinstance(event, ev.ContextCompacted) and event.outcome == "compacted":
            self.tokens = event.tokens_after
            await self._steps.mount(Static(
                f"⇣ its history compacted ({event.tier}): "
                f"{token_change(event.tokens_before, event.tokens_after)} tokens", markup=False,
                classes="subagent-note"))
        elif isinstance(event, ev.ToolCallStarted):
            block = ToolBlock(event.call_id, event.name, event.arguments)
            self.tools[event.call_id] = block
            await self._steps.mount(block)
        elif isinstance(event, ev.ToolCallFinished):
            self.tool_calls += 1
            block = self.tools.get(event.call_id)
            if block is None:
                block = ToolBlock(event.call_id, event.name, "{}")
                self.tools[event.call_id] = block
                await self._steps.mount(block)
            block.finish(event.status, event.preview, event.chars, event.offload_path)
        elif isinstance(event, ev.AgentError):
            await self._steps.mount(Static(f"✗ {event.message}", markup=False,
                                           classes="subagent-note error"))
        self._refresh_title()

    def finish(self, event: ev.SubAgentFinished) -> None:
        """Its numbers as it reported them; folded unless it failed."""
        self._stop(event.status)
        self.seconds = event.elapsed_s
        self.requests, self.tool_calls = event.requests, event.tool_calls
        self.tokens = event.history_tokens or self.tokens
        self.title = self.title_text()
        self.set_collapsed(event.status == "done")

    async def restore(self, record: SubAgentRecord, messages: Sequence[Message]) -> None:
        """A sub-agent of a resumed session, drawn from its own stream: its tool calls with
        their results, its numbers and status as recorded; folded unless it failed."""
        results = {m.tool_call_id: m for m in messages
                   if m.role is Role.TOOL and m.tool_call_id}
        for message in messages:
            for call in message.tool_calls if message.role is Role.ASSISTANT else ():
                block = ToolBlock(call.id, call.name, call.arguments)
                self.tools[call.id] = block
                await self._steps.mount(block)
                result = results.get(call.id)
                block.finish(recorded_status(result),
                             unwrap_tool_result(result.content) if result is not None
                             else "no result recorded")
        self.restored = True
        self.requests, self.tool_calls = record.requests, record.tool_calls
        self.tokens = record.history_tokens
        self._stop(record.status)
        self.title = self.title_text()
        self.set_collapsed(record.status == "done")

    def show_answer(self, preview: str) -> None:
        """What the parent received (the run_subagent result, or the task's result)."""
        self._answer.update(preview_lines(preview))
        self._answer.display = bool(preview.strip())

    def cancel(self) -> None:
        """The turn ended while it ran (Esc): it and its running tools stopped."""
        if self.status != "running":
            return
        for block in self.tools.values():
            block.cancel()
        self._stop("cancelled")
        self.seconds = self.clock() - self.started_at
        self.title = self.title_text()

    def _stop(self, status: str) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.status = status
