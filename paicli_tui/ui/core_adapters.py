"""Adapters from the real core services to the shapes the UI renders (backend.py).

Imported only when a panel first needs the core, never at start-up.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..config import Settings
from .backend import (
    CodeHit,
    IndexProgress,
    IndexStatus,
    MemoryRow,
    SaveOutcome,
    conflict_entries,
)

PREVIEW_BEFORE = 3
PREVIEW_LINES = 20


class CodeAdapter:
    """grep through core.code.grep; semantic/text/hybrid through the index search."""

    def __init__(self, service: Any, settings: Settings, project_root: Path) -> None:
        self.service = service
        self.settings = settings
        self.project_root = Path(project_root)

    def status(self) -> IndexStatus:
        try:
            from ..core.code.index import index_status  # type: ignore[attr-defined]
        except ImportError:
            return IndexStatus(False)
        status = index_status(self.settings, self.project_root)
        return IndexStatus(bool(getattr(status, "exists", getattr(status, "indexed", False))),
                           int(getattr(status, "files", 0) or 0),
                           int(getattr(status, "chunks", 0) or 0),
                           str(getattr(status, "detail", "") or ""))

    def search(self, query: str, mode: str, top_k: int) -> list[CodeHit]:
        if mode == "grep":
            return self._grep(query, top_k)
        from ..core.code.search import search_project

        response = search_project(self.settings, self.project_root, query, mode=mode,
                                  top_k=top_k)
        return [_hit_from_chunk(h) for h in response.hits]

    def _grep(self, query: str, top_k: int) -> list[CodeHit]:
        from ..core.code.grep import GrepOptions, grep_code

        result = grep_code(self.project_root, GrepOptions(
            pattern=query, regex=False, ignore_case=True, context=0,
            max_matches=max(top_k, 30)))
        hits = []
        for match in result.matches:
            lines = result.lines.get(match.path, [])
            start = max(1, match.line - PREVIEW_BEFORE)
            preview = "\n".join(lines[start - 1:start - 1 + PREVIEW_LINES])
            name = lines[match.line - 1].strip()[:60] if match.line <= len(lines) else ""
            hits.append(CodeHit(match.path, match.line, name, 1.0, preview,
                                preview_start=start))
        return hits

    def index(self, progress: Callable[[IndexProgress], None]) -> str:
        from ..core.code.index import build_index  # type: ignore[attr-defined]

        def on_progress(event: Any) -> None:
            progress(IndexProgress(int(getattr(event, "done", 0) or 0),
                                   int(getattr(event, "total", 0) or 0),
                                   str(getattr(event, "message", "") or "")))

        summary = build_index(self.settings, self.project_root, progress=on_progress)
        return str(summary)

    def graph(self, name: str) -> str:
        from ..core.code.graph_query import format_relations, relations_for

        return format_relations(relations_for(self.settings, self.project_root, name))


def _hit_from_chunk(hit: Any) -> CodeHit:
    """A search hit (a chunk with a score, or a dict) as a table row."""
    chunk = getattr(hit, "chunk", hit)
    get = (lambda k, d=None: chunk.get(k, d)) if isinstance(chunk, dict) \
        else (lambda k, d=None: getattr(chunk, k, d))
    score = getattr(hit, "score", None)
    if score is None and isinstance(hit, dict):
        score = hit.get("score")
    return CodeHit(str(get("path", "")), int(get("start_line", 0) or 0), str(get("name", "")),
                   float(score or 0.0), str(get("source", "")), str(get("language", "") or ""),
                   int(get("end_line", 0) or 0))


class MemoryAdapter:
    """core.memory's MemoryBook (LocalMemoryService) as table rows and save outcomes.

    A refused write raises ValueError with the service's own message, so the browser shows
    exactly why (unknown id, a conflict still standing, text too long).
    """

    def __init__(self, book: Any) -> None:
        self.book = book

    def rows(self) -> list[MemoryRow]:
        out = []
        for entry in self.book.list_visible():
            out.append(MemoryRow(
                entry.id, entry.effective_scope, entry.content, _day(entry.created_at),
                _day(entry.last_verified_at), bool(self.book.is_stale(entry)),
                "auto" if entry.source != "explicit" else "explicit"))
        return out

    def save(self, content: str, scope: str, force: bool = False) -> SaveOutcome:
        result = self.book.save(content, scope=scope, force=force)
        if result.status == "conflict":
            return SaveOutcome(conflicts=conflict_entries(result.conflicts),
                               message=result.message)
        if result.status == "duplicate":
            return SaveOutcome(duplicate_of=result.entry.id if result.entry else None,
                               message=result.message)
        if not result.written:
            raise ValueError(result.message or f"not saved ({result.status})")
        return SaveOutcome(saved_id=result.entry.id if result.entry else None,
                           message=result.message)

    def replace(self, memory_id: str, content: str) -> None:
        result = self.book.replace(memory_id, content)
        if not result.written:
            raise ValueError(result.message or f"not replaced ({result.status})")

    def verify(self, memory_id: str) -> None:
        if self.book.verify(memory_id) is None:
            raise ValueError(f"no visible memory with id {memory_id}")

    def delete(self, memory_id: str) -> None:
        if self.book.delete(memory_id) is None:
            raise ValueError(f"no visible memory with id {memory_id}")

    def clear(self) -> int:
        """This project's memories only; global ones stay (the CLI clears those)."""
        return int(self.book.clear("project"))


def _day(text: Any) -> str:
    return str(text or "—")[:10]
