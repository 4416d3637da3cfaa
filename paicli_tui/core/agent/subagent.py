"""Sub-agents: a task done in a history of its own, handing back only its answer.

The strongest context tool there is: a sub-agent reads twenty files, greps and searches in its
own window, and the main history receives a few hundred tokens of answer instead of the tool
outputs. Each sub-agent is a full :class:`AgentSession` — its own system prompt (the same
stable prompt files plus the sub-agent rules), its own context manager (so it compacts before
every one of its requests, behaviour §6), its own ledger stream named after the parent
(``<parent>.sub-N``) — sharing the parent's model client, code service, approvals and the
session-wide external-content mark. Depth 1: a sub-agent cannot start another.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...resources import load_prompt
from ..contracts.asks import ApprovalRequest
from ..contracts.events import (
    AgentError,
    AgentEvent,
    ContextCompacted,
    RequestRetrying,
    RequestStarted,
    SubAgentFinished,
    SubAgentStarted,
    SubAgentStep,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    Usage,
)
from ..contracts.tools import ToolContext, ToolOutput, ToolStatus
from .subagent_record import SubAgentRecord

if TYPE_CHECKING:
    from .session import AgentSession

READ_ONLY_TOOLS = frozenset({"read_file", "list_dir", "grep_code", "glob_files", "search_code",
                             "load_skill"})
"""What an exploring sub-agent may use: nothing that writes, runs or reaches outside."""
NEVER_IN_SUBAGENTS = frozenset({"run_subagent", "save_memory"})
MAX_PARALLEL = 3
MAX_LABEL = 40
RELAYED = (ToolCallStarted, ToolCallFinished, RequestStarted, RequestRetrying, Usage,
           ContextCompacted, AgentError)
"""The sub-agent's events its parent passes on (as SubAgentStep): what a person follows —
its tool calls, requests, tokens and compactions — not its streamed words."""


class SubAgentTool:
    name = "run_subagent"
    description = (
        "Delegate a self-contained task to a sub-agent with its own context window. It works "
        "with its own tools (read-only by default: read_file, list_dir, grep_code, glob_files, "
        "search_code) and returns only its final answer, so exploration — reading many files, "
        "searching, comparing — does not fill this conversation. It does not see this "
        "conversation: put everything it needs in `task`. Several calls in one reply run in "
        "parallel.")
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "task": {"type": "string",
                     "description": "The whole task, self-contained, with the expected answer."},
            "label": {"type": "string", "description": "A short name shown to the person."},
            "tools": {"type": "string", "enum": ["read_only", "all"],
                      "description": "read_only (default) or all (writes and commands, each "
                                     "approved by the person as usual)."},
        },
        "required": ["task"],
        "additionalProperties": False,
    }
    requires_approval = False

    def __init__(self, parent: AgentSession, max_parallel: int = MAX_PARALLEL) -> None:
        self.parent = parent
        self._slots = asyncio.Semaphore(max_parallel)

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> ToolOutput:
        task = arguments.get("task")
        if not isinstance(task, str) or not task.strip():
            return ToolOutput("run_subagent needs a 'task'.", status=ToolStatus.FAILED)
        tool_set = arguments.get("tools") or "read_only"
        if tool_set not in ("read_only", "all"):
            return ToolOutput("'tools' is read_only or all.", status=ToolStatus.FAILED)
        label = " ".join(str(arguments.get("label") or task).split())[:MAX_LABEL]
        async with self._slots:
            child = await self.parent.spawn_subagent(label, read_only=tool_set == "read_only",
                                                     call_id=context.call_id)
            try:
                outcome = await drive_subagent(child, task.strip(), emit=context.emit,
                                               call_id=context.call_id)
            finally:
                if child.state.external_content_used:  # the mark is session-wide
                    self.parent.state.external_content_used = True
                await child.close_subagent()
        final, reason, error, record = (outcome.final, outcome.reason, outcome.error,
                                        outcome.record)
        external = child.state.external_content_used
        head = (f"Sub-agent {label!r} ({child.session_id}; {record.requests} model requests, "
                f"{record.tool_calls} tool calls, its history {record.history_tokens:,} "
                "tokens)")
        if reason != "done" or not final.strip():
            why = error or {"max_iterations": "it ran out of requests",
                            "runaway": "it kept repeating one tool call",
                            "cancelled": "it was cancelled"}.get(reason, "it gave no answer")
            partial = f"\nWhat it said last:\n{final}" if final.strip() else ""
            return ToolOutput(f"{head} did not finish: {why}.{partial}",
                              status=ToolStatus.FAILED, external=external)
        return ToolOutput(f"{head} answered:\n\n{final.strip()}", external=external)


@dataclass(frozen=True)
class SubAgentOutcome:
    final: str
    reason: str
    """The sub-agent's TurnFinished reason (``cancelled`` when it was stopped)."""
    error: str
    record: SubAgentRecord


async def drive_subagent(child: AgentSession, task: str, *,
                         emit: Callable[[AgentEvent], None] | None = None,
                         call_id: str = "") -> SubAgentOutcome:
    """Run the sub-agent's one turn; its steps go to ``emit`` as they happen, framed by
    SubAgentStarted and SubAgentFinished (sent even when it is cancelled)."""
    record = child.subagent_record
    assert record is not None and child.parent_id is not None, "not a sub-agent"
    send = emit or (lambda event: None)
    ids = {"subagent": child.session_id, "parent": child.parent_id}
    send(SubAgentStarted(**ids, label=record.label, call_id=call_id, task_id=record.task_id))
    final, reason, error = "", "cancelled", ""
    try:
        async with contextlib.aclosing(child.run_turn(task)) as events:
            async for event in events:
                record.observe(event)
                record.messages = len(child.history)
                if isinstance(event, AgentError):
                    error = event.message
                elif isinstance(event, TurnFinished):
                    final, reason = event.final_text, event.reason
                if isinstance(event, RELAYED):
                    send(SubAgentStep(**ids, event=event))
    finally:
        record.elapsed_s = time.monotonic() - record.started_at
        record.messages = len(child.history)
        record.history_tokens = child.estimate()
        record.status = ("done" if reason == "done" and final.strip()
                         else "cancelled" if reason == "cancelled" else "failed")
        record.write_finished(child.ledger)
        send(SubAgentFinished(
            **ids, status=record.status, requests=record.requests,
            tool_calls=record.tool_calls, history_tokens=record.history_tokens,
            prompt_tokens=record.prompt_tokens, completion_tokens=record.completion_tokens,
            compactions=record.compactions, elapsed_s=round(record.elapsed_s, 3)))
    return SubAgentOutcome(final, reason, error, record)


def named_approvals(parent_approve: Any, label: str) -> Any:
    """The parent's approval callback, with the sub-agent named in every request."""

    async def approve(request: ApprovalRequest) -> Any:
        return await parent_approve(dataclasses.replace(
            request, summary=f"[sub-agent {label}] {request.summary}"))

    return approve


def subagent_system_prompt(parent_system: str) -> str:
    """The parent's stable prompt (same files, rules, skills) plus the sub-agent rules."""
    return parent_system.rstrip("\n") + "\n\n" + load_prompt("subagent").strip() + "\n"
