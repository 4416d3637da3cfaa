"""Files only the person may read: the memory store and its caches, session ledgers, saved
tool outputs, the log, the prompt history, ``config.toml`` (it may hold ``api_key``).

Such a file is created 0600 and, when an earlier version (or the default umask) left it
wider, narrowed to 0600 the next time it is written; a symlink planted at the name is refused
where the caller says so (``follow_symlinks=False``). Every write of the program's own files
goes through here, so the rule is kept in one place (stdlib only).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

PRIVATE = 0o600


def open_private(path: str | os.PathLike[str], flags: int, *, mode: int = PRIVATE,
                 follow_symlinks: bool = True) -> int:
    """``os.open(path, flags)`` for a file of rights ``mode`` (0600 unless the file is meant
    for others, such as a ``.gitignore``): created so, and an existing file set to ``mode``.
    A file this user does not own keeps its rights (it cannot be changed, and was already so).
    """
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, mode)
    try:
        with contextlib.suppress(PermissionError):
            os.fchmod(fd, mode)
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_private(path: str | os.PathLike[str], data: bytes | Iterable[bytes], *,
                  append: bool = False, exclusive: bool = False, mode: int = PRIVATE,
                  follow_symlinks: bool = True, sync: bool = False) -> None:
    """Write ``data`` (bytes, or pieces of it) to ``path``: truncated first, or appended to
    (``append``), or only when the file is new (``exclusive``: FileExistsError otherwise);
    every byte written (a short write is resumed), synced to disk when ``sync``."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
    if exclusive:
        flags |= os.O_EXCL
    fd = open_private(path, flags, mode=mode, follow_symlinks=follow_symlinks)
    _write_all_and_close(fd, data, sync=sync)


def _write_all_and_close(fd: int, data: bytes | Iterable[bytes], *, sync: bool) -> None:
    """Every byte of ``data`` to ``fd`` (a short write is resumed), synced when ``sync``."""
    try:
        for piece in (data,) if isinstance(data, bytes | bytearray | memoryview) else data:
            view = memoryview(piece)
            while view:
                view = view[os.write(fd, view):]
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def replace_private(path: str | os.PathLike[str], data: bytes, *, sync: bool = False) -> None:
    """Replace ``path`` whole by a private file holding ``data``: written to a temporary file
    of this write's own beside it, then renamed over it, so a reader sees the old file or the
    new one, never half. The temporary name is unique per write: with one fixed name, two
    processes rewriting ``config.toml`` at once (two apps changing /theme) wrote into the same
    file while the other renamed it, and a reader in between saw it empty and wrote its own
    line back alone."""
    path = Path(path)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        _write_all_and_close(fd, data, sync=sync)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
