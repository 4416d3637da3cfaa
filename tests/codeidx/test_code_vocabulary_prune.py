"""The project-words cache (PAICLI_HOME/cache/code_vocabulary, 5-17 MB a project) no longer
grows without end: an index run removes the caches of indexes that are gone and the oldest
beyond the limits, says so, and a process reading a cache meanwhile is not disturbed."""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from doubles.embedders import HashEmbedder

import paicli_tui.core.embedders as embedders
from paicli_tui import cli
from paicli_tui.config import load_settings
from paicli_tui.core.code import vocabulary as vocab
from paicli_tui.core.code.vocabulary_prune import cache_folder, prune_vocabulary_caches

NOW = 2_000_000_000.0


def _vocabulary(words: int = 3) -> vocab.Vocabulary:
    candidates = tuple(f"word{i}" for i in range(words))
    return vocab.Vocabulary("7", 100, dict.fromkeys(candidates, 1), candidates,
                            np.ones((words, 4), dtype=np.float32))


def _cache(home, name: str, location: str | None, age_s: float, words: int = 3) -> Path:
    path = cache_folder(home) / name
    if location is None:  # a file an earlier version wrote: no location in it
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, format=np.asarray("1"))
    else:
        vocab.write_cache(path, _vocabulary(words), location)
    os.utime(path, (NOW - age_s, NOW - age_s))
    return path


def test_caches_removed_and_kept(settings, tmp_path) -> None:
    home = settings.home
    alive = tmp_path / "alive" / ".paicli" / "index"
    alive.mkdir(parents=True)
    _cache(home, "gone.npz", str(tmp_path / "deleted" / ".paicli" / "index"), 10)
    _cache(home, "gone-file-uri.npz", f"file://{tmp_path}/moved/.paicli/index", 20)
    _cache(home, "alive.npz", str(alive), 30)
    _cache(home, "remote.npz", "s3://bucket/team/index", 40)
    _cache(home, "older-format.npz", None, 50)
    _cache(home, "oldest.npz", str(alive), 60)
    own = _cache(home, "own.npz", str(tmp_path / "also-deleted"), 999)  # the run's own
    folder = cache_folder(home)
    (folder / "a.npz.123.tmp").write_bytes(b"x" * 10)
    os.utime(folder / "a.npz.123.tmp", (NOW - 7200, NOW - 7200))
    (folder / "b.npz.456.tmp").write_bytes(b"x")  # a write in progress
    os.utime(folder / "b.npz.456.tmp", (NOW - 60, NOW - 60))

    removed = prune_vocabulary_caches(home, keep=own, max_files=4, now=NOW)

    reasons = {r.name: r.reason for r in removed}
    assert reasons == {
        "gone.npz": f"its index is gone ({tmp_path}/deleted/.paicli/index)",
        "gone-file-uri.npz": f"its index is gone (file://{tmp_path}/moved/.paicli/index)",
        "a.npz.123.tmp": "an unfinished write",
        "oldest.npz": "over the cache's limit (4 files, 200 MB)",
    }
    assert sorted(p.name for p in folder.iterdir()) == [
        "alive.npz", "b.npz.456.tmp", "older-format.npz", "own.npz", "remote.npz"]
    assert {r.name: r.size for r in removed}["a.npz.123.tmp"] == 10


def test_the_byte_limit_keeps_the_newest_that_fit(settings, tmp_path) -> None:
    home = settings.home
    alive = tmp_path / "alive"
    alive.mkdir()
    sizes = {name: _cache(home, f"{name}.npz", str(alive), age, words).stat().st_size
             for name, age, words in [("new", 1, 2000), ("mid", 2, 2000), ("old", 3, 10)]}
    limit = sizes["new"] + sizes["old"] + 1  # "mid" does not fit beside "new"; "old" does
    removed = prune_vocabulary_caches(home, max_bytes=limit, now=NOW)
    assert [r.name for r in removed] == ["mid.npz"]
    assert removed[0].reason == "over the cache's limit (16 files, 0 MB)"


def _read_while_removed(path: str, started: Any, results: Any) -> None:
    started.set()
    whole = gone = 0
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        back = vocab.read_cache(Path(path))
        if back is None:
            gone += 1
        else:
            assert back.candidates == tuple(f"word{i}" for i in range(2000))
            assert back.vectors.shape == (2000, 4)
            whole += 1
    results.put((whole, gone))


def test_a_cache_removed_while_another_process_reads_it(settings, tmp_path) -> None:
    # A reader loops over the cache file while this process removes it (its index is gone)
    # and puts it back, over and over: every read is the whole vocabulary or none at all.
    home = settings.home
    location = str(tmp_path / "deleted")
    path = _cache(home, "shared.npz", location, 0, words=2000)
    ctx = multiprocessing.get_context("spawn")
    started, results = ctx.Event(), ctx.Queue()
    reader = ctx.Process(target=_read_while_removed, args=(str(path), started, results))
    reader.start()
    try:
        assert started.wait(60)
        removals = 0
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            removals += len(prune_vocabulary_caches(home))
            vocab.write_cache(path, _vocabulary(2000), location)
        whole, gone = results.get(timeout=60)
    finally:
        reader.join(60)
    assert reader.exitcode == 0 and removals > 0 and whole > 0


def test_the_index_command_says_what_it_removed(tmp_path, monkeypatch, capsys) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "m.py").write_text('def add(a, b):\n    """Add."""\n    return a + b\n')
    monkeypatch.setattr(embedders, "get_embedder", lambda settings: HashEmbedder())
    monkeypatch.chdir(root)
    settings = load_settings({}, {"PAICLI_HOME": os.environ["PAICLI_HOME"]})
    stale = _cache(settings.home, "deleted-project.npz", str(tmp_path / "deleted"), 10,
                   words=2000)
    size_mb = stale.stat().st_size / 1e6
    assert cli.main(["index"]) == 0
    out = capsys.readouterr().out
    assert (f"Removed 1 cached search file ({size_mb:.1f} MB): 1 of indexes that no "
            "longer exist, 0 over the cache's limits or left unfinished.") in out
    assert not stale.exists()
    assert len(list(cache_folder(settings.home).glob("*.npz"))) == 1  # this project's own
    assert cli.main(["index"]) == 0
    assert "Removed" not in capsys.readouterr().out


@pytest.mark.parametrize("written", ["with location", "older format"])
def test_a_cache_names_its_index(settings, tmp_path, written) -> None:
    from paicli_tui.core.code.vocabulary_prune import cached_location

    location = str(tmp_path / "idx")
    path = _cache(settings.home, "x.npz", location if written == "with location" else None, 0)
    assert cached_location(path) == (location if written == "with location" else None)
    if written == "with location":
        assert vocab.read_cache(path) is not None  # the new field changes nothing for readers
