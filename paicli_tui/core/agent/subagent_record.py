"""A sub-agent's own numbers, kept by its parent session after the sub-agent ended, and
read back from its stream when the session is resumed."""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass, field

from ...paths import HomePaths
from ..context.ledger import SUBAGENT_MARK, LedgerError, SessionLedger
from ..contracts.events import AgentEvent, ContextCompacted, RequestStarted, ToolCallFinished, Usage
from ..messages import Message, Role
from ..tokens import estimate_request
from .ledger_events import ledger_events

log = logging.getLogger(__name__)


@dataclass
class SubAgentRecord:
    """One sub-agent of the session with its own numbers, kept after it ended (the context
    inspector lists them; the gauge shows only the main history)."""

    subagent: str
    label: str
    task_id: str = ""
    call_id: str = ""
    """The run_subagent call it answers (empty for a plan task, and in older ledgers)."""
    status: str = "running"
    """``running``, ``done``, ``failed`` or ``cancelled``."""
    messages: int = 0
    history_tokens: int = 0
    requests: int = 0
    tool_calls: int = 0
    compactions: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    elapsed_s: float = 0.0
    started_at: float = field(default_factory=time.monotonic, repr=False)

    def observe(self, event: AgentEvent) -> None:
        if isinstance(event, RequestStarted):
            self.requests += 1
            self.history_tokens = event.estimated_tokens
        elif isinstance(event, ToolCallFinished):
            self.tool_calls += 1
        elif isinstance(event, Usage):
            self.prompt_tokens += event.prompt_tokens
            self.completion_tokens += event.completion_tokens
        elif isinstance(event, ContextCompacted) and event.outcome == "compacted":
            self.compactions += 1
            self.history_tokens = event.tokens_after

    def write_finished(self, ledger: SessionLedger) -> None:
        """Record the final numbers in the sub-agent's own stream, so a resumed session shows
        the same ones (its history tokens include the tool schemas and the calibration, which
        the stream's messages alone cannot give back)."""
        try:
            ledger.event(FINISHED_EVENT, **{name: getattr(self, name) for name in _FINAL})
        except (LedgerError, OSError) as exc:  # the answer still reaches the parent
            log.warning("sub-agent %s: final numbers not recorded: %s", self.subagent, exc)


FINISHED_EVENT = "subagent_finished"
_FINAL = ("status", "messages", "history_tokens", "requests", "tool_calls", "compactions",
          "prompt_tokens", "completion_tokens", "elapsed_s")


RESTORED_AT_MOST = 20
"""A resumed session lists its last sub-agents, each read from its own stream."""


def restored_subagents(home: HomePaths, parent: SessionLedger) -> tuple[int, list[SubAgentRecord]]:
    """For a resumed session: the highest sub-agent number its streams use (new ones number
    on from there, never writing into an old stream) and the records of its last sub-agents,
    read back from their streams (messages, tokens, compactions; requests counted as the
    replies recorded). A stream that cannot be read is left out."""
    try:
        started = [e for e in ledger_events(parent.path, "subagent")
                   if e.get("kind") == "subagent"]
    except OSError as exc:
        log.warning("cannot read %s for sub-agents: %s", parent.path, exc)
        started = []
    prefix = parent.session_id + SUBAGENT_MARK
    numbers = [int(path.stem[len(prefix):]) for path in
               parent.path.parent.glob(f"{parent.session_id}{SUBAGENT_MARK}*.jsonl")
               if path.stem[len(prefix):].isdigit()]
    records = []
    for event in started[-RESTORED_AT_MOST:]:
        child = str(event.get("child", ""))
        try:
            records.append(_record_from_stream(home, child, str(event.get("label", child)),
                                               str(event.get("task_id", "")),
                                               str(event.get("call_id", ""))))
        except (LedgerError, OSError) as exc:
            log.warning("sub-agent stream %s left out: %s", child, exc)
    return max(numbers, default=0), records


def subagent_messages(home: HomePaths, child: str) -> list[Message]:
    """A sub-agent's own history as its stream keeps it (the current view)."""
    ledger = SessionLedger.open(home, child)
    try:
        return ledger.restore().messages
    finally:
        ledger.close()


def _record_from_stream(home: HomePaths, child: str, label: str, task_id: str,
                        call_id: str = "") -> SubAgentRecord:
    ledger = SessionLedger.open(home, child)
    try:
        messages = ledger.restore().messages
        compactions = sum(1 for e in ledger.compaction_history() if e.get("changed") is not False)
        cancelled = bool(ledger_events(ledger.path, "turn_cancelled"))
        finished = ledger_events(ledger.path, FINISHED_EVENT)
    finally:
        ledger.close()
    if finished:
        return _record_from_finished(finished[-1], child, label, task_id, call_id)
    # a stream written before the final numbers were recorded: counted from its messages
    last = messages[-1] if messages else None
    answered = (last is not None and last.role is Role.ASSISTANT and not last.tool_calls
                and bool(last.content.strip()))
    return SubAgentRecord(
        child, label, task_id, call_id,
        status="done" if answered else "cancelled" if cancelled else "failed",
        messages=len(messages), history_tokens=estimate_request(messages),
        requests=sum(m.role is Role.ASSISTANT for m in messages),
        tool_calls=sum(m.role is Role.TOOL for m in messages), compactions=compactions)


def _record_from_finished(event: dict, child: str, label: str, task_id: str,
                          call_id: str) -> SubAgentRecord:
    """The numbers the sub-agent had when it ended, as its stream recorded them; a value of
    the wrong kind (a hand-edited file: text, a boolean, a negative number, and the
    ``Infinity`` / ``NaN`` JSON readers accept) counts as 0."""
    def number(name: str) -> float:
        value = event.get(name)
        if not isinstance(value, int | float) or isinstance(value, bool):
            return 0
        return value if math.isfinite(value) and value >= 0 else 0

    status = event.get("status")
    return SubAgentRecord(
        child, label, task_id, call_id,
        status=status if status in ("done", "failed", "cancelled") else "failed",
        **{name: int(number(name)) for name in _FINAL if name not in ("status", "elapsed_s")},
        elapsed_s=float(number("elapsed_s")))
