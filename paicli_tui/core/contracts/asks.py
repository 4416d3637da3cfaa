"""What the agent may ask the person: awaitable callbacks handed to the core.

The TUI answers with a modal; headless mode answers from its flags. The core only awaits.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum


class ApprovalDecision(StrEnum):
    ONCE = "once"
    ALWAYS = "always"
    """Approve this tool for the rest of the session."""
    DENY = "deny"


class Permission(StrEnum):
    """How a call that needs approval went ahead without the person being asked this time
    (shown on the call's block, carried by ``ToolCallFinished.permission``)."""

    ALWAYS = "always"
    """The person chose "Always" for this tool earlier in the session."""
    AUTO = "auto"
    """``--yes``: every write and command is approved."""
    EDITS = "accept-edits"
    """The accept-edits mode (Shift+Tab, ``--accept-edits``): file writes are approved."""
    READ_ONLY = "read-only"
    """A shell command made only of read-only parts (settings.read_only_commands)."""


@dataclass(frozen=True)
class ApprovalRequest:
    tool: str
    summary: str
    """One line: the command, or 'write path/to/file'."""
    detail: str = ""
    """The full command text or a unified diff of the change."""
    call_id: str = ""
    """The tool call that asks (set by ask_approval): a face stops that call's clock while
    the person decides."""
    asked_every_time: str = ""
    """Why only the person may approve this call, --yes and "Always" not counting (a call
    the model wrote as text unasked …; set by ask_approval), or empty."""


@dataclass(frozen=True)
class ConflictEntry:
    id: str
    content: str


class ConflictDecision(StrEnum):
    REPLACE = "replace"
    KEEP_BOTH = "keep_both"
    CANCEL = "cancel"


@dataclass(frozen=True)
class ConflictRequest:
    new_content: str
    existing: tuple[ConflictEntry, ...]


class SummaryConsent(StrEnum):
    """The answer to "summarise the older turns now?" (setting ``ask_before_summary``)."""

    NOW = "now"
    NOT_YET = "not_yet"
    """Go on without a summary until the hard limit; there it is made without asking."""


@dataclass(frozen=True)
class SummaryConsentRequest:
    tokens: int
    """The request's estimate now (at or above the compaction trigger)."""
    compaction_trigger: int
    hard_limit: int
    """Where "not yet" ends: from here the summary is made without asking."""
    window: int
    keep_user_turns: int
    """User turns the summary keeps word for word."""


ApprovalCallback = Callable[[ApprovalRequest], Awaitable[ApprovalDecision]]
ConflictCallback = Callable[[ConflictRequest], Awaitable[tuple[ConflictDecision, str | None]]]
"""Returns the decision and, for REPLACE, the id of the entry to replace."""
SummaryConsentCallback = Callable[[SummaryConsentRequest], Awaitable[SummaryConsent]]
"""None where nobody can answer (headless): the summary is made without asking."""


async def deny_all(request: ApprovalRequest) -> ApprovalDecision:
    return ApprovalDecision.DENY


async def approve_all(request: ApprovalRequest) -> ApprovalDecision:
    return ApprovalDecision.ONCE
