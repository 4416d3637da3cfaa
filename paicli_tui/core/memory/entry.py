"""One long-term memory entry and its JSON form (SPEC §11).

The on-disk shape is a promise to users who read or back up the file: keep field names stable
and add new ones only as optional metadata.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import cached_property, lru_cache
from typing import Any

from .canonical import Forms, forms

SCHEMA_VERSION = 1

SCOPE_PROJECT = "project"
SCOPE_GLOBAL = "global"
SCOPES = (SCOPE_PROJECT, SCOPE_GLOBAL)

SOURCE_EXPLICIT = "explicit"
"""The person saved it (/save, ``paicli-tui memory save``)."""
SOURCE_AGENT = "agent"
"""The model saved it with the ``save_memory`` tool."""
SOURCE_AUTO = "auto_extracted"
"""Automatic fact extraction after a turn (SPEC §15)."""

VERIFIED = "verified"
UNVERIFIED = "unverified"

DEFAULT_TYPE = "fact"


def new_entry_id() -> str:
    """A short random id the person can type (``/memory verify 3fa9c2d1e0``)."""
    return uuid.uuid4().hex[:10]


def utc_now() -> datetime:
    return datetime.now(UTC)


def format_time(moment: datetime) -> str:
    """ISO 8601 in UTC, the only form written to the file."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="seconds")


@lru_cache(maxsize=65_536)
def _parse_time(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def parse_time(text: object) -> datetime | None:
    """The datetime in ``text`` (naive values are taken as UTC); None when unreadable."""
    if not isinstance(text, str) or not text:
        return None
    return _parse_time(text)


_TOP_LEVEL = frozenset({"id", "content", "type", "created_at", "last_verified_at", "metadata",
                        "token_count", "createdAt", "lastVerifiedAt"})


@dataclass(frozen=True)
class MemoryEntry:
    """A durable fact. ``scope`` None (old files) counts as global.

    Immutable: the store shares one object between every reader of an unchanged file, so a
    change is a new entry (:meth:`evolve`) put in the list in place of the old one."""

    id: str
    content: str
    created_at: str
    last_verified_at: str
    type: str = DEFAULT_TYPE
    scope: str | None = SCOPE_PROJECT
    project: str | None = None
    """Normalised absolute project root, for project-scope entries."""
    source: str = SOURCE_EXPLICIT
    verification: str = VERIFIED
    source_file: str | None = None
    """A file the fact is about; when it changes after verification the fact may be stale."""
    token_count: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    """Metadata keys written by newer versions, kept untouched on rewrite."""
    extra_fields: dict[str, Any] = field(default_factory=dict)
    """Top-level entry keys written by newer versions, kept untouched on rewrite."""

    @cached_property
    def bucket(self) -> tuple[str, str, str | None]:
        """(type, scope, project): duplicates and conflicts are only looked for within one
        bucket (SPEC §12)."""
        scope = self.effective_scope
        return (self.type, scope, self.project if scope == SCOPE_PROJECT else None)

    @property
    def effective_scope(self) -> str:
        return SCOPE_PROJECT if self.scope == SCOPE_PROJECT and self.project else SCOPE_GLOBAL

    @property
    def is_global(self) -> bool:
        return self.effective_scope == SCOPE_GLOBAL

    def visible_in(self, project_root: str) -> bool:
        """Global entries are visible everywhere; project entries only in their own project."""
        return self.scope != SCOPE_PROJECT or not self.project or self.project == project_root

    def evolve(self, **changes: Any) -> MemoryEntry:
        return replace(self, **changes)

    @cached_property
    def forms(self) -> Forms:
        """Canonical form, version skeleton and bigrams of the content (computed once)."""
        return forms(self.content)

    @cached_property
    def json_line(self) -> str:
        """The entry as one line of JSON (computed once: entries never change)."""
        return json.dumps(self.to_dict(), ensure_ascii=False)

    def to_dict(self) -> dict[str, Any]:
        metadata: dict[str, Any] = dict(self.extra)
        metadata.update({
            "scope": self.scope,
            "project": self.project,
            "source": self.source,
            "verification": self.verification,
        })
        if self.source_file:
            metadata["source_file"] = self.source_file
        return {
            **self.extra_fields,
            "id": self.id,
            "content": self.content,
            "type": self.type,
            "created_at": self.created_at,
            "last_verified_at": self.last_verified_at,
            "metadata": metadata,
            "token_count": self.token_count,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MemoryEntry:
        """Read one stored entry; raises ValueError when it lacks an id or content."""
        entry_id = data.get("id")
        content = data.get("content")
        if not isinstance(entry_id, str) or not entry_id or not isinstance(content, str):
            raise ValueError("memory entry without an id or content")
        raw_meta = data.get("metadata") or {}
        if not isinstance(raw_meta, Mapping):
            raise ValueError("memory entry metadata is not an object")
        meta = dict(raw_meta)
        created = data.get("created_at") or data.get("createdAt") or ""
        verified = data.get("last_verified_at") or data.get("lastVerifiedAt") or created
        known = {"scope", "project", "source", "verification", "source_file"}
        token_count = data.get("token_count")
        return cls(
            id=entry_id,
            content=content,
            created_at=str(created),
            last_verified_at=str(verified),
            type=str(data.get("type") or DEFAULT_TYPE),
            scope=_text_or_none(meta.get("scope")),
            project=_text_or_none(meta.get("project")),
            source=str(meta.get("source") or SOURCE_EXPLICIT),
            verification=str(meta.get("verification") or VERIFIED),
            source_file=_text_or_none(meta.get("source_file")),
            token_count=token_count if isinstance(token_count, int) else 0,
            extra={k: v for k, v in meta.items() if k not in known},
            extra_fields={k: v for k, v in data.items() if k not in _TOP_LEVEL},
        )


def _text_or_none(value: object) -> str | None:
    """A metadata string; anything else (a hand-edited number, a list) reads as absent."""
    return value if isinstance(value, str) and value else None


def awaiting_review(entry: MemoryEntry) -> bool:
    """Saved automatically and not yet accepted (verified) by the person: the memory inbox."""
    return entry.source == SOURCE_AUTO and entry.verification == UNVERIFIED
