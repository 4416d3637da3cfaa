"""Files derived from a code index and kept beside it under PAICLI_HOME/cache (the project's
words, the doc sentences' vectors): written whole and atomically, and held in memory per
process while their file is unchanged.

Nothing here is part of the index: a missing, damaged or unwritable file only costs
computing it again from the index.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np

T = TypeVar("T")


def write_npz_atomic(path: Path, arrays: dict[str, Any]) -> None:
    """Write ``arrays`` to ``path`` through a temporary file renamed over the old one: a
    reader sees the old file or the new one, never half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as out:
            np.savez(out, **arrays)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def with_vectors(texts: Sequence[str], known: dict[str, np.ndarray] | None,
                 embed: Callable[[Sequence[str]], np.ndarray], batch: int) -> dict[str, np.ndarray]:
    """``known`` (text -> vector, e.g. from the previous cache) plus the vectors of the
    ``texts`` not in it, embedded ``batch`` at a time, each text once."""
    vectors = dict(known or {})
    missing = list(dict.fromkeys(t for t in texts if t not in vectors))
    for start in range(0, len(missing), batch):
        part = missing[start:start + batch]
        for text, vector in zip(part, np.asarray(embed(part), dtype=np.float32), strict=True):
            vectors[text] = vector
    return vectors


def stacked(vectors: dict[str, np.ndarray], texts: Sequence[str]) -> np.ndarray:
    """The vectors of ``texts`` as rows (an empty matrix of the right width for none)."""
    dim = next(iter(vectors.values())).shape[0] if vectors else 0
    return (np.stack([vectors[t] for t in texts]).astype(np.float32) if texts
            else np.zeros((0, dim), dtype=np.float32))


def file_stamp(path: Path) -> tuple[int, int] | None:
    """(size, modification time) of ``path``, None when it cannot be read."""
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_size, found.st_mtime_ns


class Held(Generic[T]):
    """The last ``size`` values read from cache files, each used again only while its file
    has the stamp it had when read (one per index an agent session searches: every search
    would otherwise read its file again, a few MB, 15-60 ms)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: dict[Path, tuple[tuple[int, int] | None, T]] = {}

    def get(self, path: Path, stamp: tuple[int, int] | None) -> T | None:
        """The value held for ``path`` if its file still has ``stamp`` (taken now)."""
        held = self._items.get(path)
        if held is None or stamp is None or held[0] != stamp:
            return None
        return held[1]

    def put(self, path: Path, stamp: tuple[int, int] | None, value: T) -> T:
        """Hold ``value``, read from ``path`` when the file had ``stamp`` (taken before
        reading it: a file replaced meanwhile is read again next time)."""
        if stamp is None:  # no file to check it against: read (or rebuild) it next time
            return value
        self._items.pop(path, None)
        self._items[path] = (stamp, value)
        while len(self._items) > self.size:
            self._items.pop(next(iter(self._items)))
        return value
