"""Memory vectors, embedded once per text and embedder and kept in a sidecar file.

The cache lives at ``PAICLI_HOME/memory/vectors/<embedder>.npz``: content hashes and their
L2-normalised rows. A turn only embeds entries it has never seen, so a 10,000-entry store does
not cost 10,000 embeddings per question. It is a cache: losing it costs time, never data.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)


class Embedder(Protocol):
    """What retrieval needs from an embedder (paicli_tui.core.embedders provides the real one)."""

    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised row per text."""
        ...


def content_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class VectorCache:
    """Vectors per content hash for one embedder, loaded lazily and saved atomically."""

    def __init__(self, directory: Path, embedder: Embedder) -> None:
        self.embedder = embedder
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", embedder.name) or "embedder"
        self.path = Path(directory) / f"{slug}.npz"
        self._rows: dict[str, Any] = {}
        self._loaded = False
        self._keys_by_text: dict[str, str] = {}
        self._lock = threading.Lock()
        self._last: tuple[list[str], Any] | None = None
        """The texts and matrix of the previous call: an unchanged store reuses the matrix."""

    def _key(self, text: str) -> str:
        key = self._keys_by_text.get(text)
        if key is None:
            key = self._keys_by_text[text] = content_key(text)
        return key

    def _load(self) -> None:
        import numpy as np

        self._loaded = True
        try:
            with np.load(self.path, allow_pickle=False) as data:
                keys, rows = data["keys"], data["vectors"]
        except FileNotFoundError:
            return
        except Exception as exc:  # a damaged cache is rebuilt, never fatal
            log.warning("ignoring unreadable vector cache %s (%s)", self.path, type(exc).__name__)
            return
        if rows.ndim == 2 and rows.shape[1] == self.embedder.dim:
            self._rows.update(zip((str(k) for k in keys), rows, strict=True))

    def _save(self) -> None:
        import numpy as np

        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f"{self.path.stem}.{os.getpid()}.tmp.npz")
        keys = list(self._rows)
        try:
            np.savez(tmp, keys=np.array(keys, dtype=str),
                     vectors=np.stack([self._rows[k] for k in keys]).astype(np.float32))
            os.replace(tmp, self.path)
        except OSError as exc:
            log.warning("could not write vector cache %s: %s", self.path, exc.strerror or exc)
            tmp.unlink(missing_ok=True)

    def matrix(self, texts: list[str], max_new: int | None = None) -> np.ndarray:
        """Rows for ``texts`` in order, embedding (in one batch) only the ones not cached.

        ``max_new`` caps how many are embedded in this call, newest texts first; the rest get
        zero rows (no vector evidence yet) and are embedded by later calls. A first turn over
        a large store then costs seconds, not minutes, and the cache fills turn by turn.
        """
        import numpy as np

        with self._lock:
            if not self._loaded:
                self._load()
            if self._last is not None and self._last[0] == texts:
                return self._last[1]
            keys = [self._key(t) for t in texts]
            missing = list(dict.fromkeys(k for k in reversed(keys) if k not in self._rows))
            complete = max_new is None or len(missing) <= max_new
            if missing:
                batch = missing if complete else missing[:max_new]
                by_key = {self._key(t): t for t in texts}
                fresh = np.asarray(self.embedder.embed([by_key[k] for k in batch]),
                                   dtype=np.float32)
                self._rows.update(zip(batch, fresh, strict=True))
                self._save()
            if not keys:
                return np.zeros((0, self.embedder.dim), dtype=np.float32)
            zero = np.zeros(self.embedder.dim, dtype=np.float32)
            matrix = np.stack([self._rows.get(k, zero) for k in keys])
            if complete:
                self._last = (list(texts), matrix)
            return matrix
