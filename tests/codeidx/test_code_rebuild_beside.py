"""A rebuild fills new tables beside the index in use and switches to them in one commit when
complete: a rebuild stopped anywhere (embedder error, parse error, a full disk, Ctrl+C, kill
-9) leaves searches answering from the old index, and the next run continues it or removes
what it left, saying so. Before, the old tables were emptied first, so search found nothing
until a full rebuild completed."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from doubles.embedders import HashEmbedder

import paicli_tui.core.code.indexer as indexer_module
import paicli_tui.core.embedders as embedders
from paicli_tui import cli
from paicli_tui.core.code.indexer import REPLACED_KEPT_S, CodeIndexer
from paicli_tui.core.code.lance_store import index_location, leftovers, open_index
from paicli_tui.core.code.search import search_project
from paicli_tui.core.contracts.embedder import EmbedderError

FILES = 30
QUERY = "marmalade"


def _write_project(root: Path) -> None:
    root.mkdir(exist_ok=True)
    for i in range(FILES):
        word = "marmalade" if i == 7 else f"word{i}"
        (root / f"m{i}.py").write_text(
            f"def step{i}(x):\n    '''Handles the {word} case {i}.'''\n    return x + {i}\n")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    _write_project(root)
    return root


def _found(settings, project: Path, embedder=None) -> list[tuple[str, int]]:
    mode = "text" if embedder is None else "hybrid"
    hits = search_project(settings, project, QUERY, mode=mode, embedder=embedder).hits
    return [(h.path, h.start_line) for h in hits]


class FailingEmbedder(HashEmbedder):
    """Raises ``error`` on its ``fail_at``-th call."""

    def __init__(self, fail_at: int, error: BaseException) -> None:
        super().__init__()
        self.fail_at, self.error = fail_at, error

    def embed(self, texts):
        if self.calls + 1 == self.fail_at:
            self.calls += 1
            raise self.error
        return super().embed(texts)


def _chunk_file_failing_at(number: int):
    real = indexer_module.chunk_file
    seen = []

    def chunk_file(path, text):
        seen.append(path)
        if len(seen) == number:
            raise RuntimeError("parser crashed")
        return real(path, text)

    return chunk_file


def _replace_rows_failing_at(number: int):
    real = indexer_module._replace_rows
    calls = []

    def replace_rows(table, key, rows, where):
        calls.append(key)
        if len(calls) == number:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(table, key, rows, where)

    return replace_rows


STOPS = [
    ("embedder error", EmbedderError, lambda m: FailingEmbedder(3, EmbedderError("down")), None),
    ("ctrl+c in the embedder", KeyboardInterrupt,
     lambda m: FailingEmbedder(3, KeyboardInterrupt()), None),
    ("parser crash in the chunk loop", RuntimeError, lambda m: HashEmbedder(),
     ("chunk_file", _chunk_file_failing_at(12))),
    ("disk full while writing chunks", OSError, lambda m: HashEmbedder(),
     ("_replace_rows", _replace_rows_failing_at(5))),
]


@pytest.mark.parametrize(("stop", "raised", "make_embedder", "patch"), STOPS,
                         ids=[s[0] for s in STOPS])
def test_a_stopped_rebuild_leaves_search_on_the_old_index(
        settings, project: Path, monkeypatch: pytest.MonkeyPatch, stop, raised,
        make_embedder, patch) -> None:
    embedder = HashEmbedder()
    CodeIndexer(settings, project, embedder, batch_chunks=4).update()
    before_text, before_hybrid = _found(settings, project), _found(settings, project, embedder)
    assert before_text[0] == ("m7.py", 1)
    if patch:
        monkeypatch.setattr(indexer_module, *patch)
    stopped = CodeIndexer(settings, project, make_embedder(monkeypatch), batch_chunks=4)
    with pytest.raises(raised):
        stopped.update(rebuild=True)
    assert stopped.staging  # the caller can say the index in use is intact
    monkeypatch.undo()
    assert _found(settings, project) == before_text
    assert _found(settings, project, embedder) == before_hybrid
    assert open_index(index_location(settings, project)).chunks.count_rows() == FILES


SWITCHED = 1_900_000_000.0
"""When the rebuild below is switched to (its indexer's clock)."""


def test_the_next_rebuild_continues_a_stopped_one_and_the_run_after_removes_the_old(
        settings, project: Path) -> None:
    CodeIndexer(settings, project, HashEmbedder(), batch_chunks=4).update()
    with pytest.raises(EmbedderError):
        CodeIndexer(settings, project, FailingEmbedder(4, EmbedderError("down")),
                    batch_chunks=4).update(rebuild=True)
    again = HashEmbedder()
    rebuilder = CodeIndexer(settings, project, again, batch_chunks=4)
    rebuilder.clock = lambda: SWITCHED
    summary = rebuilder.update(rebuild=True)
    assert summary.rebuild_continued > 0  # the files the stopped run wrote
    assert summary.chunks_embedded == FILES - summary.rebuild_continued
    assert summary.built_beside and summary.leftovers_removed == []
    assert "Continued the rebuild stopped earlier" in " ".join(summary.rebuild_lines())
    assert _found(settings, project)[0] == ("m7.py", 1)
    # a run right after the switch (one that waited on the lock) keeps the replaced tables:
    # a search opened a moment before the switch may still be reading them
    soon = CodeIndexer(settings, project, again)
    soon.clock = lambda: SWITCHED + REPLACED_KEPT_S - 5
    kept = soon.update()
    assert kept.leftovers_removed == []
    assert kept.rebuild_lines() == [
        "Note: the index a rebuild replaced 55 s ago is kept (a search opened before the "
        "switch may still be reading it); a later index run removes it."]
    assert len(leftovers(open_index(index_location(settings, project)))) == 1
    later = CodeIndexer(settings, project, again)
    later.clock = lambda: SWITCHED + REPLACED_KEPT_S + 1
    after = later.update()
    assert [r["what"] for r in after.leftovers_removed] == ["replaced index"]
    assert after.rebuild_lines()[0].startswith("Removed the tables of the index a rebuild "
                                               "replaced (")
    assert leftovers(open_index(index_location(settings, project))) == []
    assert _found(settings, project, again)[0] == ("m7.py", 1)


def test_a_plain_run_removes_a_stopped_rebuild(settings, project: Path) -> None:
    embedder = HashEmbedder()
    CodeIndexer(settings, project, embedder, batch_chunks=4).update()
    with pytest.raises(EmbedderError):
        CodeIndexer(settings, project, FailingEmbedder(4, EmbedderError("down")),
                    batch_chunks=4).update(rebuild=True)
    summary = CodeIndexer(settings, project, embedder).update()
    assert [r["what"] for r in summary.leftovers_removed] == ["unfinished rebuild"]
    assert summary.rebuild_lines()[0].startswith("Removed the tables of a stopped rebuild (")
    assert summary.files_indexed == 0  # the index in use was complete all along


def test_ctrl_c_in_index_rebuild_says_the_index_is_intact(
        project: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    fake = HashEmbedder()
    monkeypatch.setattr(embedders, "get_embedder", lambda settings: fake)
    assert cli.main(["index", "--quiet", "--project", str(project)]) == 0
    capsys.readouterr()
    stopping = FailingEmbedder(1, KeyboardInterrupt())
    monkeypatch.setattr(embedders, "get_embedder", lambda settings: stopping)
    assert cli.main(["index", "--rebuild", "--json", "--project", str(project)]) == 130
    error = json.loads(capsys.readouterr().out)["message"]
    assert error.startswith("interrupted (Ctrl+C); the index in use is unchanged")
    assert "the same command continues the rebuild" in error
    monkeypatch.setattr(embedders, "get_embedder", lambda settings: fake)
    assert cli.main(["search", "--mode", "text", "--json", "--project", str(project),
                     QUERY]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["path"] == "m7.py"
    assert cli.main(["index", "--rebuild", "--quiet", "--project", str(project)]) == 0
    out = capsys.readouterr().out
    assert "Continued the rebuild stopped earlier" in out
    assert "Built beside the index in use and switched to it when complete" in out


REBUILDER = r"""
import hashlib, sys, time
from pathlib import Path
import numpy as np
from paicli_tui.config import load_settings
from paicli_tui.core.code.indexer import CodeIndexer

class Embedder:
    name, dim = "fake-8", 8
    def embed(self, texts):
        time.sleep(float(sys.argv[4]))  # slow enough to be searched (or killed) midway
        rows = [np.random.default_rng(int.from_bytes(hashlib.sha1(t.encode()).digest()[:4],
                "little")).standard_normal(8) for t in texts]
        a = np.asarray(rows, dtype=np.float32).reshape(len(texts), 8)
        return a / np.linalg.norm(a, axis=1, keepdims=True)
    embed_queries = embed

def progress(event):
    if event.phase == "embed" and event.done >= 8:
        Path(sys.argv[2]).touch()  # some batches of the new tables are written

settings = load_settings({}, {"PAICLI_HOME": sys.argv[3]})
summary = CodeIndexer(settings, Path(sys.argv[1]), Embedder(), batch_chunks=4).update(
    progress, rebuild=True)
print(summary.built_beside, summary.chunks_total)
"""


def _rebuilder(project: Path, marker: Path, home: Path, delay: float) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAICLI_")}
    return subprocess.Popen([sys.executable, "-c", REBUILDER, str(project), str(marker),
                             str(home), str(delay)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def _rebuilding_midway(settings, project: Path, home: Path, tmp_path: Path, delay: float
                       ) -> tuple[HashEmbedder, list[tuple[str, int]], subprocess.Popen]:
    """An index built here, its search results, and a rebuild in another process that has
    written some batches of its new tables."""
    embedder = HashEmbedder()
    CodeIndexer(settings, project, embedder).update()
    expected = _found(settings, project, embedder)
    marker = tmp_path / "midway"
    process = _rebuilder(project, marker, home, delay)
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert process.poll() is None, process.communicate()[1][-2000:]
        assert time.monotonic() < deadline, "the rebuild never got midway"
        time.sleep(0.02)
    return embedder, expected, process


@pytest.mark.slow
def test_another_process_searches_while_one_rebuilds(settings, project: Path,
                                                     paicli_home: Path, tmp_path: Path) -> None:
    embedder, expected, rebuild = _rebuilding_midway(settings, project, paicli_home,
                                                     tmp_path, 0.1)
    during = 0
    while rebuild.poll() is None:  # up to the switch and after it: always a full answer
        assert _found(settings, project, embedder) == expected
        assert _found(settings, project)[0] == ("m7.py", 1)
        during += 1
    out, err = rebuild.communicate()
    assert rebuild.returncode == 0, err[-2000:]
    assert out.split() == ["True", str(FILES)]
    assert during > 0
    assert _found(settings, project, embedder) == expected  # now from the rebuilt tables
    assert open_index(index_location(settings, project)).generation != ""


@pytest.mark.slow
def test_a_rebuild_killed_midway_leaves_search_working_and_the_next_one_finishes(
        settings, project: Path, paicli_home: Path, tmp_path: Path) -> None:
    embedder, expected, rebuild = _rebuilding_midway(settings, project, paicli_home,
                                                     tmp_path, 0.3)
    rebuild.send_signal(signal.SIGKILL)
    rebuild.communicate()
    assert _found(settings, project, embedder) == expected
    stopped = leftovers(open_index(index_location(settings, project)))
    assert [s.unfinished for s in stopped] == [True]
    summary = CodeIndexer(settings, project, embedder, batch_chunks=4).update(rebuild=True)
    assert summary.rebuild_continued > 0 and summary.built_beside
    assert summary.chunks_total == FILES
    assert _found(settings, project, embedder) == expected
