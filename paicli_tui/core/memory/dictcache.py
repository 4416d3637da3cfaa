"""CC-CEDICT as an indexed table, so memory keywords can gloss Chinese without a file scan.

The code-search gloss reads the gzip dictionary in one pass per batch of unknown words
(~0.5–1 s on two shared cores): fine once per search, too slow for a turn that must choose
memories in well under 100 ms, and for thousands of memories glossed as they arrive. This
module builds ``PAICLI_HOME/cache/cedict-<version>.sqlite`` once (a few seconds, atomically:
built under a temporary name, then renamed) and answers look-ups from it; the answers are
handed to the dictionary module's memo, so the shared gloss code uses them unchanged.
It is a cache: deleting it costs one rebuild, never data.
"""

from __future__ import annotations

import contextlib
import gzip
import logging
import os
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger(__name__)

FORMAT = 1
"""Bumped when the table's layout changes (older files are then ignored and rebuilt)."""
_SEP = "\x1f"

_lock = threading.Lock()
_connections: dict[Path, sqlite3.Connection] = {}
_failed: set[Path] = set()


def table_path(cache_dir: Path) -> Path:
    """Named by the layout and the dictionary file's size, so a new dictionary rebuilds it."""
    from ..text.dictionary import data_path

    try:
        size = os.stat(str(data_path())).st_size
    except OSError:
        size = 0
    return Path(cache_dir) / f"cedict-{FORMAT}-{size}.sqlite"


def _build(path: Path) -> None:
    from ..text.dictionary import data_path

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.unlink(missing_ok=True)
    merged: dict[str, list[str]] = {}
    with gzip.open(data_path(), mode="rt", encoding="utf-8") as fh:  # type: ignore[call-overload]
        for line in fh:
            if line.startswith("#"):
                continue
            head, _, rest = line.partition(" [")
            trad, _, simp = head.partition(" ")
            _, _, raw = rest.partition("] /")
            found = [s for s in raw.rstrip().rstrip("/").split("/") if s]
            for word in {simp, trad}:
                if word:
                    merged.setdefault(word, []).extend(found)
    db = sqlite3.connect(tmp)
    try:
        db.execute("CREATE TABLE senses (word TEXT PRIMARY KEY, raw TEXT NOT NULL)")
        db.executemany("INSERT INTO senses VALUES (?, ?)",
                       ((w, _SEP.join(s)) for w, s in merged.items()))
        db.commit()
    finally:
        db.close()
    os.replace(tmp, path)


def _connection(cache_dir: Path) -> sqlite3.Connection | None:
    path = table_path(cache_dir)
    with _lock:
        db = _connections.get(path)
        if db is not None or path in _failed:
            return db
        try:
            if not path.exists():
                _build(path)
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
            db.execute("SELECT 1 FROM senses LIMIT 1")
        except Exception as exc:  # a broken cache is rebuilt next time; the gloss still works
            log.warning("dictionary table unavailable (%s); glossing from the gzip file",
                        type(exc).__name__)
            _failed.add(path)
            with contextlib.suppress(OSError):
                path.unlink()
            return None
        _connections[path] = db
        return db


def prime(words: Iterable[str], cache_dir: Path | None) -> bool:
    """Look ``words`` up in the table and hand the answers (also "not in the dictionary") to
    the dictionary module, so :func:`~paicli_tui.core.text.dictionary.lookup` needs no
    file pass for them. False when the table cannot be used (then look-ups scan the file)."""
    if cache_dir is None:
        return False
    from ..text import dictionary

    wanted = sorted(dictionary.unknown(words))
    if not wanted:
        return True
    db = _connection(cache_dir)
    if db is None:
        return False
    found: dict[str, tuple[str, ...]] = {w: () for w in wanted}
    with _lock:
        for start in range(0, len(wanted), 500):
            chunk = wanted[start:start + 500]
            marks = ",".join("?" * len(chunk))
            for word, raw in db.execute(f"SELECT word, raw FROM senses WHERE word IN ({marks})",
                                        chunk):
                found[word] = tuple(raw.split(_SEP)) if raw else ()
    dictionary.remember(found)
    return True
