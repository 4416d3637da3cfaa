"""The contract every agent tool follows, and the per-session state tools share.

Tools live in several layers (file tools in core.agent.tools, save_memory in core.memory,
search_code in core.code); each implements :class:`Tool` and is registered in the agent's
tool registry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ...config import Settings
from ..llm.base import TextCompleter
from .interaction import ApprovalCallback, ConflictCallback, deny_all


@dataclass
class SessionState:
    """Facts about the running session that tools and the memory guard need."""

    session_id: str
    external_content_used: bool = False
    """Set once a tool brought in web/MCP/network content (SPEC §16)."""
    current_user_input: str = ""
    """The person's own words this turn (the guard checks them for 'remember')."""
    always_approved: set[str] = field(default_factory=set)
    """Tools the person approved for the rest of the session."""
    tool_output_counter: int = 0
    """Numbering for offloaded outputs (NNN in tool-outputs/<session>/NNN-tool.txt)."""


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


@dataclass(frozen=True)
class ToolOutput:
    content: str
    status: str = "done"
    """``done``, ``denied`` or ``failed``."""
    external: bool = False
    """The result came from outside the project (web, MCP, a network command)."""
    offload_path: str | None = None
    """Project-relative path of the file holding the full output, when offloaded."""
    bypass_offload: bool = False
    """Never offload this result (paged read_file, reads under tool-outputs/)."""


@runtime_checkable
class Tool(Protocol):
    name: str
    description: str
    parameters: dict[str, Any]
    """JSON schema of the arguments object."""
    requires_approval: bool

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> ToolOutput: ...


def tool_schema(tool: Tool) -> dict[str, Any]:
    """The OpenAI ``tools`` entry for one tool."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }
