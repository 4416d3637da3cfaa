"""The long-term memory file: locked, atomic, and never lost to a bad write (behaviour §11).

Every change runs ``lock → re-read → change → write .tmp → fsync → os.replace``. The lock is
two-level: a ``threading.Lock`` per file path (threads of this process) and a portalocker lock
on a sibling ``.lock`` file (other processes). Readers never lock: ``os.replace`` means they see
either the old file or the new one, never half of one.

The file is written in the reference's own shape (a bare JSON list, see ``entry.py``), so the
reference keeps reading our memories; our earlier ``{"schema_version", "entries"}`` file is
still read, and converted on the first write (the old file kept as ``….v1-backup-<time>``).

Whatever is on disk, the store survives it: a file that does not parse (deep nesting
included) is moved aside; one bad entry is set aside alone, in the sidecar
``….rejected.jsonl``, while the others stay live; the ids a mover wrote back are noted in
``….written-back.jsonl``; lone surrogates are replaced; a symlinked
store is written through to its target; a FIFO, a device or a link to one is refused without
being opened for reading; the store, its temporary file and its lock are 0600. The old shape's
own top-level keys (besides ``schema_version`` and ``entries``) have no place in the bare
list: they are kept in the sidecar ``….keys.json`` from the conversion on.

The canonical forms the duplicate scan needs are kept beside the store too
(``….forms.jsonl``, see ``forms_cache``), so a save in a fresh process does not recompute them
for every stored memory.
"""

from __future__ import annotations

import errno
import glob
import json
import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from ...file_locks import holding, lock_path_for, open_lock
from ...private_files import write_private
from .entry import SCHEMA_VERSION, SURROGATE_ESCAPE, MemoryEntry, clean_text, utc_now
from .forms_cache import FormsCache

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


MAX_FILE_BYTES = 256 * 1024 * 1024
"""A memory file larger than this is refused (a fact store, not a data dump)."""
MOVE_ASIDE = "move it aside to start an empty one"
"""What a person can always do about a memory file that cannot be read (a missing file is
an empty store)."""


def unreadable_remedy(path: Path, exc: OSError) -> str:
    """What to do about ``path`` that could not be opened: its access for a permission
    error; for a file standing where one of its folders should be, that file (the advice
    about the memory file itself sent the person to a file that does not exist)."""
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"give yourself read and write access to it, or {MOVE_ASIDE}"
    if exc.errno == errno.ENOTDIR:
        blocking = next((str(p) for p in reversed(path.parents)
                         if os.path.lexists(p) and not os.path.isdir(p)), str(path.parent))
        return f"{blocking} is a file where a folder should be: move it aside"
    return MOVE_ASIDE

SHAPE_REFERENCE = "reference"
"""A bare list in the reference's shape: what this version writes."""
SHAPE_OLD = "old"
"""Our earlier shapes (``{"schema_version", "entries"}``, or a list with ``created_at``):
converted on the first write, the old file backed up."""
_OLD_KEYS = frozenset({"created_at", "last_verified_at", "token_count"})


@dataclass
class ParsedFile:
    entries: list[MemoryEntry]
    rejected: list[tuple[str, str]] = field(default_factory=list)
    """(the entry's JSON, why) for each entry that could not be read: set aside alone."""
    shape: str = SHAPE_REFERENCE
    newer: str | None = None
    """Why this file must not be written (a newer schema_version); entries still readable."""
    top_level: dict[str, object] = field(default_factory=dict)
    """The old shape's own top-level keys besides ``schema_version`` and ``entries``."""


def _version(value: object) -> int | None:
    if type(value) is int:
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def parse_file(text: str) -> ParsedFile:
    """The entries of the file's text, with the entries it had to set aside; ValueError when
    it is not a memory file at all (invalid JSON, nested too deep, no list of entries, or
    no entry readable)."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise ValueError("not a memory file: nested too deeply") from None
    newer = None
    if isinstance(data, list):
        raw_entries = data
        shape = SHAPE_OLD if any(isinstance(r, dict) and not _OLD_KEYS.isdisjoint(r)
                                 for r in data) else SHAPE_REFERENCE
    elif isinstance(data, dict) and isinstance(data.get("entries"), list):
        raw_entries, shape = data["entries"], SHAPE_OLD
        version = _version(data.get("schema_version", 1))
        if version is None or version > SCHEMA_VERSION:
            newer = (f"the memory file has schema_version {data.get('schema_version')}; this "
                     f"paicli-tui writes {SCHEMA_VERSION}. Upgrade paicli-tui to change "
                     "memories.")
    else:
        raise ValueError("not a memory file: no list of entries")
    surrogates = SURROGATE_ESCAPE.search(text) is not None
    parsed = ParsedFile([], shape=shape, newer=newer)
    if isinstance(data, dict):
        parsed.top_level = {k: v for k, v in data.items()
                            if k not in ("schema_version", "entries")}
    for raw in raw_entries:
        try:
            if not isinstance(raw, dict):
                raise ValueError("an entry is not an object")
            parsed.entries.append(MemoryEntry.from_dict(raw, surrogates=surrogates))
        except (ValueError, TypeError, RecursionError) as exc:
            try:
                original = clean_text(json.dumps(raw, ensure_ascii=False))
            except (ValueError, RecursionError):
                original = repr(raw)[:10_000]
            parsed.rejected.append((original, str(exc)))
    if raw_entries and not parsed.entries:
        raise ValueError("not a memory file: no entry could be read")
    return parsed


def _parse(text: str) -> list[MemoryEntry]:
    """Entries in the file's text; ValueError when it is not a memory file, NewerFileError
    when it is a newer one."""
    parsed = parse_file(text)
    if parsed.newer:
        raise NewerFileError(parsed.newer)
    return parsed.entries


def serialise(entries: list[MemoryEntry]) -> str:
    """The file text in the reference's shape: a bare JSON list, one entry per line, so it
    stays readable and diffable by a person (and json's fast C encoder does the work)."""
    rows = ",\n ".join(e.json_line for e in entries)
    text = f"[\n {rows}\n]\n" if entries else "[]\n"
    return clean_text(text)


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
        self._unreported: list[str] = []
        self._parsed = ParsedFile([])
        """What the last parse of ``_text`` found besides the entries (set aside, shape)."""
        self._forms = FormsCache(self.target.with_name(self.target.name + ".forms.jsonl"))
        self._own_text = False
        """``_text`` is what this object wrote (so it is exactly ``serialise(_cache)``)."""
        self._read_at = 0.0
        """When the file was last read (or written) and matched ``_cache``."""

    @property
    def target(self) -> Path:
        """The file actually read and written: a symlinked store is written through to its
        target, never replaced by a plain file."""
        return Path(os.path.realpath(self.path))

    @property
    def lock_path(self) -> Path:
        return lock_path_for(self.target)

    @property
    def tmp_path(self) -> Path:
        target = self.target
        return target.with_name(target.name + ".tmp")

    @property
    def keys_path(self) -> Path:
        """Sidecar holding the old shape's own top-level keys: the live file is the
        reference's bare list, which has no place for them (see :meth:`top_level_keys`)."""
        target = self.target
        return target.with_name(target.name + ".keys.json")

    def top_level_keys(self) -> dict[str, object]:
        """The top-level keys the file had in our old ``{"schema_version", "entries"}``
        shape, besides those two: kept beside the store from the conversion on, through every
        later write, and merged with the file's own while it is still in the old shape."""
        with self._lock:
            self._read_for_display()
            return {**self._kept_keys(), **self._parsed.top_level}

    def _kept_keys(self) -> dict[str, object]:
        try:
            raw = json.loads(self._read_private(self.keys_path))
        except (OSError, ValueError, RecursionError):
            return {}
        return raw if isinstance(raw, dict) else {}

    @property
    def written_back_path(self) -> Path:
        """Sidecar saying, for each file moved aside, the ids of the entries the mover wrote
        back: those were not lost, so another program that later misses one of them is
        looking at a deletion, not at a loss to repair."""
        target = self.target
        return target.with_name(target.name + ".written-back.jsonl")

    @property
    def rejected_path(self) -> Path:
        """Sidecar where entries that could not be read are set aside, one JSON line each."""
        target = self.target
        return target.with_name(target.name + ".rejected.jsonl")

    # -- reading ----------------------------------------------------------------------------
    def _stat_key(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _read_bytes(self) -> bytes:
        """The file's bytes; MemoryFileError for a FIFO, a device or a huge file (opened
        without blocking and checked before anything is read, so nothing hangs)."""
        fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise MemoryFileError(f"{self.path} is not a regular file; memories are not "
                                      "read from it (replace it with a file or remove it)")
            if info.st_size > MAX_FILE_BYTES:
                raise MemoryFileError(f"{self.path} is {info.st_size:,} bytes, more than a "
                                      f"memory file may be ({MAX_FILE_BYTES:,}); {MOVE_ASIDE}")
            chunks = []
            while block := os.read(fd, 1 << 20):
                chunks.append(block)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def _read(self, *, locked: bool = True) -> list[MemoryEntry]:
        """The file's entries. The bytes are always re-read; they are re-parsed only when they
        differ from what this object last read or wrote (cheap, and immune to inode reuse or
        coarse timestamps, unlike a stat check).

        An unparsable file is moved aside and the entries we already hold are written back at
        once (never an empty list). Only a holder of the file lock moves it (``locked``): a
        reader that did not lock takes the lock and looks again, since a writer may have
        replaced the bad file with a good one in between. A file missing, or new and without
        entries held here, just after another process moved an unreadable file aside is no
        removal on purpose: what is held here is kept and written back.
        """
        try:
            raw = self._read_bytes()
        except FileNotFoundError:
            if self._text is not None and not self._moved_aside_since(self._read_at):
                self._cache = []  # someone removed a good file on purpose: honour it
            self._text = None
            self._parsed = ParsedFile([])
            return list(self._cache)
        except OSError as exc:
            raise MemoryFileError(f"could not read {self.path}: {exc.strerror or exc} "
                                  f"({unreadable_remedy(self.path, exc)})") from None
        if raw == self._text:
            self._read_at = time.time()
            return list(self._cache)
        try:
            parsed = parse_file(raw.decode("utf-8"))
        except ValueError as exc:  # includes UnicodeDecodeError
            if not locked:
                with self._file_lock():
                    return self._read()
            self._move_aside(exc)
            return list(self._cache)
        missing = self._lost_in_a_move_aside(parsed)
        if missing:
            if not locked:
                with self._file_lock():
                    return self._read()
            return self._write_back(raw, parsed, missing)
        self._read_at = time.time()
        if parsed.rejected:
            count = len(parsed.rejected)
            self._unreported.append(
                f"{count} {'memory' if count == 1 else 'memories'} in {self.path} could not "
                f"be read; set aside in {self.rejected_path.name} on the next save, the "
                "others stay live.")
            log.warning("memory file %s: %d entries could not be read; they are set aside in "
                        "%s on the next save", self.path, len(parsed.rejected),
                        self.rejected_path)
        self._parsed = parsed
        self._cache = parsed.entries
        self._text = raw
        self._own_text = False
        return list(parsed.entries)

    def _read_for_display(self) -> list[MemoryEntry]:
        # Readers may trust an unchanged (inode, mtime, size): a wrong guess here only shows
        # an old list for one turn. Writers never take this shortcut (see update()).
        key = self._stat_key()
        if key is not None and key == self._seen_stat and self._text is not None:
            return list(self._cache)
        entries = self._read(locked=False)
        self._seen_stat = key if self._text is not None else None
        return entries

    def _stamp(self) -> str:
        return self._clock().strftime("%Y%m%dT%H%M%S%fZ")

    def _move_aside(self, reason: Exception) -> None:
        target = self.target
        backup = target.with_name(f"{target.name}.corrupt-{self._stamp()}")
        try:
            os.replace(target, backup)
        except FileNotFoundError:
            return
        self.last_backup = backup
        if self._cache:
            self._before_rewrite()  # what the last good file set aside is kept as usual
        self._text = None
        held = ""
        if self._cache:
            # Written back now, not at this program's next save: another process finding
            # no file in between read it as removed on purpose and dropped what it held.
            data = serialise(self._cache).encode("utf-8")
            self._write(data)
            self._text, self._own_text = data, True
            self._parsed = ParsedFile(list(self._cache))
            self._read_at = time.time()
            count = len(self._cache)
            held = (f" The {count} {'memory' if count == 1 else 'memories'} this program held "
                    "were written back.")
        # after the write-back: a line naming ids that are not in the file yet would stop
        # another program from writing them back
        line = {"backup": backup.name, "ids": [entry.id for entry in self._cache]}
        try:
            self._private_append(self.written_back_path, (json.dumps(line) + "\n").encode())
        except MemoryFileError:  # without the line another program writes back as before
            log.warning("could not record the entries written back after a move aside")
        self._unreported.append(
            f"{self.path} could not be read as a memory file ({reason}); it was moved to "
            f"{backup.name}.{held}")
        log.warning("memory file %s was unreadable (%s); moved to %s",
                    self.path, type(reason).__name__, backup)

    def _moved_aside_since(self, moment: float) -> bool:
        """Whether a process moved an unreadable file aside since ``moment`` (a missing file
        is then no removal on purpose: the entries held are kept for the next save)."""
        return bool(self._backups_since(moment))

    def _backups_since(self, moment: float) -> set[str]:
        """The names of the files moved aside since ``moment``."""
        target = self.target
        try:
            backups = list(target.parent.glob(f"{glob.escape(target.name)}.corrupt-*"))
        except OSError:
            return set()
        names = set()
        for backup in backups:
            try:
                if backup.lstat().st_ctime >= moment - 1.0:  # a rename sets the ctime
                    names.add(backup.name)
            except OSError:
                continue
        return names

    def _written_back(self, backups: set[str]) -> set[str]:
        """The ids the movers of ``backups`` wrote back (see :attr:`written_back_path`)."""
        try:
            text = self._read_private(self.written_back_path).decode("utf-8", "replace")
        except OSError:
            return set()
        ids: set[str] = set()
        for raw in text.splitlines():
            try:
                line = json.loads(raw)
            except (ValueError, RecursionError):
                continue
            if isinstance(line, dict) and line.get("backup") in backups \
                    and isinstance(line.get("ids"), list):
                ids.update(i for i in line["ids"] if isinstance(i, str))
        return ids

    def _lost_in_a_move_aside(self, parsed: ParsedFile) -> list[MemoryEntry]:
        """The entries held here that a new file lacks because another process moved the
        unreadable file aside before we saw it and wrote a file without them (it held
        nothing, or less than we do): a new file is otherwise another writer's change to take
        as it is. An entry the mover wrote back was not lost: missing now, it was deleted
        since, and stays deleted."""
        if not self._cache or parsed.newer:
            return []
        backups = self._backups_since(self._read_at)
        if not backups:
            return []
        present = {entry.id for entry in parsed.entries} | self._written_back(backups)
        return [entry for entry in self._cache if entry.id not in present]

    def _write_back(self, raw: bytes, parsed: ParsedFile, missing: list[MemoryEntry]
                    ) -> list[MemoryEntry]:
        """Add ``missing`` to the file just read (``raw``) and write it (file lock held)."""
        self._parsed, self._text, self._own_text = parsed, raw, False
        self._before_rewrite()
        entries = [*parsed.entries, *missing]
        data = serialise(entries).encode("utf-8")
        self._write(data)
        self._cache, self._text, self._own_text = entries, data, True
        self._parsed = ParsedFile(list(entries))
        self._read_at = time.time()
        count = len(missing)
        self._unreported.append(
            f"{count} {'memory' if count == 1 else 'memories'} this program held "
            f"{'was' if count == 1 else 'were'} missing from {self.path} after another "
            "program moved an unreadable file aside; written back.")
        log.warning("memory file %s: %d held entries written back after a move aside",
                    self.path, count)
        return list(entries)

    def take_problems(self) -> list[str]:
        """What went wrong with the file since the last call, for the person (a file moved
        aside, entries set aside), each said once."""
        problems, self._unreported = self._unreported, []
        return problems

    @property
    def set_aside(self) -> int:
        """Entries of the file as last read that could not be read (kept in the sidecar)."""
        return len(self._parsed.rejected)

    def entries(self) -> list[MemoryEntry]:
        """A snapshot of all entries (a new list of immutable entries)."""
        with self._lock:
            return self._read_for_display()

    # -- writing ----------------------------------------------------------------------------
    @contextmanager
    def _file_lock(self) -> Iterator[None]:
        """Hold the OS lock on the sibling ``.lock`` file (callers hold the thread lock)."""
        try:
            lock_handle = open_lock(self.target)
        except OSError as exc:
            raise MemoryFileError(
                f"could not open {self.lock_path}: {exc.strerror or exc}") from None
        with lock_handle, holding(lock_handle):
            yield

    def update(self, change: Callable[[list[MemoryEntry]], T]) -> T:
        """Apply ``change`` to the freshest entries under both locks and write the result.

        ``change`` edits the list in place (append, remove, or put an evolved entry in place of
        an old one; entries themselves are immutable) and returns a value handed back to the
        caller. If it raises, nothing is written. The file is rewritten only when the list
        changed (or an old-shape file, or one with entries set aside, is being converted).
        """
        with self._lock, self._file_lock():
            entries = self._read()
            if self._text is not None and self._parsed.newer:
                raise NewerFileError(self._parsed.newer)
            original = list(self._cache) if self._text is not None else None
            self._forms.attach(entries)  # the duplicate scan needs every entry's forms
            result = change(entries)
            written = None
            if original is None or not _same(entries, original):
                written = self._serialise(entries, original)
                self._before_rewrite()
                self._write(written)
                self._cache = list(entries)
                self._text = written
                self._own_text = True
                self._parsed = ParsedFile(list(entries))
                self._read_at = time.time()
            self._forms.record(entries, written)
            return result

    def _serialise(self, entries: list[MemoryEntry], original: list[MemoryEntry] | None
                   ) -> bytes:
        """The new file. When the change only appended entries to a file this program
        wrote (this object, or another process whose write the forms sidecar recorded), the
        old bytes are kept and the new lines added before the closing bracket: the same
        bytes :func:`serialise` would produce, without re-encoding every entry."""
        old = self._text
        if (old is not None and original and len(entries) > len(original)
                and _same(entries[:len(original)], original) and old.endswith(b"}\n]\n")
                and (self._own_text or self._forms.proves(old))):
            tail = ",\n ".join(e.json_line for e in entries[len(original):])
            return old[:-3] + clean_text(f",\n {tail}\n]\n").encode("utf-8")
        return serialise(entries).encode("utf-8")

    def _before_rewrite(self) -> None:
        """Keep what the rewrite would drop: entries that could not be read go to the
        sidecar, and a file in our old shape is backed up once before it is converted."""
        parsed, old = self._parsed, self._text
        if old is None:
            return
        if parsed.rejected:
            lines = "".join(json.dumps({"set_aside_at": self._stamp(), "reason": why,
                                        "entry": text}, ensure_ascii=False) + "\n"
                            for text, why in parsed.rejected)
            self._private_append(self.rejected_path, clean_text(lines).encode("utf-8"))
        if parsed.top_level:
            self._keep_top_level(parsed.top_level)
        if parsed.shape == SHAPE_OLD:
            target = self.target
            backup = target.with_name(f"{target.name}.v1-backup-{self._stamp()}")
            self._private_write(backup, old)
            log.info("memory file %s converted to the shared list shape; old file kept as %s",
                     self.path, backup)

    def _keep_top_level(self, keys: dict[str, object]) -> None:
        data = json.dumps({**self._kept_keys(), **keys}, ensure_ascii=False, indent=1) + "\n"
        tmp = self.keys_path.with_name(self.keys_path.name + ".tmp")
        self._private_write(tmp, clean_text(data).encode("utf-8"))
        os.replace(tmp, self.keys_path)

    @staticmethod
    def _read_private(path: Path) -> bytes:
        """A small sidecar's bytes (not a FIFO or a device: opened without blocking)."""
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(f"{path} is not a regular file")
            return os.read(fd, 16 << 20)
        finally:
            os.close(fd)

    @staticmethod
    def _private_append(path: Path, data: bytes) -> None:
        try:
            write_private(path, data, append=True, sync=True)
        except OSError as exc:
            raise MemoryFileError(f"could not write {path}: {exc.strerror or exc}") from None

    @staticmethod
    def _private_write(path: Path, data: bytes) -> None:
        """Write ``data`` to a new file only this user can read (0600), synced to disk."""
        try:  # an older file of that name may have had wider rights: narrowed too
            write_private(path, data, follow_symlinks=False, sync=True)
        except OSError as exc:
            raise MemoryFileError(f"could not write {path}: {exc.strerror or exc}") from None

    def _write(self, data: bytes) -> None:
        target = self.target
        tmp = self.tmp_path
        self._private_write(tmp, data)
        try:
            os.replace(tmp, target)
        except OSError as exc:
            raise MemoryFileError(f"could not write {self.path}: {exc.strerror or exc}") from None
        # Make the rename itself durable (best effort: not every platform can open a folder).
        try:
            fd = os.open(target.parent, os.O_RDONLY)
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

