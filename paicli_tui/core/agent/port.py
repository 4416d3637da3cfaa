"""The session port: everything the TUI and ``paicli-tui exec`` may ask of an agent session.

:class:`~paicli_tui.core.agent.session.AgentSession` implements it; the UI's tests drive a
scripted fake that is checked against it. The faces see a session only through this protocol,
so nothing at that boundary is ``Any`` and nothing is probed with ``getattr``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..context.profile import ContextProfile
from ..contracts.events import AgentEvent, ContextCompacted
from ..contracts.llm import ChatClient
from ..contracts.services import CodeService, MemoryService
from ..mcp import McpManager
from ..messages import Message
from ..skills import SkillCatalog
from .checkpoints import UndoResult
from .diff_view import DiffView
from .plan_resume import InterruptedPlan
from .subagent_record import SubAgentRecord


@dataclass(frozen=True)
class ManualCompaction:
    """What /compact did. ``events`` are the ones the session wrote to its ledger, one per
    tier that changed the history or failed (a failure is a ``CompactionFailed``); the faces
    show them as they are."""

    events: tuple[ContextCompacted, ...]
    compacted: bool
    """True when some tier made the history smaller."""
    why_not: str = ""
    """When nothing was compacted: the tiers' reasons, joined ("" when they gave none)."""


@runtime_checkable
class SessionPort(Protocol):
    """One running conversation, as its two faces drive it."""

    @property
    def session_id(self) -> str:
        """The ledger's id (``--resume`` takes it)."""
        ...

    @property
    def history(self) -> list[Message]:
        """The messages the model sees now (read it; change it through the methods)."""
        ...

    @property
    def client(self) -> ChatClient | None:
        """The chat model, or None when none is configured (every pane still works)."""
        ...

    @property
    def memory(self) -> MemoryService | None: ...

    @property
    def code(self) -> CodeService | None: ...

    @property
    def skills(self) -> SkillCatalog:
        """The skills found for this project (``/skills`` lists them)."""
        ...

    @property
    def mcp(self) -> McpManager | None:
        """The session's MCP servers (``/mcp`` shows them); None when none are configured."""
        ...

    async def approve_project_mcp(self) -> str:
        """``/mcp approve``: trust the project's .mcp.json and start its servers now."""
        ...

    async def restart_mcp(self, name: str = "") -> str:
        """``/mcp restart [NAME]``: start NAME's MCP server again (every failed one without
        a name); '' when restarts ran (their outcomes come as changes), else why none did."""
        ...

    def watch_mcp(self, listener: Callable[[], None] | None) -> None:
        """Call ``listener()`` when an MCP server fails by itself or a restart ends."""
        ...

    def take_mcp_changes(self) -> list[AgentEvent]:
        """MCP servers that failed or were restarted since the last call (``mcp_server``
        events, each recorded in the ledger)."""
        ...

    @property
    def profile(self) -> ContextProfile:
        """The thresholds in force (they follow the model's window)."""
        ...

    def run_turn(self, user_input: str) -> AsyncIterator[AgentEvent]:
        """One user turn as typed events, ending with TurnFinished."""
        ...

    @property
    def accept_edits(self) -> bool:
        """File writes go ahead unasked (commands still ask): the accept-edits mode."""
        ...

    def set_accept_edits(self, on: bool) -> None:
        """Switch the accept-edits mode (Shift+Tab)."""
        ...

    async def last_turn_diff(self) -> DiffView | None:
        """/diff turn: what the agent changed in its newest turn with changes (None: no file)."""
        ...

    async def undo_last_turn(self) -> UndoResult:
        """/undo: put back the files the agent changed in its newest turn with changes."""
        ...

    def run_shell_line(self, command: str) -> AsyncIterator[AgentEvent]:
        """``!command``: run what the person typed now (no approval: they typed it); its
        output goes to the model with their next message."""
        ...

    def run_plan(self, goal: str, *, review: Any, on_failure: Any = None,
                 resume: InterruptedPlan | None = None) -> AsyncIterator[AgentEvent]:
        """Plan mode: propose, review, run the tasks as sub-agents; ``resume`` continues an
        interrupted plan (only its unfinished tasks run)."""
        ...

    def interrupted_plan(self) -> InterruptedPlan | None:
        """The session's last plan when it never finished (reads the ledger: call it off
        the UI thread)."""
        ...

    @property
    def subagent_records(self) -> list[SubAgentRecord]:
        """Every sub-agent of this session so far with its own numbers (the gauge shows
        the main history only)."""
        ...

    def subagent_history(self, subagent: str) -> list[Message]:
        """The own history of one of this session's sub-agents (reads its stream: call it
        off the UI thread); KeyError for an id that is not one of them."""
        ...

    def estimate(self) -> int:
        """Estimated tokens of the next request as the history stands."""
        ...

    def tool_schemas(self) -> list[dict[str, Any]]: ...

    async def compact_now(self, focus: str = "") -> ManualCompaction:
        """Manual /compact [focus]: the events of the tiers that ran, recorded in the ledger;
        ``focus`` is the person's instructions for the summary."""
        ...

    def clear_history(self) -> None:
        """/clear: the model starts fresh; the ledger keeps everything."""
        ...

    def switch_model(self, client: ChatClient) -> None: ...

    def replace_view(self, messages: Sequence[Message], reason: str) -> None:
        """The model now sees ``messages`` (restore the view before a compaction)."""
        ...

    async def wait_background(self) -> None:
        """Until background work (fact extraction) is done."""
        ...

    def take_notices(self) -> list[AgentEvent]:
        """Events produced in the background since the last call (memory saves). The one way
        they reach a face: after a turn (or a plan) the face waits for the background work,
        then takes them; a turn's own events never carry them."""
        ...

    async def aclose(self) -> None: ...
