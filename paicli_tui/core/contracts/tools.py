"""The contract every agent tool follows.

Tools live in several layers (file tools in core.agent.tools, save_memory in core.memory,
search_code in core.code); each implements :class:`Tool` and is registered in the agent's
tool registry. The contract sits below all of them so no engine imports the agent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ...config import Settings
from .asks import ApprovalCallback, ConflictCallback, Permission, deny_all
from .events import AgentEvent
from .llm import TextCompleter
from .session_state import SessionState


class ToolStatus(StrEnum):
    """How a tool call ended. A StrEnum, so it compares equal to its plain value."""

    DONE = "done"
    DENIED = "denied"
    """The person (or the headless policy) refused the call."""
    FAILED = "failed"
    CONFLICT = "conflict"
    """save_memory found conflicting memories and nobody decided (exit code 3 headless)."""


@dataclass
class ToolContext:
    project_root: Path
    settings: Settings
    session: SessionState
    approve: ApprovalCallback = deny_all
    resolve_conflict: ConflictCallback | None = None
    """When set (TUI), save_memory asks the person at once; else it returns the conflict."""
    light_complete: TextCompleter | None = None
    """The session's light model (search_code's query rewrite); None without a model."""
    call_id: str = ""
    """The call being run, when the tool needs to name it (a sub-agent names the parent's
    ``run_subagent`` call it answers)."""
    emit: Callable[[AgentEvent], None] | None = None
    """Where a tool posts events while it runs (a sub-agent's steps); None: nowhere."""
    granted: list[Permission] = field(default_factory=list)
    """Approvals given without asking during one call (the loop hands every call its own
    copy of the context, so this list belongs to that call)."""

    def for_one_call(self) -> ToolContext:
        """A copy for one tool call: same session and callbacks, its own ``granted``."""
        return replace(self, granted=[])


@dataclass(frozen=True)
class ToolOutput:
    content: str
    status: ToolStatus = ToolStatus.DONE
    external: bool = False
    """The result came from outside the project (web, MCP, a network command)."""
    offload_path: str | None = None
    """Project-relative path of the file holding the full output, when offloaded."""
    bypass_offload: bool = False
    """Never offload this result (paged read_file, reads under tool-outputs/)."""

    def __post_init__(self) -> None:
        # a plain string ("failed") is accepted and checked: every status is a ToolStatus
        object.__setattr__(self, "status", ToolStatus(self.status))


@runtime_checkable
class Tool(Protocol):
    name: str
    description: str
    parameters: dict[str, Any]
    """JSON schema of the arguments object."""
    requires_approval: bool

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> ToolOutput: ...


MAX_TOOL_DESCRIPTION = 1_024
"""OpenAI refuses a request offering a tool whose description is longer ("string too
long")."""


def tool_schema(tool: Tool) -> dict[str, Any]:
    """The OpenAI ``tools`` entry for one tool (its description within
    MAX_TOOL_DESCRIPTION characters)."""
    description = tool.description
    if len(description) > MAX_TOOL_DESCRIPTION:
        description = description[:MAX_TOOL_DESCRIPTION - 1] + "…"
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": description,
            "parameters": tool.parameters,
        },
    }
