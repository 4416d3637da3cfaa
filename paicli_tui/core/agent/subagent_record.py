"""A sub-agent's own numbers, kept by its parent session after the sub-agent ended."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..contracts.events import AgentEvent, ContextCompacted, RequestStarted, ToolCallFinished, Usage


@dataclass
class SubAgentRecord:
    """One sub-agent of the session with its own numbers, kept after it ended (the context
    inspector lists them; the gauge shows only the main history)."""

    subagent: str
    label: str
    task_id: str = ""
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
