"""What the UI needs from the core, as small shapes the widgets can render.

The screens talk to a :class:`Backend`; :class:`CoreBackend` fills it from the real core
(agent session, provider registry, session ledger, memory and code services), importing each
part only when first used so start-up stays light. Tests hand the app a backend built from
fakes. Every call here may block on disk, so screens run them in workers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..config import Settings
from ..core.contracts.asks import (
    ApprovalCallback,
    ConflictCallback,
    ConflictDecision,
    ConflictEntry,
)
from ..core.messages import Message

if TYPE_CHECKING:  # the core is imported lazily: start-up stays light
    from ..core.agent.port import SessionPort
    from ..core.code.service import LocalCodeService
    from ..core.contracts.llm import ChatClient
    from ..core.memory.service import LocalMemoryService


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


@dataclass(frozen=True)
class SaveOutcome:
    """What an explicit save did: saved, refreshed a duplicate, or hit conflicts."""

    saved_id: str | None = None
    duplicate_of: str | None = None
    conflicts: tuple[ConflictEntry, ...] = ()
    message: str = ""
    replaced_id: str | None = None


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

    @property
    def reference(self) -> str:
        """``path:line`` as inserted into the chat input."""
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class IndexStatus:
    indexed: bool
    files: int = 0
    chunks: int = 0
    detail: str = ""


@dataclass(frozen=True)
class IndexProgress:
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


@dataclass(frozen=True)
class ModelChoice:
    provider: str
    model: str
    window: int
    configured: bool
    """A key (or a local server) is available for it."""


class MemoryBackend(Protocol):
    def rows(self) -> list[MemoryRow]: ...
    def save(self, content: str, scope: str, force: bool = False,
             allow_sensitive: bool = False) -> SaveOutcome: ...
    def decide(self, content: str, scope: str, decision: ConflictDecision,
               replace_id: str | None, conflicting: Sequence[str]) -> SaveOutcome:
        """Carry out the person's answer to the conflicts a save returned; a refused write
        raises ValueError with the reason."""
        ...
    def replace(self, memory_id: str, content: str) -> None: ...
    def verify(self, memory_id: str) -> None: ...
    def delete(self, memory_id: str) -> None: ...
    def clear(self) -> int: ...


class CodeBackend(Protocol):
    def status(self) -> IndexStatus: ...
    def search(self, query: str, mode: str, top_k: int) -> list[CodeHit]: ...
    def index(self, progress: Callable[[IndexProgress], None]) -> str: ...
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
                            resume: str | None) -> SessionPort: ...
    def memory(self) -> MemoryBackend: ...
    def code(self) -> CodeBackend: ...
    def sessions(self) -> list[SessionRow]: ...
    def compaction_history(self, session_id: str) -> list[dict]: ...
    def view_before_last_compaction(self, session_id: str) -> list[Message] | None: ...
    def models(self) -> list[ModelChoice]: ...
    def has_code_index(self) -> bool: ...


def _date(value: str | None) -> str:
    """The day of an ISO time stamp, for a table cell."""
    return value[:10] if value else "—"


@dataclass
class CoreBackend:
    """The real core, imported lazily."""

    settings: Settings
    project_root: Path
    _memory: LocalMemoryService | None = field(default=None, repr=False)
    _code: LocalCodeService | None = field(default=None, repr=False)

    def prepare(self) -> None:
        """Import the core and build the services (called in a thread before the session
        starts, so the first paint does not wait for them)."""
        import importlib

        for module in ("agent.session", "llm.registry", "context.ledger"):
            importlib.import_module(f"paicli_tui.core.{module}")
        self._memory_service()
        self._code_service()

    # -- model ---------------------------------------------------------------------------------
    def how_to_configure(self) -> str:
        from ..core.llm.registry import how_to_configure

        return how_to_configure(self.settings)

    def build_client(self, settings: Settings) -> ChatClient | None:
        from ..core.llm.registry import build_client

        return build_client(settings)

    def has_code_index(self) -> bool:
        """Cheap: looks for the index folder, never opens LanceDB (start-up stays light)."""
        from ..core.code.lance_store import has_index

        return has_index(self.settings, self.project_root)

    def models(self) -> list[ModelChoice]:
        from ..core.llm.registry import PROVIDERS

        out = []
        for name, spec in PROVIDERS.items():
            key_variable = spec.key_variable
            configured = (not key_variable) or bool(self.settings.key_for(key_variable))
            out.append(ModelChoice(name, spec.default_model or "", int(spec.window or 0),
                                   configured))
        return out

    async def start_session(self, client: ChatClient | None, approve: ApprovalCallback,
                            resolve_conflict: ConflictCallback | None,
                            resume: str | None) -> SessionPort:
        from ..core.agent.session import AgentSession

        if client is not None:
            # Keywords and vectors of the visible memories load in the background now, so
            # the first turn does not wait for the embedder.
            self._memory_service().warm_up()
        return await AgentSession.start(
            self.settings, self.project_root, client=client,
            memory=self._memory_service(), code=self._code_service(), approve=approve,
            resolve_conflict=resolve_conflict, resume=resume or None)

    # -- ledger --------------------------------------------------------------------------------
    def sessions(self) -> list[SessionRow]:
        from ..core.context.ledger import list_sessions

        return [
            SessionRow(s.session_id, s.title or "(untitled)", _date(s.updated),
                       int(s.message_count), str(s.project or ""))
            for s in list_sessions(self.settings.home, None)
            # a launch that never got a message (only the system prompt, so no title):
            # nothing to resume, and every start would add one such row
            if s.title or s.message_count > 1
        ]

    def compaction_history(self, session_id: str) -> list[dict]:
        from ..core.context.ledger import SessionLedger

        return SessionLedger.open(self.settings.home, session_id).compaction_history()

    def view_before_last_compaction(self, session_id: str) -> list[Message] | None:
        from ..core.context.ledger import SessionLedger

        ledger = SessionLedger.open(self.settings.home, session_id)
        return ledger.checkpoint_before_last_compaction()

    # -- memory and code -----------------------------------------------------------------------
    def _memory_service(self) -> LocalMemoryService:
        if self._memory is None:
            from ..core.memory.service import LocalMemoryService

            self._memory = LocalMemoryService(self.settings, self.project_root)
        return self._memory

    def _code_service(self) -> LocalCodeService:
        if self._code is None:
            from ..core.code.service import LocalCodeService

            self._code = LocalCodeService(self.settings, self.project_root)
        return self._code

    def memory(self) -> MemoryBackend:
        from .core_adapters import MemoryAdapter

        return MemoryAdapter(self._memory_service())

    def code(self) -> CodeBackend:
        from .core_adapters import CodeAdapter

        return CodeAdapter(self._code_service(), self.settings, self.project_root)
