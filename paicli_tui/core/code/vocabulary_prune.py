"""Keeping ``PAICLI_HOME/cache/code_vocabulary`` from growing without end.

Each index's project words are cached there (:mod:`.vocabulary`, 5-17 MB a project), keyed by
a digest of the index location, so nothing removed the cache of a project deleted or moved
away. Every index run removes, and says so (``paicli-tui index`` prints it, the log has each):

- the cache of a local index that no longer exists (each file names its index; a remote
  index, ``s3://…``, is never judged gone: only opening it would tell);
- beyond MAX_FILES files or MAX_BYTES in all, the least recently written (the index run's
  own is always kept): a project still in use only rebuilds its words on its next search;
- a temporary file a killed writer left, once it is an hour old (a younger one may be a
  write in progress).

Safe while another process uses the folder: a file is removed by name (a reader that has it
open keeps reading it; one about to open it finds none and rebuilds the words), a write in
progress goes to a temporary name and is renamed whole, and two processes pruning at once
each remove what is still there.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from pathlib import Path
from typing import NamedTuple

from ...paths import HomePaths

log = logging.getLogger(__name__)

MAX_FILES = 16
MAX_BYTES = 200 * 1024 * 1024
STALE_TEMPORARY_S = 3600.0


class RemovedCache(NamedTuple):
    """One file removed from the folder."""

    name: str
    size: int
    """Bytes it held."""
    reason: str
    """Why, in words ("its index is gone (…)", "over the cache's limit (…)", …)."""


def cache_folder(home: HomePaths) -> Path:
    return home.cache_dir / "code_vocabulary"


def cached_location(path: Path) -> str | None:
    """The index location a cache file names (None: an older file, or unreadable)."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            return str(data["location"]) or None
    except Exception:  # noqa: BLE001 - any unreadable file only counts against the limits
        return None


def _index_gone(location: str | None) -> bool:
    if location is None or ("://" in location and not location.startswith("file://")):
        return False
    return not Path(location.removeprefix("file://")).exists()


def prune_vocabulary_caches(home: HomePaths, keep: Path | None = None, *,
                            max_files: int = MAX_FILES, max_bytes: int = MAX_BYTES,
                            now: float | None = None, folder: Path | None = None
                            ) -> list[RemovedCache]:
    """Remove the caches described above; what was removed (by this call). ``folder`` is
    another folder of per-index caches kept the same way (the doc sentences' vectors,
    core.code.doc_sentences: each file names its index too)."""
    folder = cache_folder(home) if folder is None else folder
    now = time.time() if now is None else now
    try:
        entries = [(e.name, e.stat()) for e in os.scandir(folder) if e.is_file()]
    except OSError:
        return []
    removed: list[RemovedCache] = []

    def remove(name: str, size: int, reason: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            (folder / name).unlink()
            removed.append(RemovedCache(name, size, reason))
            log.info("removed the cached %s/%s (%d bytes): %s", folder.name, name, size, reason)

    kept: list[tuple[str, os.stat_result]] = []
    for name, info in entries:
        if name.endswith(".tmp"):
            if now - info.st_mtime > STALE_TEMPORARY_S:
                remove(name, info.st_size, "an unfinished write")
        elif name.endswith(".npz"):
            location = None if keep is not None and name == keep.name else (
                cached_location(folder / name))
            if _index_gone(location):
                remove(name, info.st_size, f"its index is gone ({location})")
            else:
                kept.append((name, info))
    kept.sort(key=lambda item: (keep is None or item[0] != keep.name, -item[1].st_mtime))
    files, total = 0, 0
    for name, info in kept:  # the run's own first, then the newest that still fit
        if files and (files >= max_files or total + info.st_size > max_bytes):
            remove(name, info.st_size, f"over the cache's limit ({max_files} files, "
                                       f"{max_bytes // (1024 * 1024)} MB)")
        else:
            files, total = files + 1, total + info.st_size
    return removed


def describe_removed(removed: list[dict]) -> str:
    """What an index run tells the person about the files it removed ("" for none)."""
    if not removed:
        return ""
    size = sum(r["size"] for r in removed) / 1e6
    gone = sum(r["reason"].startswith("its index is gone") for r in removed)
    files = f"{len(removed)} cached search file" + ("" if len(removed) == 1 else "s")
    return (f"removed {files} ({size:.1f} MB): {gone} of indexes that no longer exist, "
            f"{len(removed) - gone} over the cache's limits or left unfinished")
