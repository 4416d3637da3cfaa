"""Memory vectors, embedded once per text and embedder and kept in a sidecar file.

The cache lives at ``PAICLI_HOME/memory/vectors/<embedder>.npz``: content hashes and their
L2-normalised rows. A turn only embeds entries it has never seen, so a 10,000-entry store does
not cost 10,000 embeddings per question. It is a cache: losing it costs time, never data.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import logging
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...private_files import open_private

if TYPE_CHECKING:
    import numpy as np

    from ..contracts.embedder import Embedder

log = logging.getLogger(__name__)


_STOPPING = threading.Event()
_WORKERS: set[threading.Thread] = set()


@atexit.register
def _stop_workers() -> None:
    """At exit, let background embedding finish its current batch instead of being torn down
    mid-call (and mid-write) by interpreter shutdown."""
    _STOPPING.set()
    for worker in list(_WORKERS):
        worker.join(timeout=3)


def content_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class VectorCache:
    """Vectors per content hash for one embedder, loaded lazily and saved atomically.

    Two ways to get rows: :meth:`matrix` embeds what is missing before it returns (the CLI,
    tests); :meth:`matrix_nowait` returns at once with what is cached and leaves the rest to
    a background thread, so a turn in the TUI never waits for a model to load or a large
    store to be embedded. Embedder calls are serialised (one at a time, in batches), so a
    query waits at most one batch.
    """

    BATCH = 32
    QUERY_CACHE = 256
    """Query rows kept per process: the same question (a repeated search, the same message
    asked again, the calibration of a second reading) is embedded once."""

    def __init__(self, directory: Path, embedder: Embedder, *,
                 prepare: Callable[[str], str] | None = None, variant: str = "") -> None:
        """``prepare`` turns a text into what the embedder reads (rows are still keyed by
        the text itself, so a cached row needs no preparing); ``variant`` names that
        preparation in the file name, so rows of different preparations never mix."""
        self.embedder = embedder
        self.prepare = prepare
        name = f"{embedder.name}-{variant}" if variant else embedder.name
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", name) or "embedder"
        self.path = Path(directory) / f"{slug}.npz"
        self._queries: OrderedDict[str, Any] = OrderedDict()
        self._base: Any = None
        """The rows read from the file (or folded in by the last save), as one matrix."""
        self._index: dict[str, int] = {}
        """Content hash → row of ``_base``."""
        self._rows: dict[str, Any] = {}
        """Rows embedded since the last save, by content hash."""
        self._loaded = False
        self._keys_by_text: dict[str, str] = {}
        self._lock = threading.Lock()
        """Guards the rows, the pending queue and the worker handle."""
        self._embed_lock = threading.Lock()
        """One embedder call at a time (models are not promised to be thread-safe)."""
        self._fixed: dict[tuple[str, ...], Any] = {}
        self._hubs: tuple[Any, Any, Any, Any] | None = None
        self._present: tuple[Any, Any] | None = None
        self._last: tuple[list[str], Any] | None = None
        """The texts and matrix of the previous call: an unchanged store reuses the matrix."""
        self._pending: dict[str, str] = {}
        self._worker: threading.Thread | None = None
        self._answered = threading.Event()
        """Set once the embedder answered (or failed): waiters stop waiting."""
        self.failed = False
        """The embedder failed in the background; callers rank by keywords."""

    @property
    def ready(self) -> bool:
        """The embedder has answered once (its model is loaded)."""
        return self._answered.is_set() and not self.failed

    def wait_ready(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the embedder's first answer; True when ready."""
        self._answered.wait(timeout)
        return self.ready

    def _key(self, text: str) -> str:
        key = self._keys_by_text.get(text)
        if key is None:
            key = self._keys_by_text[text] = content_key(text)
        return key

    def _load(self) -> None:
        import numpy as np

        self._loaded = True
        # Temporary files of writers that were killed mid-save: never read, safe to drop.
        for stale in self.path.parent.glob(f"{self.path.stem}.*.tmp.npz"):
            with contextlib.suppress(OSError):
                if time.time() - stale.stat().st_mtime > 3600:
                    stale.unlink()
        try:
            with np.load(self.path, allow_pickle=False) as data:
                keys, rows = data["keys"], data["vectors"]
        except FileNotFoundError:
            return
        except Exception as exc:  # a damaged cache is rebuilt, never fatal
            log.warning("ignoring unreadable vector cache %s (%s)", self.path, type(exc).__name__)
            return
        if rows.ndim == 2 and rows.shape[1] == self.embedder.dim and len(keys) == len(rows):
            self._base = np.asarray(rows, dtype=np.float32)
            self._index = {str(k): i for i, k in enumerate(keys.tolist())}

    def _has(self, key: str) -> bool:
        return key in self._index or key in self._rows

    def _row(self, key: str) -> Any:
        row = self._rows.get(key)
        return row if row is not None else self._base[self._index[key]]

    def _save(self) -> None:
        """Write every row (called with ``_lock`` held); the new rows join the matrix."""
        import numpy as np

        new = [k for k in self._rows if k not in self._index]
        if new:
            fresh = np.stack([self._rows[k] for k in new]).astype(np.float32)
            self._base = fresh if self._base is None else np.concatenate([self._base, fresh])
            start = len(self._index)
            self._index.update((k, start + i) for i, k in enumerate(new))
        self._rows.clear()
        if self._base is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f"{self.path.stem}.{os.getpid()}.{threading.get_ident()}.tmp.npz")
        try:
            # the memories' vectors are the person's, like the store
            with os.fdopen(open_private(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), "wb") as fh:
                np.savez(fh, keys=np.array(list(self._index), dtype=str), vectors=self._base)
            os.replace(tmp, self.path)
        except OSError as exc:
            log.warning("could not write vector cache %s: %s", self.path, exc.strerror or exc)
            tmp.unlink(missing_ok=True)

    def _embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        import numpy as np

        # Some embedders encode questions differently from documents.
        embed = getattr(self.embedder, "embed_queries", None) if query else None
        if self.prepare is not None and not query:  # a query comes prepared by its caller
            texts = [self.prepare(t) for t in texts]
        with self._embed_lock:
            rows = np.asarray((embed or self.embedder.embed)(texts), dtype=np.float32)
        self._answered.set()
        return rows

    def embed_query(self, text: str) -> np.ndarray:
        """The query's row (waits for at most one background batch unless cached)."""
        with self._lock:
            row = self._queries.get(text)
            if row is not None:
                self._queries.move_to_end(text)
                return row
        row = self._embed([text], query=True)[0]
        with self._lock:
            self._queries[text] = row
            while len(self._queries) > self.QUERY_CACHE:
                self._queries.popitem(last=False)
        return row

    def _assemble(self, texts: list[str], keys: list[str], complete: bool) -> np.ndarray:
        import numpy as np

        if not keys:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        # one gather from the matrix for the rows read from the file; only rows embedded
        # since the last save are copied one by one
        positions = np.fromiter((self._index.get(k, -1) for k in keys), dtype=np.int64,
                                count=len(keys))
        present = positions >= 0
        if self._base is not None and present.all():
            matrix = self._base[positions]
        else:
            matrix = np.zeros((len(keys), self.embedder.dim), dtype=np.float32)
            if self._base is not None and present.any():
                matrix[present] = self._base[positions[present]]
            for i in np.flatnonzero(~present).tolist():
                row = self._rows.get(keys[i])
                if row is not None:
                    matrix[i] = row
                    present[i] = True
        self._present = (matrix, present)
        if complete:
            self._last = (list(texts), matrix)
        return matrix

    def _lookup(self, texts: list[str]) -> tuple[Any, list[str], dict[str, str]]:
        """(the previous matrix if ``texts`` are unchanged, keys, missing key → text newest
        first). Called with ``_lock`` held."""
        if not self._loaded:
            self._load()
        if self._last is not None and self._last[0] == texts:
            return self._last[1], [], {}
        keys = [self._key(t) for t in texts]
        missing = {k: t for k, t in zip(reversed(keys), reversed(texts), strict=True)
                   if not self._has(k)}
        return None, keys, missing

    def matrix(self, texts: list[str], max_new: int | None = None) -> np.ndarray:
        """Rows for ``texts`` in order, embedding (in one batch) only the ones not cached.

        ``max_new`` caps how many are embedded in this call, newest texts first; the rest get
        zero rows (no vector evidence yet) and are embedded by later calls.
        """
        with self._lock:
            previous, keys, missing = self._lookup(texts)
        if previous is not None:
            return previous
        complete = max_new is None or len(missing) <= max_new
        if missing:
            batch = list(missing) if complete else list(missing)[:max_new]
            fresh = self._embed([missing[k] for k in batch])
            with self._lock:
                self._rows.update(zip(batch, fresh, strict=True))
                self._save()
        with self._lock:
            return self._assemble(texts, keys, complete)

    def fixed_matrix(self, texts: tuple[str, ...], *, wait: bool) -> np.ndarray | None:
        """Rows for a fixed set of texts (the calibration notes), kept apart from the store's
        matrix so neither evicts the other; None while some are not embedded yet (without
        ``wait``: queued for the background thread)."""
        import numpy as np

        cached = self._fixed.get(texts)
        if cached is not None:
            return cached
        with self._lock:
            if not self._loaded:
                self._load()
            missing = {self._key(t): t for t in texts if not self._has(self._key(t))}
            if missing and not wait:
                self._schedule(missing)
                return None
        if missing:
            fresh = self._embed(list(missing.values()))
            with self._lock:
                self._rows.update(zip(missing, fresh, strict=True))
                self._save()
        with self._lock:
            matrix = np.stack([self._row(self._key(t)) for t in texts])
        self._fixed[texts] = matrix
        return matrix

    def hub_stats(self, matrix: np.ndarray, background: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
        """Per row of ``matrix``: the mean and spread (at least 0.03) of its cosines with the
        ``background`` rows — how near a memory stands to unrelated text in general. Kept
        while the store's matrix is the same object (every turn of an unchanged store)."""
        cached = self._hubs
        if cached is not None and cached[0] is matrix and cached[1] is background:
            return cached[2], cached[3]
        import numpy as np

        against = matrix @ background.T  # once per store version (BLAS: ~10 ms at 10,000)
        mean = against.mean(axis=1).astype(np.float32)
        spread = np.maximum(against.std(axis=1), 0.03).astype(np.float32)
        self._hubs = (matrix, background, mean, spread)
        return mean, spread

    def present_rows(self, matrix: np.ndarray) -> np.ndarray:
        """Which rows of ``matrix`` hold a vector (rows not embedded yet are all zero), known
        from the assembly of the latest matrix: an unchanged store reuses it every turn."""
        cached = self._present
        if cached is not None and cached[0] is matrix:
            return cached[1]
        mask = (matrix != 0).any(axis=1)
        self._present = (matrix, mask)
        return mask

    def matrix_nowait(self, texts: list[str]) -> np.ndarray | None:
        """Rows for ``texts`` from the cache right now (zero rows for the missing ones, which a
        background thread embeds); None until the embedder has warmed up."""
        with self._lock:
            previous, keys, missing = self._lookup(texts)
            if previous is not None:
                return previous
            if missing or not self._answered.is_set():
                self._schedule(missing)
            if not self.ready:
                return None
            return self._assemble(texts, keys, not missing)

    def _schedule(self, items: dict[str, str]) -> None:
        """Queue texts for the background thread (called with ``_lock`` held)."""
        if self.failed:
            return
        self._pending.update(items)
        if self._worker is None:
            self._worker = threading.Thread(target=self._fill, name="memory-vectors",
                                            daemon=True)
            _WORKERS.add(self._worker)
            self._worker.start()

    def _fill(self) -> None:
        try:
            if not self._answered.is_set():
                self._embed(["warm up"])
            while True:
                with self._lock:
                    if not self._pending or _STOPPING.is_set():
                        if self._pending:  # exiting: keep what is done, the rest comes later
                            self._save()
                        _WORKERS.discard(threading.current_thread())
                        self._worker = None
                        return
                    batch = list(self._pending.items())[:self.BATCH]
                rows = self._embed([text for _, text in batch])
                with self._lock:
                    for (key, _), row in zip(batch, rows, strict=True):
                        self._rows[key] = row
                        self._pending.pop(key, None)
                    if not self._pending:
                        self._save()
        except Exception as exc:  # the turn goes on with keywords; say why once
            log.warning("memory embedder failed in the background (%s); ranking by keywords",
                        type(exc).__name__)
            with self._lock:
                self.failed = True
                self._pending.clear()
                self._worker = None
            _WORKERS.discard(threading.current_thread())
            self._answered.set()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until the background thread has nothing left to embed; False on timeout."""
        with self._lock:
            worker = self._worker
        if worker is not None:
            worker.join(timeout)
            return not worker.is_alive()
        return True
