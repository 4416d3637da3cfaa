"""When a memory may be out of date (behaviour §13)."""

from __future__ import annotations

import os
from datetime import datetime, timedelta

from .entry import MemoryEntry, parse_time


def linked_file_path(entry: MemoryEntry, project_root: str | None = None) -> str | None:
    """Absolute path of the entry's linked source file (relative ones are taken from the
    entry's own project, else ``project_root``)."""
    if not entry.source_file:
        return None
    if os.path.isabs(entry.source_file):
        return entry.source_file
    base = entry.project or project_root
    return os.path.join(base, entry.source_file) if base else None


def is_stale(entry: MemoryEntry, now: datetime, stale_days: int,
             project_root: str | None = None) -> bool:
    """Last verified more than ``stale_days`` days before ``now``, or its linked source file was
    modified after that verification. An unreadable verification time counts as stale."""
    verified = parse_time(entry.last_verified_at)
    if verified is None:
        return True
    if now - verified > timedelta(days=stale_days):
        return True
    path = linked_file_path(entry, project_root)
    if path is None:
        return False
    try:
        mtime = os.stat(path).st_mtime
    except OSError:
        return False  # a missing file says nothing about the fact; the model checks files
    return mtime > verified.timestamp()


def age_days(entry: MemoryEntry, now: datetime) -> float:
    """Days since the entry was last verified (0 when the time is unreadable or in the future)."""
    verified = parse_time(entry.last_verified_at) or parse_time(entry.created_at)
    if verified is None:
        return 0.0
    return max(0.0, (now - verified).total_seconds() / 86_400)
