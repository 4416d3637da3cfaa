"""One writer per session ledger: an exclusive lock on ``<session>.lock`` beside the ledger.

Schema 2 records changes relative to the view the writer last wrote, so two processes
appending to one ledger would corrupt each other's views (before, their turns interleaved).
The lock is held by the process for as long as the session is open and dies with it (no
stale lock after a crash). The same process may claim a session it already holds (the TUI
reopening the session it is about to close); another process is refused, naming the pid.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import IO

from ...private_files import open_private

_held: dict[str, tuple[IO[bytes], int]] = {}
_guard = threading.Lock()


class SessionBusy(Exception):
    """Another process has this session open."""

    def __init__(self, pid: str | None) -> None:
        super().__init__(pid)
        self.pid = pid


def claim(lock_path: Path) -> None:
    """Take the session's lock, or raise SessionBusy at once (never waits)."""
    import portalocker

    key = str(lock_path)
    with _guard:
        if key in _held:
            handle, count = _held[key]
            _held[key] = (handle, count + 1)
            return
        fd = open_private(lock_path, os.O_RDWR | os.O_CREAT)
        handle = os.fdopen(fd, "r+b")
        try:
            portalocker.lock(handle, portalocker.LockFlags.EXCLUSIVE
                             | portalocker.LockFlags.NON_BLOCKING)
        except portalocker.exceptions.LockException:
            pid = handle.read(32).decode("ascii", "replace").strip() or None
            handle.close()
            raise SessionBusy(pid) from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()).encode())
        handle.flush()
        _held[key] = (handle, 1)


def release(lock_path: Path) -> None:
    """Give one claim back; the lock goes when the last claim of this process does."""
    import portalocker

    key = str(lock_path)
    with _guard:
        if key not in _held:
            return
        handle, count = _held[key]
        if count > 1:
            _held[key] = (handle, count - 1)
            return
        del _held[key]
        try:
            handle.seek(0)
            handle.truncate()
            portalocker.unlock(handle)
        finally:
            handle.close()
