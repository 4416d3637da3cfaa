"""The real core behind :class:`~.backend.Backend`: agent session, provider registry, session
ledger, memory and code services, each imported only when first used so start-up stays light.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import Settings
from ..core.contracts.asks import ApprovalCallback, ConflictCallback, SummaryConsentCallback
from ..core.messages import Message
from .backend import CodeBackend, MemoryBackend, ModelChoice, SessionRow

if TYPE_CHECKING:  # the core is imported lazily: start-up stays light
    from ..core.agent.port import SessionPort
    from ..core.code.service import LocalCodeService
    from ..core.contracts.llm import ChatClient
    from ..core.memory.service import LocalMemoryService


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
        """Each provider as /model would start it: the one in use with what it was given
        (its model, --window, base URL), the others with their defaults and their own key."""
        from ..core.llm.registry import (
            PROVIDERS,
            chosen_model,
            configuration_problem,
            switched_settings,
        )

        out = []
        for name in PROVIDERS:
            settings = switched_settings(self.settings, name, None)
            _, model, window, _ = chosen_model(settings)
            out.append(ModelChoice(name, model or "", window,
                                   configuration_problem(settings) is None,
                                   local=PROVIDERS[name].kind == "ollama"))
        return out

    async def start_session(self, client: ChatClient | None, approve: ApprovalCallback,
                            resolve_conflict: ConflictCallback | None,
                            resume: str | None,
                            ask_summary: SummaryConsentCallback | None = None
                            ) -> SessionPort:
        from ..core.agent.session import AgentSession

        if client is not None:
            # Keywords and vectors of the visible memories load in the background now, so
            # the first turn does not wait for the embedder.
            self._memory_service().warm_up()
        return await AgentSession.start(
            self.settings, self.project_root, client=client,
            memory=self._memory_service(), code=self._code_service(), approve=approve,
            resolve_conflict=resolve_conflict, resume=resume or None,
            ask_summary=ask_summary)

    # -- ledger --------------------------------------------------------------------------------
    def sessions(self) -> list[SessionRow]:
        from ..core.context.ledger import is_project_of, list_sessions

        rows = [
            SessionRow(s.session_id, s.title or "(untitled)", s.updated_here(),
                       int(s.message_count), str(s.project or ""),
                       other_project=not is_project_of(s.project, self.project_root))
            for s in list_sessions(self.settings.home, None)
            # a launch that never got a message (only the system prompt, so no title):
            # nothing to resume, and every start would add one such row
            if s.title or s.message_count > 1
        ]
        # this project's sessions first, each group newest first (the sort is stable)
        return sorted(rows, key=lambda row: row.other_project)

    def _unwritten(self, session_id: str) -> bool:
        """Nothing said yet: a new session's ledger reaches the disk with its first message
        (so no compaction either; reading it said "ledger unavailable: no session …")."""
        return not self.settings.home.session_ledger(session_id).exists()

    def compaction_history(self, session_id: str) -> list[dict]:
        from ..core.context.ledger import SessionLedger

        if self._unwritten(session_id):
            return []
        return SessionLedger.open(self.settings.home, session_id).compaction_history()

    def unanswered_reasons(self, session_id: str) -> dict[str, str]:
        from ..core.context.ledger import SessionLedger

        if self._unwritten(session_id):
            return {}
        return SessionLedger.open(self.settings.home, session_id).unanswered_reasons()

    def view_before_last_compaction(self, session_id: str) -> list[Message] | None:
        from ..core.context.ledger import SessionLedger

        if self._unwritten(session_id):
            return None
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
