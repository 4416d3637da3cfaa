"""One long-term memory entry and its JSON form (behaviour §11).

The file is shared with the reference (PaiCLI), which reads it as a bare JSON list of
``{id, content, type, timestamp, lastVerifiedAt, metadata, tokenCount}``: ``type`` an
upper-case name (``FACT``), times ISO-8601 instants (``…Z``), every metadata value a string.
:meth:`MemoryEntry.to_reference` writes exactly that (our own fields inside ``metadata``, as
strings); :meth:`MemoryEntry.from_dict` reads it and our earlier shapes
(``created_at``/``last_verified_at``/``token_count``). Keep field names stable.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import cached_property, lru_cache
from typing import Any

from ...paths import stored_project_forms
from ...surrogates import without_surrogates
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
"""Automatic fact extraction after a turn (behaviour §15)."""

VERIFIED = "verified"
UNVERIFIED = "unverified"

DEFAULT_TYPE = "fact"


def new_entry_id() -> str:
    """A short random id the person can type (``/memory verify 3fa9c2d1e0``)."""
    return uuid.uuid4().hex[:10]


def utc_now() -> datetime:
    return datetime.now(UTC)


def format_time(moment: datetime) -> str:
    """An ISO-8601 instant in UTC (``2026-11-01T12:00:00Z``), the only form written."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@lru_cache(maxsize=65_536)
def normalise_time(text: str) -> str:
    """A stored time as an instant (``…Z``) when it reads as a time, else unchanged."""
    moment = parse_time(text)
    if moment is None:
        return text
    try:
        return format_time(moment)
    except (ValueError, OverflowError):
        return text


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
                        "token_count", "createdAt", "lastVerifiedAt", "timestamp", "tokenCount"})
_KNOWN_META = frozenset({"scope", "project", "source", "verification", "source_file"})
# valid JSON can hold ``\\ud800``; no UTF-8 file can
clean_text = _clean_text = without_surrogates
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A JSON escape that decodes to a surrogate: without one, no string of the file holds one
(a UTF-8 file cannot carry a surrogate any other way)."""


def _as_metadata_text(value: Any) -> str | None:
    """A metadata value as the string the reference expects (None: leave the key out)."""
    if value is None:
        return None
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return clean_text(json.dumps(value, ensure_ascii=False, sort_keys=True))


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
        bucket (behaviour §12)."""
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
        return self.scope != SCOPE_PROJECT or not self.project or self.project == project_root \
            or self.project in stored_project_forms(project_root)

    def evolve(self, **changes: Any) -> MemoryEntry:
        return replace(self, **changes)

    @cached_property
    def forms(self) -> Forms:
        """Canonical form, version skeleton and bigrams of the content (computed once)."""
        return forms(self.content)

    @cached_property
    def json_line(self) -> str:
        """The entry as one line of JSON in the reference's shape (computed once: entries
        never change)."""
        return json.dumps(self.to_reference(), ensure_ascii=False)

    def to_reference(self) -> dict[str, Any]:
        """The entry as the reference reads it (see the module docstring)."""
        metadata = {k: v for k, v in self.extra.items() if isinstance(v, str)}
        for key, value in (("scope", self.scope), ("project", self.project),
                           ("source", self.source), ("verification", self.verification),
                           ("source_file", self.source_file)):
            if value is not None:
                metadata[key] = value
        return {
            **self.extra_fields,
            "id": self.id,
            "content": self.content,
            "type": self.type.upper(),
            "timestamp": self.created_at,
            "lastVerifiedAt": self.last_verified_at,
            "metadata": metadata,
            "tokenCount": self.token_count,
        }

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
    def from_dict(cls, data: Mapping[str, Any], *, surrogates: bool = True) -> MemoryEntry:
        """Read one stored entry, in the reference's shape or ours; raises ValueError when it
        lacks an id or content. Lone surrogates become U+FFFD, metadata values strings,
        times instants, the type lower case: what comes back is what would be written.
        ``surrogates=False``: the caller knows no string can hold one (the file had no
        ``\\ud800``-style escape), so the per-string check is skipped."""
        clean_text = _clean_text if surrogates else str
        entry_id = data.get("id")
        content = data.get("content")
        if not isinstance(entry_id, str) or not entry_id or not isinstance(content, str):
            raise ValueError("memory entry without an id or content")
        raw_meta = data.get("metadata") or {}
        if not isinstance(raw_meta, Mapping):
            raise ValueError("memory entry metadata is not an object")
        # (the set tests below skip the comprehensions for the usual entry: C speed)
        meta = raw_meta if not surrogates and all(type(k) is str for k in raw_meta) \
            else {clean_text(str(k)): v for k, v in raw_meta.items()}
        created = (data.get("timestamp") or data.get("created_at") or data.get("createdAt")
                   or "")
        verified = (data.get("lastVerifiedAt") or data.get("last_verified_at") or created)
        token_count = data.get("tokenCount", data.get("token_count"))
        extra = {} if meta.keys() <= _KNOWN_META else \
            {k: _as_metadata_text(v) for k, v in meta.items() if k not in _KNOWN_META}
        return cls(
            id=clean_text(entry_id),
            content=clean_text(content),
            created_at=normalise_time(clean_text(str(created))),
            last_verified_at=normalise_time(clean_text(str(verified))),
            # upper then lower: stable through a write (ß -> SS -> ss)
            type=clean_text(str(data.get("type") or DEFAULT_TYPE)).upper().lower(),
            scope=_text_or_none(meta.get("scope")),
            project=_text_or_none(meta.get("project")),
            source=clean_text(str(meta.get("source") or SOURCE_EXPLICIT)),
            verification=clean_text(str(meta.get("verification") or VERIFIED)),
            source_file=_text_or_none(meta.get("source_file")),
            token_count=token_count if type(token_count) is int else 0,
            extra={k: v for k, v in extra.items() if v is not None},
            extra_fields={} if data.keys() <= _TOP_LEVEL else
            {clean_text(str(k)): v for k, v in data.items() if k not in _TOP_LEVEL},
        )


def _text_or_none(value: object) -> str | None:
    """A metadata string; anything else (a hand-edited number, a list) reads as absent."""
    return clean_text(value) if isinstance(value, str) and value else None


def awaiting_review(entry: MemoryEntry) -> bool:
    """Saved automatically and not yet accepted (verified) by the person: the memory inbox."""
    return entry.source == SOURCE_AUTO and entry.verification == UNVERIFIED
