"""One writer at a time for a file that is read, changed and written back whole.

Several apps and ``exec`` runs share PAICLI_HOME. A file rewritten from what was just read
(the MCP approvals, the prompt history when it is trimmed, ``config.toml``) lost the other
process's change when two did so at once: each wrote back what it had read plus its own
change. The change is made under an exclusive OS lock on a sibling ``<name>.lock`` file
(never removed: removing it would let a third process lock a new file while the second
still holds the old one). The lock is ``flock``-style, so it also keeps apart two threads of
one process that each open the lock file.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from .private_files import open_private


def lock_path_for(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def open_lock(path: Path) -> TextIO:
    """The lock file of ``path``, opened (created private, its folder too); OSError when it
    cannot be."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return open(lock_path_for(path), "a", opener=open_private)  # noqa: SIM115 - the caller's


@contextmanager
def holding(handle: TextIO) -> Iterator[None]:
    """Hold the exclusive lock on an opened lock file. Blocking: waiting happens in the
    kernel, not in a polling loop, so busy writers do not slow each other by an interval."""
    import portalocker  # not on the start-up path

    portalocker.lock(handle, portalocker.LockFlags.EXCLUSIVE)
    try:
        yield
    finally:
        portalocker.unlock(handle)


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Read, change and write ``path`` inside this block: no other process (or thread)
    holding the same lock is in its own block meanwhile."""
    with open_lock(path) as handle, holding(handle):
        yield
