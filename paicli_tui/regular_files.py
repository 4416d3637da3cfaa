"""Reading a project file that may be hostile: never blocking, never without a bound.

A repository (or a script the agent ran) can leave a FIFO where a file is expected — a
``.gitignore``, a ``.mcp.json``, a ``PAI.md`` include — and opening a FIFO for reading waits
for a writer forever; a sparse file can claim a gigabyte it never stored. Every program-read
project file goes through :func:`read_regular`, and so does ``read_file`` (with its own
20 MB bound): opened without blocking, refused unless it is a regular file, and read only up
to the bytes its use can need (a file growing while it is read is cut at the bound).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class NotRegularFile(OSError):
    """A FIFO, a device or a socket where a file was expected (nothing was read)."""


def read_regular(path: str | os.PathLike[str], limit: int) -> tuple[bytes, bool]:
    """(the first ``limit`` bytes, whether that is the whole file) of a regular file.

    OSError when it cannot be opened; NotRegularFile, without reading or waiting, for
    anything that is not a regular file (symlinks are followed, so a link to one as well).
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(f"{Path(path)} is not a regular file")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            block = os.read(fd, min(1 << 20, limit + 1 - size))
            if not block:
                break
            chunks.append(block)
            size += len(block)
        data = b"".join(chunks)
        return data[:limit], len(data) <= limit
    finally:
        os.close(fd)


def read_regular_text(path: str | os.PathLike[str], limit: int) -> tuple[str, bool]:
    """Like :func:`read_regular`, decoded as UTF-8 (bad bytes replaced)."""
    data, whole = read_regular(path, limit)
    return data.decode("utf-8", errors="replace"), whole
