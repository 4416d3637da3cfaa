"""The long-term memory file: locked, atomic, and never lost to a bad write (SPEC §11).

Every change runs ``lock → re-read → change → write .tmp → fsync → os.replace``. The lock is
two-level: a ``threading.Lock`` per file path (threads of this process) and a portalocker lock
on a sibling ``.lock`` file (other processes). Readers never lock: ``os.replace`` means they see
either the old file or the new one, never half of one.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from .entry import SCHEMA_VERSION, MemoryEntry, utc_now

log = logging.getLogger(__name__)

T = TypeVar("T")

_path_locks: dict[str, threading.RLock] = {}
_path_locks_guard = threading.Lock()


class MemoryFileError(Exception):
    """The memory file could not be written. The message names the file, never its content."""


def _thread_lock(path: Path) -> threading.RLock:
    key = os.path.abspath(path)
    with _path_locks_guard:
        lock = _path_locks.get(key)
        if lock is None:
            lock = _path_locks[key] = threading.RLock()
        return lock


class NewerFileError(MemoryFileError):
    """The file was written by a newer paicli-tui (higher schema_version): read-only here."""


def _parse(text: str) -> list[MemoryEntry]:
    """Entries in the file's text; ValueError when it is not a memory file."""
    data = json.loads(text)
    if isinstance(data, list):  # an early format: a bare list of entries
        raw_entries = data
    elif isinstance(data, dict) and isinstance(data.get("entries"), list):
        raw_entries = data["entries"]
    else:
        raise ValueError("not a memory file: no 'entries' list")
    version = data.get("schema_version", 1) if isinstance(data, dict) else 1
    if isinstance(version, int) and version > SCHEMA_VERSION:
        raise NewerFileError(f"the memory file has schema_version {version}; this paicli-tui "
                             f"writes {SCHEMA_VERSION}. Upgrade paicli-tui to change memories.")
    entries = []
    for raw in raw_entries:
        if not isinstance(raw, dict):
            raise ValueError("not a memory file: an entry is not an object")
        entries.append(MemoryEntry.from_dict(raw))
    return entries


def serialise(entries: list[MemoryEntry]) -> str:
    """The file text: one entry per line, so it stays readable and diffable by a person (and
    json's fast C encoder does the work)."""
    rows = ",\n  ".join(e.json_line for e in entries)
    body = f"[\n  {rows}\n ]" if entries else "[]"
    return f'{{"schema_version": {SCHEMA_VERSION},\n "entries": {body}\n}}\n'


def _same(a: list[MemoryEntry], b: list[MemoryEntry]) -> bool:
    """Entries are immutable, so an unchanged list holds the very same objects."""
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


class MemoryStore:
    """The entries of one memory file, safe to share between threads and processes.

    ``clock`` gives the time used in backup names; pass a fixed one in tests.
    """

    def __init__(self, path: Path, *, clock: Callable[[], datetime] = utc_now) -> None:
        self.path = Path(path)
        self._clock = clock
        self._lock = _thread_lock(self.path)
        self._cache: list[MemoryEntry] = []
        self._text: bytes | None = None
        """The file bytes ``_cache`` was parsed from (None: nothing on disk matches it)."""
        self._seen_stat: tuple[int, int, int] | None = None
        """(inode, mtime, size) when ``_text`` was last confirmed, for lock-free readers."""
        self.last_backup: Path | None = None
        """Where the most recent unreadable file was moved (for a notice to the person)."""

    @property
    def lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    @property
    def tmp_path(self) -> Path:
        return self.path.with_name(self.path.name + ".tmp")

    # -- reading ----------------------------------------------------------------------------
    def _stat_key(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _read(self, *, locked: bool = True) -> list[MemoryEntry]:
        """The file's entries. The bytes are always re-read; they are re-parsed only when they
        differ from what this object last read or wrote (cheap, and immune to inode reuse or
        coarse timestamps, unlike a stat check).

        An unparsable file is moved aside and the entries we already hold are returned, so the
        next save writes them back instead of an empty list. Only a holder of the file lock
        moves it (``locked``): a reader that did not lock takes the lock and looks again, since
        a writer may have replaced the bad file with a good one in between.
        """
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            if self._text is not None:  # someone removed a good file on purpose: honour it
                self._cache = []
            self._text = None
            return list(self._cache)
        except OSError as exc:
            raise MemoryFileError(f"could not read {self.path}: {exc.strerror or exc}") from None
        if raw == self._text:
            return list(self._cache)
        try:
            entries = _parse(raw.decode("utf-8"))
        except ValueError as exc:  # includes UnicodeDecodeError
            if not locked:
                with self._file_lock():
                    return self._read()
            self._move_aside(exc)
            return list(self._cache)
        self._cache = entries
        self._text = raw
        return list(entries)

    def _read_for_display(self) -> list[MemoryEntry]:
        # Readers may trust an unchanged (inode, mtime, size): a wrong guess here only shows
        # an old list for one turn. Writers never take this shortcut (see update()).
        key = self._stat_key()
        if key is not None and key == self._seen_stat and self._text is not None:
            return list(self._cache)
        entries = self._read(locked=False)
        self._seen_stat = key if self._text is not None else None
        return entries

    def _move_aside(self, reason: Exception) -> None:
        stamp = self._clock().strftime("%Y%m%dT%H%M%S%fZ")
        backup = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        try:
            os.replace(self.path, backup)
        except FileNotFoundError:
            return
        self.last_backup = backup
        self._text = None
        log.warning("memory file %s was unreadable (%s); moved to %s",
                    self.path, type(reason).__name__, backup)

    def entries(self) -> list[MemoryEntry]:
        """A snapshot of all entries (a new list of immutable entries)."""
        with self._lock:
            return self._read_for_display()

    # -- writing ----------------------------------------------------------------------------
    @contextmanager
    def _file_lock(self) -> Iterator[None]:
        """Hold the OS lock on the sibling ``.lock`` file (callers hold the thread lock)."""
        import portalocker

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            lock_handle = open(self.lock_path, "a")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise MemoryFileError(
                f"could not open {self.lock_path}: {exc.strerror or exc}") from None
        with lock_handle:
            # A blocking OS lock: waiting happens in the kernel, not in a polling loop, so
            # eight busy writers do not slow each other down by a check interval each.
            portalocker.lock(lock_handle, portalocker.LockFlags.EXCLUSIVE)
            try:
                yield
            finally:
                portalocker.unlock(lock_handle)

    def update(self, change: Callable[[list[MemoryEntry]], T]) -> T:
        """Apply ``change`` to the freshest entries under both locks and write the result.

        ``change`` edits the list in place (append, remove, or put an evolved entry in place of
        an old one; entries themselves are immutable) and returns a value handed back to the
        caller. If it raises, nothing is written. The file is rewritten only when the list
        changed.
        """
        with self._lock, self._file_lock():
            entries = self._read()
            original = list(self._cache) if self._text is not None else None
            result = change(entries)
            if original is None or not _same(entries, original):
                data = serialise(entries).encode("utf-8")
                self._write(data)
                self._cache = list(entries)
                self._text = data
            return result

    def _write(self, data: bytes) -> None:
        tmp = self.tmp_path
        try:
            with open(tmp, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except OSError as exc:
            raise MemoryFileError(f"could not write {self.path}: {exc.strerror or exc}") from None
        # Make the rename itself durable (best effort: not every platform can open a folder).
        try:
            fd = os.open(self.path.parent, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)

    # -- convenience ------------------------------------------------------------------------
    def add(self, entry: MemoryEntry) -> MemoryEntry:
        """Append one entry without any duplicate or conflict check (callers check first)."""
        self.update(lambda entries: entries.append(entry))
        return entry

