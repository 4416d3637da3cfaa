"""The built USE tokenizer is cached under PAICLI_HOME/cache; a bad cache is rebuilt."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from paicli_tui.core.embedders.use import TOKENIZER_PROBE, UseEmbedder, load_tokenizer


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
