"""The per-session facts that tools, the memory guard and offload share."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..messages import Message


class ChangeRecorder(Protocol):
    """Keeps what a file held before the agent wrote it (core.agent.checkpoints)."""

    def record(self, turn_id: str, turn_number: int, path: Path, label: str,
               before: bytes | None, after: bytes) -> None:
        """Keep ``before`` (None: no file) and a digest of ``after`` for ``path``."""


@dataclass
class ApprovalMode:
    """How the person approves changes this session; one object shared by a session and its
    sub-agents, so switching it (Shift+Tab) reaches a sub-agent or plan task already
    running."""

    accept_edits: bool = False
    """``write_file`` and ``edit_file`` go ahead unasked (a file asked about every time still
    asks); commands, web and MCP calls still ask."""


@dataclass
class SessionState:
    """Facts about the running session that tools and the memory guard need."""

    session_id: str
    external_content_used: bool = False
    """Set once a tool brought in web/MCP/network content (behaviour §16); /clear resets it."""
    external_sources: list[str] = field(default_factory=list)
    """What brought it in (tool names, commands, addresses), for tagging explicit saves."""
    current_user_input: str = ""
    """The person's own words this turn (the guard checks them for 'remember')."""
    always_approved: set[str] = field(default_factory=set)
    """Tools the person approved for the rest of the session."""
    approval_mode: ApprovalMode = field(default_factory=ApprovalMode)
    not_run: set[str] = field(default_factory=set)
    """Ids of calls whose turn was cancelled while the person was asked to approve them
    (Ctrl+C in the dialog, quitting): they never ran, and their stand-in result says so."""
    unasked_text_calls: dict[str, str] = field(default_factory=dict)
    """Ids of calls the model wrote as text without being asked to (a weak model's slip, or
    a model quoting text it read), each with why, as the question says it: only the person
    approves them, never ``--yes`` or an earlier "Always" (read-only ones still run)."""
    quoted_calls: set[tuple[str, str]] = field(default_factory=set)
    """Calls (name, arguments) found quoting a tool result: the same call written again after
    that result was cleared or compacted away is still a quote."""
    every_call_asked: bool = False
    """A sub-agent started by such a call: its own calls are native, but what it does is
    what the written call asked for, so every one of them is asked of the person too."""
    tool_output_counter: int = 0
    """Numbering for offloaded outputs (NNN in tool-outputs/<session>/NNN-tool.txt)."""
    turn_id: str = ""
    """The running turn (new for each turn and plan; a sub-agent shares its parent's)."""
    turn_number: int = 0
    """The running turn's number in this run of the session, for what /undo says."""
    checkpoints: ChangeRecorder | None = None
    """Where file changes are recorded for /undo (shared with sub-agents); None: nowhere."""
    injections: list[Message] = field(default_factory=list)
    """Internal user messages a tool asked to add after its results (a loaded skill)."""

    def inject(self, message: Message) -> None:
        self.injections.append(message)

    def take_injections(self) -> list[Message]:
        taken, self.injections = self.injections, []
        return taken
