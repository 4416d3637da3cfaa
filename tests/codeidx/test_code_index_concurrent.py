"""Two indexer processes writing one index at the same moment (a local index URI given as
``index_uri``, as a team would point both at one shared location): both finish, every file
is in the index exactly once, no chunk is duplicated or lost."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paicli_tui.config import load_settings
from paicli_tui.core.code.lance_store import index_location, open_index

INDEXER = r"""
import hashlib, sys, time
from pathlib import Path
import numpy as np
from paicli_tui.config import load_settings
from paicli_tui.core.code.indexer import CodeIndexer

class Embedder:
    name, dim = "fake-8", 8
    def embed(self, texts):
        rows = [np.random.default_rng(int.from_bytes(hashlib.sha1(t.encode()).digest()[:4],
                "little")).standard_normal(8) for t in texts]
        time.sleep(0.2)  # slow enough that the two runs overlap
        a = np.asarray(rows, dtype=np.float32).reshape(len(texts), 8)
        return a / np.linalg.norm(a, axis=1, keepdims=True)
    embed_queries = embed

while not Path(sys.argv[2]).exists():
    time.sleep(0.005)
settings = load_settings({}, {"PAICLI_HOME": sys.argv[3]})
summary = CodeIndexer(settings, Path(sys.argv[1]), Embedder()).update()
print(summary.files_indexed, summary.chunks_total, summary.lock)
"""


@pytest.mark.slow
def test_two_indexers_at_once_lose_nothing(tmp_path: Path, paicli_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for i in range(60):
        (project / f"m{i}.py").write_text(f"def f{i}(x):\n    '''Step {i}.'''\n    "
                                          f"return x + {i}\n")
    shared = tmp_path / "shared-index"
    (paicli_home / "config.toml").write_text(f'index_uri = "{shared.as_posix()}"\n')
    go = tmp_path / "go"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAICLI_")}
    runs = [subprocess.Popen([sys.executable, "-c", INDEXER, str(project), str(go),
                              str(paicli_home)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env) for _ in range(2)]
    time.sleep(1.5)
    go.touch()
    outputs = [r.communicate(timeout=300) for r in runs]
    assert all(r.returncode == 0 for r in runs), [o[1][-2000:] for o in outputs]
    indexed = sorted(int(o[0].split()[0]) for o in outputs)
    assert indexed == [0, 60]  # the second waited for the first, then found nothing to do
    settings = load_settings({}, {"PAICLI_HOME": str(paicli_home)})
    tables = open_index(index_location(settings, project))
    rows = tables.chunks.to_arrow().to_pylist()
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)) == 60
    assert {r["path"] for r in rows} == {f"m{i}.py" for i in range(60)}
    assert sorted(int(o[0].split()[1]) for o in outputs) == [60, 60]
