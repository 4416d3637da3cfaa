"""Adapters from the real core services to the shapes the UI renders (backend.py).

Imported only when a panel first needs the core, never at start-up.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import Settings
from ..core.contracts.asks import ConflictDecision, ConflictEntry
from ..core.plural import counted
from .backend import (
    CHANGED_MARK,
    CodeHit,
    CodeResults,
    IndexStatus,
    IndexStep,
    MemoryRow,
    SaveOutcome,
    SensitiveText,
)

if TYPE_CHECKING:
    from ..core.code.hits import SearchHit
    from ..core.code.indexer import IndexProgress
    from ..core.code.service import LocalCodeService
    from ..core.memory.book import SaveResult
    from ..core.memory.service import LocalMemoryService


class CodeAdapter:
    """Index status, search in every mode, indexing with progress, the code graph."""

    def __init__(self, service: LocalCodeService, settings: Settings,
                 project_root: Path) -> None:
        self.service = service
        self.settings = settings
        self.project_root = Path(project_root)

    def status(self) -> IndexStatus:
        from ..core.code.lance_store import index_location, open_index

        tables = open_index(index_location(self.settings, self.project_root))
        if tables is None or tables.chunks is None:
            return IndexStatus(False)
        files = tables.files.count_rows() if tables.files is not None else 0
        embedder = tables.meta.get("embedder", "")
        return IndexStatus(True, int(files), int(tables.chunks.count_rows()),
                           f"({embedder})" if embedder else "")

    def search(self, query: str, mode: str, top_k: int) -> CodeResults:
        """Every mode, grep included, goes through the core's search pipeline."""
        from ..core.code.search import plan_with_configured_model, search_project

        # runs in the panel's worker thread: the rewrite gets its own client and loop
        plan = (None if mode == "grep"
                else plan_with_configured_model(self.settings, query, self.project_root))
        response = search_project(self.settings, self.project_root, query, mode=mode,
                                  top_k=top_k, plan=plan)
        hits = [self._hit(h) for h in response.hits]
        if response.mode != "grep":
            return CodeResults(hits, "; ".join(
                filter(None, [_changed_summary(response.hits), response.note])))
        lines, files = response.match_lines, response.match_files
        return CodeResults(hits, f"{counted(lines, 'matching line')} in "
                                 f"{counted(files, 'file')}")

    def _hit(self, hit: SearchHit) -> CodeHit:
        if not hit.match_line:
            return CodeHit(hit.path, hit.start_line, hit.name, float(hit.score), hit.source,
                           hit.language, hit.end_line, changed=hit.changed)
        preview, first = hit.source, hit.start_line
        if hit.kind == "line":  # no index: the lines around the match, read now
            preview, first = self._around(hit.path, hit.match_line)
        return CodeHit(hit.path, hit.match_line, hit.name, float(hit.score), preview,
                       hit.language, hit.end_line, preview_start=first,
                       match_text=hit.match_text, changed=hit.changed)

    def _around(self, path: str, line: int, before: int = 3, after: int = 12
                ) -> tuple[str, int]:
        from ..core.code.grep import read_text_lines

        lines = read_text_lines(self.project_root / path) or []
        first = max(1, line - before)
        return "\n".join(lines[first - 1:line + after]), first

    def index(self, progress: Callable[[IndexStep], None]) -> str:
        from ..core.code.indexer import CodeIndexer

        def on_progress(event: IndexProgress) -> None:
            progress(IndexStep(event.done, event.total, f"{event.phase} "
                                   f"{event.done}/{event.total} {event.detail}".strip(),
                                   event.phase, event.detail))

        summary = CodeIndexer(self.settings, self.project_root).update(on_progress)
        from ..core.code.vocabulary_prune import describe_removed

        notes = (f"; {counted(summary.commit_conflicts_retried, 'commit conflict')} with another "
                 "indexer retried" if summary.commit_conflicts_retried else "")
        if summary.vocabulary_caches_removed:
            notes += f"; {describe_removed(summary.vocabulary_caches_removed)}"
        # a run stopped earlier, a switch just made, files past the cap on chunks per file
        for line in filter(None, [*summary.rebuild_lines(), summary.capped_line()]):
            notes += f"; {line[0].lower()}{line[1:].rstrip('.')}"
        return f"indexed {summary.counts()}{notes}"

    def graph(self, name: str) -> str:
        from ..core.code.graph_query import format_relations, relations_for

        return format_relations(relations_for(self.settings, self.project_root, name))


SOURCE_LABELS = {"explicit": "explicit", "auto_extracted": "auto", "agent": "agent"}
"""How a memory came to be, as the browser's source column says it."""


def _changed_summary(hits: list[SearchHit]) -> str:
    """The panel's line over results some of which come from files changed since the index
    was built (their previews are the text the index read), '' when none do."""
    changed = sum(1 for hit in hits if hit.changed)
    if not changed:
        return ""
    # the mark leads the line as it leads the rows it counts (a longer line is cut at 80)
    return (f"{CHANGED_MARK}{changed} of {len(hits)} from files changed since the index was "
            "built (/index refreshes it)")


class MemoryAdapter:
    """core.memory's MemoryBook (LocalMemoryService) as table rows and save outcomes.

    A refused write raises ValueError with the service's own message, so the browser shows
    exactly why (unknown id, a conflict still standing, text too long).
    """

    def __init__(self, book: LocalMemoryService) -> None:
        self.book = book

    def search(self, query: str, limit: int) -> tuple[list[str], str]:
        ranking = self.book.search(query, limit=limit)
        return [scored.entry.id for scored in ranking], ranking.without_meaning

    def rows(self) -> list[MemoryRow]:
        from ..core.memory.entry import awaiting_review

        out = []
        for entry in self.book.list_visible():
            out.append(MemoryRow(
                entry.id, entry.effective_scope, entry.content, _day(entry.created_at),
                _day(entry.last_verified_at), bool(self.book.is_stale(entry)),
                SOURCE_LABELS.get(entry.source, str(entry.source)), awaiting_review(entry),
                str(entry.created_at or "")))
        return out

    def save(self, content: str, scope: str, force: bool = False,
             allow_sensitive: bool = False) -> SaveOutcome:
        return _outcome(self.book.save(content, scope=scope, force=force,
                                       allow_sensitive=allow_sensitive))

    def decide(self, content: str, scope: str, decision: ConflictDecision,
               replace_id: str | None, conflicting: Sequence[str], *,
               allow_sensitive: bool = False) -> SaveOutcome:
        from ..core.memory.decision import carry_out

        return _outcome(carry_out(self.book, content, decision, replace_id=replace_id,
                                  conflicting=conflicting, scope=scope,
                                  allow_sensitive=allow_sensitive))

    def replace(self, memory_id: str, content: str, allow_sensitive: bool = False) -> None:
        result = self.book.replace(memory_id, content, allow_sensitive=allow_sensitive)
        _raise_refusal(result, "not replaced")

    def verify(self, memory_id: str) -> None:
        if self.book.verify(memory_id) is None:
            raise ValueError(f"no visible memory with id {memory_id}")

    def delete(self, memory_id: str) -> None:
        if self.book.delete(memory_id) is None:
            raise ValueError(f"no visible memory with id {memory_id}")

    def clear(self) -> int:
        """This project's memories only; global ones stay (the CLI clears those)."""
        return int(self.book.clear("project"))


def _outcome(result: SaveResult) -> SaveOutcome:
    """A MemoryBook SaveResult as the UI's SaveOutcome; a refused write raises ValueError."""
    entry_id = result.entry.id if result.entry else None
    if result.status == "conflict":
        return SaveOutcome(conflicts=tuple(ConflictEntry(e.id, e.content) for e in result.conflicts),
                           message=result.message)
    if result.status == "duplicate":
        return SaveOutcome(duplicate_of=entry_id, message=result.message)
    if result.status == "cancelled":
        return SaveOutcome(message=result.message)
    _raise_refusal(result, "not saved")
    if result.status == "replaced":
        return SaveOutcome(replaced_id=entry_id, message=result.message)
    return SaveOutcome(saved_id=entry_id, message=result.message)


def _raise_refusal(result: SaveResult, not_done: str) -> None:
    """A write that did not happen as ValueError with the service's words; one the person may
    confirm (text that looks secret) as SensitiveText."""
    if result.written:
        return
    message = result.message or f"{not_done} ({result.status})"
    if result.sensitive:
        raise SensitiveText(message, result.reason)
    raise ValueError(message)


def _day(text: str | None) -> str:
    return str(text or "—")[:10]
