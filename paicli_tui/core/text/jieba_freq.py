"""jieba's word frequencies read on demand from an indexed table, not loaded whole.

jieba keeps its dictionary as one dict of ~500,000 words and word prefixes. A process that
segments a single question (``paicli-tui search 怎么运行测试``, ``memory search …``) spent
~0.8 s unmarshalling that dict and ~0.2 s importing ``pkg_resources`` for jieba, to look up a
few dozen fragments. This module builds ``PAICLI_HOME/cache/jieba-freq-<key>.sqlite`` once
(the dictionary with the developer words already added, and jieba's total) and gives the
tokenizer a mapping that answers from it, remembering each answer. A process that goes on
to segment a lot (indexing thousands of memories) stops paying a query per fragment: after
PROMOTE_AFTER look-ups the whole table is read into a plain dict and handed to the
tokenizer, so the worst case costs about what loading everything up front would have.

It is a cache: a missing, damaged or outdated table is rebuilt (or jieba loads its own
dictionary as before); segmentation is the same either way (tested).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, MutableMapping
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

FORMAT = 1
"""Bumped when the table's layout changes (older files are then ignored)."""
PROMOTE_AFTER = 60_000
"""Look-ups answered from the table before the whole table is read into memory (~0.2 s of
look-ups, about a third of a full load)."""
_MISSING = object()


class LazyFrequencies(MutableMapping[str, int]):
    """jieba's ``FREQ`` mapping (word or prefix → frequency, 0 for a prefix) answered from
    the table; words added in this process (``add_word``) are kept in memory above it."""

    def __init__(self, path: Path, *, promote_after: int = PROMOTE_AFTER,
                 on_promote: Callable[[dict[str, int]], None] | None = None) -> None:
        self._connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True,
                                           check_same_thread=False)
        self._lock = threading.Lock()
        self._known: dict[str, Any] = {}
        """Answers so far (the table's, or this process's own words); _MISSING for absent."""
        self._queries = 0
        self._promote_after = promote_after
        self._on_promote = on_promote
        self._full: dict[str, int] | None = None

    @property
    def promoted(self) -> bool:
        return self._full is not None

    def _lookup(self, word: str) -> Any:
        full = self._full
        if full is not None:
            return full.get(word, _MISSING)
        found = self._known.get(word)
        if found is not None:
            return found
        with self._lock:
            if self._full is not None:
                return self._full.get(word, _MISSING)
            row = self._connection.execute("SELECT n FROM freq WHERE word = ?",
                                           (word,)).fetchone()
            self._queries += 1
            value = _MISSING if row is None else row[0]
            self._known[word] = value
            if self._queries >= self._promote_after:
                self._promote()
        return value

    def _promote(self) -> None:
        """Read the whole table (called with the lock held); this process's words win."""
        full = dict(self._connection.execute("SELECT word, n FROM freq"))
        for word, value in self._known.items():
            if value is _MISSING:
                full.pop(word, None)
            else:
                full[word] = value
        self._full = full
        self._known = {}
        self._connection.close()
        if self._on_promote is not None:
            self._on_promote(full)

    def get(self, word: str, default: Any = None) -> Any:  # type: ignore[override]
        value = self._lookup(word)
        return default if value is _MISSING else value

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self._lookup(word) is not _MISSING

    def __getitem__(self, word: str) -> int:
        value = self._lookup(word)
        if value is _MISSING:
            raise KeyError(word)
        return int(value)

    def __setitem__(self, word: str, value: int) -> None:
        with self._lock:
            if self._full is not None:
                self._full[word] = value
            else:
                self._known[word] = value

    def __delitem__(self, word: str) -> None:
        if word not in self:
            raise KeyError(word)
        with self._lock:
            if self._full is not None:
                self._full.pop(word, None)
            else:
                self._known[word] = _MISSING

    def _everything(self) -> dict[str, int]:
        with self._lock:
            if self._full is None:
                self._promote()
        assert self._full is not None
        return self._full

    def __iter__(self) -> Iterator[str]:
        return iter(self._everything())

    def __len__(self) -> int:
        return len(self._everything())


def table_path(cache_dir: Path, tokenizer: Any, additions: str) -> Path:
    """Named by the layout, jieba's version, its dictionary file's size and time and
    ``additions`` (what is added to the dictionary, as text), so any change builds a new
    table."""
    import jieba

    dictionary = tokenizer.dictionary or os.path.join(os.path.dirname(jieba.__file__),
                                                      jieba.DEFAULT_DICT_NAME)
    try:
        stat = os.stat(dictionary)
        where = f"{dictionary}:{stat.st_size}:{stat.st_mtime_ns}"
    except OSError:
        where = str(dictionary)
    key = hashlib.sha256(f"{FORMAT}|{jieba.__version__}|{where}|{additions}".encode()
                         ).hexdigest()
    return Path(cache_dir) / f"jieba-freq-{key[:16]}.sqlite"


def write_table(path: Path, frequencies: dict[str, int], total: int) -> None:
    """Write the table under a temporary name, then rename it into place (a reader never
    sees a half-written table; two builders race harmlessly)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        with contextlib.closing(sqlite3.connect(tmp)) as db:
            db.execute("PRAGMA journal_mode = OFF")
            db.execute("PRAGMA synchronous = OFF")
            db.execute("CREATE TABLE freq (word TEXT PRIMARY KEY, n INTEGER NOT NULL) "
                       "WITHOUT ROWID")
            db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            db.executemany("INSERT INTO freq VALUES (?, ?)", frequencies.items())
            db.execute("INSERT INTO meta VALUES ('total', ?), ('words', ?)",
                       (str(total), str(len(frequencies))))
            db.commit()
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    for stale in path.parent.glob("jieba-freq-*.tmp"):  # left by a killed builder
        with contextlib.suppress(OSError):
            if time.time() - stale.stat().st_mtime > 3600:
                stale.unlink()


def read_total(path: Path) -> int | None:
    """jieba's total of a complete table, None when the table is missing or unreadable."""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            rows = dict(db.execute("SELECT key, value FROM meta"))
            total, words = int(rows["total"]), int(rows["words"])
            if total <= 0 or words <= 0:
                return None
            return total
    except (sqlite3.Error, KeyError, ValueError, OSError):
        return None


def install(tokenizer: Any, cache_dir: Path, additions: str,
            add_words: Callable[[Any], None]) -> str:
    """Prepare ``tokenizer`` (a ``jieba.Tokenizer``) to segment with its dictionary plus the
    words ``add_words(tokenizer)`` adds to a loaded one (``additions`` names them, for the
    table's key), the cheapest way available. Returns how:

    - ``"table"``: the table exists; the tokenizer reads it on demand (nothing loaded);
    - ``"built"``: no table yet: jieba loaded its dictionary as usual, the words were added
      and the table was written for the next process;
    - ``"loaded"``: as "built", but the table could not be written (only costs time).
    """
    path = table_path(cache_dir, tokenizer, additions)
    total = read_total(path) if path.exists() else None
    if total is not None:
        try:
            tokenizer.FREQ = LazyFrequencies(
                path, on_promote=lambda full: setattr(tokenizer, "FREQ", full))
        except sqlite3.Error as exc:
            log.debug("jieba table %s unreadable (%s): loading the dictionary", path, exc)
        else:
            tokenizer.total = total
            tokenizer.initialized = True
            return "table"
    tokenizer.initialize()
    add_words(tokenizer)
    try:
        write_table(path, dict(tokenizer.FREQ), int(tokenizer.total))
    except (OSError, sqlite3.Error) as exc:
        log.debug("jieba table %s not written: %s", path, exc)
        return "loaded"
    return "built"
