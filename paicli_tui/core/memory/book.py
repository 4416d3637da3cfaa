"""The person's operations on long-term memory for one project: list, save, replace, verify,
delete, clear (behaviour §11–13). The TUI memory browser, the CLI and the agent tool all go through
here, so the duplicate and conflict rules live in one place.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

from ...config import Settings
from ...paths import normalise_project_root, stored_project_forms
from ..contracts.secrets import sensitive_reason
from ..contracts.session_state import SessionState
from .budget import estimate_tokens
from .dedup import scan
from .entry import (
    DEFAULT_TYPE,
    SCOPE_GLOBAL,
    SCOPE_PROJECT,
    SCOPES,
    SOURCE_AUTO,
    SOURCE_EXPLICIT,
    UNVERIFIED,
    VERIFIED,
    MemoryEntry,
    format_time,
    new_entry_id,
    utc_now,
)
from .freshness import is_stale
from .guard import external_tags
from .store import MemoryStore

MAX_CONTENT_CHARS = 2_000
"""A memory is a fact, not a document; longer text belongs in PAI.md or a file."""

SaveStatus = Literal["saved", "duplicate", "conflict", "replaced", "refused", "not_found",
                     "cancelled"]
ClearScope = Literal["project", "global", "all"]


@dataclass(frozen=True)
class SaveResult:
    """What a save or replace did. On ``conflict`` nothing was written and ``conflicts`` holds
    the entries the person must choose between; on ``duplicate`` ``entry`` is the existing one."""

    status: SaveStatus
    entry: MemoryEntry | None = None
    conflicts: tuple[MemoryEntry, ...] = ()
    message: str = ""
    sensitive: bool = False
    """Refused because the text looks like it holds a secret: the person (never the model)
    may confirm and save it anyway with ``allow_sensitive``."""
    reason: str = ""
    """Why a sensitive text looks so, in a few words (for a confirmation question)."""

    @property
    def written(self) -> bool:
        return self.status in ("saved", "replaced")


class MemoryBook:
    """Long-term memory as seen from one project.

    ``clock`` returns the current time (timezone-aware); tests pass a fixed one.
    """

    def __init__(self, settings: Settings, project_root: str | Path, *,
                 clock: Callable[[], datetime] | None = None,
                 store: MemoryStore | None = None) -> None:
        self.settings = settings
        self.project_root = str(normalise_project_root(project_root))
        self.clock: Callable[[], datetime] = clock or utc_now
        self.store = store or MemoryStore(settings.home.memory_file, clock=self.clock)
        self.session: SessionState | None = None
        """The running session, when there is one: a save made while it holds outside
        content is tagged ``external_context`` with its sources (behaviour §16)."""

    # -- reading ----------------------------------------------------------------------------
    def list_all(self) -> list[MemoryEntry]:
        """Every entry of every project, oldest first."""
        return self.store.entries()

    def list_visible(self) -> list[MemoryEntry]:
        """Global entries and this project's entries, oldest first."""
        return [e for e in self.store.entries() if e.visible_in(self.project_root)]

    def get(self, entry_id: str) -> MemoryEntry | None:
        """The visible entry with this id, or with this unique id prefix (≥ 4 characters)."""
        return _find(self.list_visible(), entry_id)

    def is_stale(self, entry: MemoryEntry) -> bool:
        """Possibly stale: verified too long ago, or its linked file changed since (behaviour §13)."""
        return is_stale(entry, self.clock(), self.settings.memory_stale_days, self.project_root)

    def _link(self, path: str) -> tuple[str | None, str | None]:
        """(project-relative path, None) for a file inside the project, else (None, why)."""
        root = Path(self.project_root)
        candidate = Path(path).expanduser()
        resolved = Path(os.path.realpath(candidate if candidate.is_absolute()
                                         else root / candidate))
        try:
            relative = resolved.relative_to(root)
        except ValueError:
            return None, f"the linked file must be inside the project: {path}"
        if not resolved.is_file():
            return None, f"no such file in the project: {path}"
        return relative.as_posix(), None

    # -- writing ----------------------------------------------------------------------------
    def save(self, content: str, *, scope: str = SCOPE_PROJECT, force: bool = False,
             source: str = SOURCE_EXPLICIT, type: str = DEFAULT_TYPE,
             source_file: str | None = None, refresh_duplicate: bool | None = None,
             allow_sensitive: bool = False) -> SaveResult:
        """Save a fact unless it duplicates or conflicts with a stored one.

        - duplicate: nothing added; an explicit save (source ``explicit``) refreshes the
          existing entry's last-verified time.
        - conflict: nothing written, the conflicting entries are returned; ``force=True``
          keeps both.
        Entries saved by the person are ``verified``; all others start ``unverified``.
        ``source_file`` links the fact to a file inside the project (stored project-relative,
        absolute for a global memory): when that file changes after verification, the memory
        is marked possibly stale. Text that looks like it holds a secret (the one rule in
        ``contracts.secrets``) is refused with ``sensitive=True`` unless ``allow_sensitive``
        (the person confirmed; the agent tool never passes it).
        """
        text = content.strip()
        problem = _check_content(text) or (None if scope in SCOPES else f"unknown scope {scope!r}")
        if not problem and not allow_sensitive:
            why = sensitive_reason(text)
            if why:
                return SaveResult("refused", sensitive=True, reason=why, message=(
                    f"not saved: this looks like it holds a secret or personal data ({why}); "
                    "memories are stored as plain text. To keep it anyway, confirm with "
                    "/save --sensitive (or paicli-tui memory save --sensitive)"))
        if not problem and source_file:
            source_file, problem = self._link(source_file)
            if source_file and scope == SCOPE_GLOBAL:
                # A global memory is read from every project: a relative link would point at
                # each project's own file of that name.
                source_file = str(Path(self.project_root) / source_file)
        if problem:
            return SaveResult("refused", message=problem)
        if refresh_duplicate is None:
            refresh_duplicate = source == SOURCE_EXPLICIT
        now = format_time(self.clock())
        candidate = MemoryEntry(
            id=new_entry_id(), content=text, created_at=now, last_verified_at=now, type=type,
            scope=scope, project=self.project_root if scope == SCOPE_PROJECT else None,
            source=source, verification=VERIFIED if source == SOURCE_EXPLICIT else UNVERIFIED,
            source_file=source_file, token_count=estimate_tokens(text),
            extra=external_tags(self.session) if source != SOURCE_AUTO else {},
        )
        threshold = self.settings.memory_dice_threshold

        def change(entries: list[MemoryEntry]) -> SaveResult:
            duplicate, found = scan(entries, candidate, threshold)
            if duplicate is not None:
                if refresh_duplicate:
                    duplicate = _swap(entries, duplicate, duplicate.evolve(
                        last_verified_at=now, verification=VERIFIED))
                return SaveResult("duplicate", entry=duplicate,
                                  message=f"already remembered as {duplicate.id}")
            if found and not force:
                return SaveResult("conflict", entry=candidate, conflicts=tuple(found),
                                  message=_conflict_message(found))
            entries.append(candidate)
            return SaveResult("saved", entry=candidate)

        return self.store.update(change)

    def replace(self, entry_id: str, content: str, *,
                allow_sensitive: bool = False) -> SaveResult:
        """Put ``content`` in place of a visible entry (same id, scope and project).

        Refused while another entry still conflicts with the new text: the person resolves
        each conflict explicitly (behaviour §12). Text that looks like a secret is refused as
        :meth:`save` refuses it, unless ``allow_sensitive``.
        """
        text = content.strip()
        problem = _check_content(text)
        if problem:
            return SaveResult("refused", message=problem)
        why = None if allow_sensitive else sensitive_reason(text)
        if why:
            return SaveResult("refused", sensitive=True, reason=why, message=(
                f"not replaced: this looks like it holds a secret or personal data ({why}); "
                "memories are stored as plain text. To keep it anyway, confirm with "
                "paicli-tui memory replace --sensitive"))
        now = format_time(self.clock())
        threshold = self.settings.memory_dice_threshold

        def change(entries: list[MemoryEntry]) -> SaveResult:
            target = _find([e for e in entries if e.visible_in(self.project_root)], entry_id)
            if target is None:
                return SaveResult("not_found", message=f"no memory {entry_id!r} here")
            candidate = target.evolve(content=text)
            duplicate, found = scan(entries, candidate, threshold)
            if duplicate is not None:
                return SaveResult("refused", entry=duplicate,
                                  message=f"that text is already remembered as {duplicate.id}")
            if found:
                return SaveResult(
                    "conflict", entry=candidate, conflicts=tuple(found),
                    message="replace refused: other memories still conflict with the new text "
                            f"({', '.join(e.id for e in found)}); delete or replace them first")
            new = _swap(entries, target, target.evolve(
                content=text, created_at=now, last_verified_at=now, source=SOURCE_EXPLICIT,
                verification=VERIFIED, token_count=estimate_tokens(text)))
            return SaveResult("replaced", entry=new)

        return self.store.update(change)

    def verify(self, entry_id: str) -> MemoryEntry | None:
        """Mark a visible entry as checked by the person now; None when there is no such id."""
        now = format_time(self.clock())

        def change(entries: list[MemoryEntry]) -> MemoryEntry | None:
            target = _find([e for e in entries if e.visible_in(self.project_root)], entry_id)
            if target is None:
                return None
            return _swap(entries, target, target.evolve(last_verified_at=now,
                                                        verification=VERIFIED))

        return self.store.update(change)

    def delete(self, entry_id: str) -> MemoryEntry | None:
        """Remove a visible entry; returns it, or None when there is no such id."""

        def change(entries: list[MemoryEntry]) -> MemoryEntry | None:
            target = _find([e for e in entries if e.visible_in(self.project_root)], entry_id)
            if target is not None:
                entries.remove(target)
            return target

        return self.store.update(change)

    def clear(self, scope: ClearScope = "project") -> int:
        """Remove this project's entries, the global ones, or every entry; returns how many."""

        def doomed(entry: MemoryEntry) -> bool:
            if scope == "all":
                return True
            if scope == "global":
                return entry.is_global
            return not entry.is_global and entry.project in stored_project_forms(self.project_root)

        def change(entries: list[MemoryEntry]) -> int:
            keep = [e for e in entries if not doomed(e)]
            removed = len(entries) - len(keep)
            entries[:] = keep
            return removed

        return self.store.update(change)


def _check_content(text: str) -> str | None:
    if not text:
        return "nothing to remember: the text is empty"
    if len(text) > MAX_CONTENT_CHARS:
        return (f"a memory holds at most {MAX_CONTENT_CHARS} characters "
                f"(this one has {len(text)}); put long text in PAI.md instead")
    return None


def _conflict_message(found: list[MemoryEntry]) -> str:
    ids = ", ".join(e.id for e in found)
    return f"conflicts with {ids}: replace one, keep both (--force), or cancel"


def _swap(entries: list[MemoryEntry], old: MemoryEntry, new: MemoryEntry) -> MemoryEntry:
    entries[entries.index(old)] = new
    return new


def _find(entries: list[MemoryEntry], entry_id: str) -> MemoryEntry | None:
    entry_id = entry_id.strip()
    for entry in entries:
        if entry.id == entry_id:
            return entry
    if len(entry_id) >= 4:
        matches = [e for e in entries if e.id.startswith(entry_id)]
        if len(matches) == 1:
            return matches[0]
    return None


__all__ = ["MemoryBook", "SaveResult", "SCOPE_GLOBAL", "SCOPE_PROJECT"]
