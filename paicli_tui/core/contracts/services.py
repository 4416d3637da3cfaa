"""Seams between the agent loop and the other core layers.

The loop is written against these small protocols so that memory and code retrieval can be
plugged in (or left out in tests) without the loop importing their heavy dependencies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .llm import TextCompleter
from .session_state import SessionState
from .tools import Tool, ToolOutput


@dataclass(frozen=True)
class ProjectRules:
    """The concatenated PAI.md text and which files it came from (behaviour §10)."""

    text: str
    files: tuple[str, ...] = field(default_factory=tuple)
    truncated: bool = False


@dataclass(frozen=True)
class MemoryChoice:
    """What a turn's selection gave: the block, and for the event and the ledger whether the
    model was asked, among how many candidates, the ids shown and why the offline choice was
    kept ('' when the model chose). Ids only: no memory text leaves through here."""

    block: str
    asked: bool = False
    candidates: int = 0
    chosen: tuple[str, ...] = ()
    fallback: str = ""


class MemoryService(Protocol):
    """Long-term memory as the agent loop sees it (implemented in core.memory)."""

    def project_rules(self) -> ProjectRules:
        """PAI.md text for the system prompt's project context."""
        ...

    def injection_block(self, query: str, budget_tokens: int) -> str:
        """Memories relevant to ``query`` as the block placed in the newest user turn
        ('' when nothing qualifies)."""
        ...

    async def selected_block(self, query: str, budget_tokens: int,
                             complete: TextCompleter) -> MemoryChoice:
        """As :meth:`injection_block`, the light model ``complete`` choosing among the
        candidates (the loop calls it when a light model chooses the turn's memories)."""
        ...

    def tools(self) -> Sequence[Tool]:
        """Agent tools this service contributes (save_memory)."""
        ...

    def note_tool_result(self, tool_name: str, arguments: dict, output: ToolOutput,
                         session: SessionState) -> None:
        """Watch every tool result for external content (behaviour §16)."""
        ...

    async def after_turn(self, user_input: str, session: SessionState,
                         complete: TextCompleter | None) -> list[str]:
        """Automatic fact extraction after a finished top-level turn; returns saved ids."""
        ...

    def store_problems(self) -> list[str]:
        """What went wrong with the memory file since the last call (moved aside, entries
        set aside), each said once, for a notice to the person."""
        ...


class CodeService(Protocol):
    """Code retrieval as the agent loop sees it (implemented in core.code)."""

    def tools(self) -> Sequence[Tool]:
        """grep_code, glob_files, search_code, code_graph."""
        ...
