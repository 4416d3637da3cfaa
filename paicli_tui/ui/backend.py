"""What the UI needs from the core, as small shapes the widgets can render.

The screens talk to a :class:`Backend`; ``core_backend.CoreBackend`` fills it from the real
core, and tests hand the app a backend built from fakes. Every call may block on disk, so
screens run them in workers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..config import Settings
from ..core.contracts.asks import (
    ApprovalCallback,
    ConflictCallback,
    ConflictDecision,
    ConflictEntry,
    SummaryConsentCallback,
)
from ..core.messages import Message

if TYPE_CHECKING:  # the core is imported lazily: start-up stays light
    from ..core.agent.port import SessionPort
    from ..core.contracts.llm import ChatClient


@dataclass(frozen=True)
class MemoryRow:
    """One visible memory as the browser shows it."""

    id: str
    scope: str
    content: str
    written: str
    verified: str
    stale: bool = False
    source: str = "explicit"
    pending: bool = False
    """Saved automatically and not accepted yet (the memory inbox)."""
    created: str = ""
    """When it was written, as an ISO time (new-since-last-look is decided by it)."""


class SensitiveText(ValueError):
    """A save or replace refused because the text looks like it holds a secret or personal
    data; the person may confirm it (``allow_sensitive``), as ``--sensitive`` does on the
    command line."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class SaveOutcome:
    """What an explicit save did: saved, refreshed a duplicate, or hit conflicts."""

    saved_id: str | None = None
    duplicate_of: str | None = None
    conflicts: tuple[ConflictEntry, ...] = ()
    message: str = ""
    replaced_id: str | None = None


CHANGED_MARK = "* "
"""Before the location of a result whose file changed or went away since the index was
built: the summary line counts them, the mark says which they are."""
CHANGED_PREVIEW = {
    "changed": "The file changed since the index was built: this is the text the index read, "
               "its lines may have moved (/index refreshes it).",
    "deleted": "The file was deleted since the index was built: this is the text the index "
               "read (/index refreshes it).",
}
"""Over the preview of such a result, whose text is the index's and not the file's."""


@dataclass(frozen=True)
class CodeHit:
    path: str
    line: int
    name: str
    score: float
    preview: str
    language: str = ""
    end_line: int = 0
    preview_start: int = 0
    """Line number of the preview's first line (0: the hit's line)."""
    match_text: str = ""
    """grep mode: the line that matched (``line`` is its number)."""
    changed: str = ""
    """"changed" or "deleted" when the file is no longer what the index read: the preview
    and the line are the index's, and the panel marks the row (core.code.stale)."""

    @property
    def reference(self) -> str:
        """``path:line`` as inserted into the chat input."""
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class CodeResults:
    """One search's results and, in grep mode, what was found before ranking."""

    hits: list[CodeHit]
    summary: str = ""
    """grep mode: ``13 matching lines in 3 files``; other modes: how many results come from
    files changed since the index was built, and whether the index is unfinished."""


@dataclass(frozen=True)
class IndexStatus:
    indexed: bool
    files: int = 0
    chunks: int = 0
    detail: str = ""


@dataclass(frozen=True)
class IndexStep:
    """One step of indexing as the code panel shows it: the core's ``IndexProgress`` with the
    line of text the panel prints (``message``)."""

    done: int
    total: int
    message: str = ""
    phase: str = ""
    """The indexer's step (scan, parse, embed, fulltext, done); "" from a source without."""
    detail: str = ""


@dataclass(frozen=True)
class SessionRow:
    session_id: str
    title: str
    updated: str
    message_count: int
    project: str = ""
    other_project: bool = False
    """Started in another project folder (``project``): reopened here, its tools would act
    on this folder's files, so the picker marks it and choosing it only says where it
    belongs."""


@dataclass(frozen=True)
class ModelChoice:
    provider: str
    model: str
    window: int
    configured: bool
    """A key (or a local server) is available for it."""
    local: bool = False
    """A local server (Ollama): nothing to configure, and nothing checks it is running, so
    the picker says "local" where a provider with its key says "ready"."""


class MemoryBackend(Protocol):
    def rows(self) -> list[MemoryRow]: ...
    def save(self, content: str, scope: str, force: bool = False,
             allow_sensitive: bool = False) -> SaveOutcome: ...
    def decide(self, content: str, scope: str, decision: ConflictDecision,
               replace_id: str | None, conflicting: Sequence[str], *,
               allow_sensitive: bool = False) -> SaveOutcome:
        """Carry out the person's answer to the conflicts a save returned (``allow_sensitive``:
        the save was a confirmed /save --sensitive); a refused write raises ValueError with
        the reason (:class:`SensitiveText` for text that looks secret)."""
        ...
    def replace(self, memory_id: str, content: str, allow_sensitive: bool = False) -> None:
        """Raises :class:`SensitiveText` for text that looks secret (unless confirmed), and
        ValueError with the reason for any other refusal."""
        ...
    def verify(self, memory_id: str) -> None: ...
    def delete(self, memory_id: str) -> None: ...
    def clear(self) -> int: ...
    def search(self, query: str, limit: int) -> tuple[list[str], str]:
        """Ids of the memories worth showing for ``query``, best first: ranked by meaning
        (either language) and by the rare words they share, as ``memory search`` ranks; and
        why no embedder read the meaning ("" when one did: then the rare words alone ranked
        them). May wait for the embedder to load (call it off the event loop)."""
        ...


class CodeBackend(Protocol):
    def status(self) -> IndexStatus: ...
    def search(self, query: str, mode: str, top_k: int) -> CodeResults: ...
    def index(self, progress: Callable[[IndexStep], None]) -> str: ...
    def graph(self, name: str) -> str: ...


class Backend(Protocol):
    """Everything the screens call; one per app."""

    settings: Settings
    project_root: Path

    def prepare(self) -> None:
        """Import and build what the session needs (run in a thread before it starts)."""
        ...
    def how_to_configure(self) -> str: ...
    def build_client(self, settings: Settings) -> ChatClient | None:
        """The model the settings name, or None when none is configured."""
        ...
    async def start_session(self, client: ChatClient | None, approve: ApprovalCallback,
                            resolve_conflict: ConflictCallback | None,
                            resume: str | None,
                            ask_summary: SummaryConsentCallback | None = None
                            ) -> SessionPort: ...
    def memory(self) -> MemoryBackend: ...
    def code(self) -> CodeBackend: ...
    def sessions(self) -> list[SessionRow]: ...
    def compaction_history(self, session_id: str) -> list[dict]: ...
    def view_before_last_compaction(self, session_id: str) -> list[Message] | None: ...
    def unanswered_reasons(self, session_id: str) -> dict[str, str]: ...
    def models(self) -> list[ModelChoice]: ...
    def has_code_index(self) -> bool: ...
