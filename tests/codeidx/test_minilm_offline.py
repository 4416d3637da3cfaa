"""The English/code embedder (all-MiniLM-L6-v2 int8) runs from the installed packages alone:
the pinned model file, sensible vectors, and `paicli-tui index` + `search` with
``use+minilm`` in a process whose sockets refuse every connection (no network at all)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from paicli_tui.core.embedders.minilm import (
    MODEL_SHA256,
    MiniLmEmbedder,
    model_path,
    tokenizer_path,
)

FIXTURE = Path(__file__).parent / "fixtures" / "retrieval"

NO_NETWORK = """
import socket, sys
def refuse(*args, **kwargs):
    raise OSError("network disabled in this test")
socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
sys.argv = ["paicli-tui", *sys.argv[1:]]
from paicli_tui.cli import main
sys.exit(main())
"""


def test_the_model_file_is_the_pinned_one() -> None:
    assert hashlib.sha256(model_path().read_bytes()).hexdigest() == MODEL_SHA256
    assert tokenizer_path().is_file()


def test_vectors_are_unit_length_and_put_paraphrases_close() -> None:
    emb = MiniLmEmbedder(threads=1)
    vectors = emb.embed(["wait twice as long after every failed attempt",
                         "exponential backoff between retries",
                         "a recipe for chocolate cake", ""])
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2
    assert np.allclose(emb.embed_queries(["exponential backoff between retries"])[0],
                       vectors[1], atol=1e-5)
    assert emb.embed([]).shape == (0, 384)


def _cli(args: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAICLI_")}
    env.update(PAICLI_HOME=str(home), PAICLI_EMBEDDER="use+minilm", HF_HUB_OFFLINE="1")
    return subprocess.run([sys.executable, "-c", NO_NETWORK, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_app_indexes_and_searches_offline_with_both_embedders(tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(FIXTURE, root)
    home = tmp_path / "home"
    done = _cli(["index", "--json"], root, home)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["embedder"] == "use-m3+minilm-l6-int8"
    found = _cli(["search", "--json", "--explain", "--top-k", "5",
                  "keep calling a flaky function and wait longer after every failure"],
                 root, home)
    assert found.returncode == 0, found.stderr[-2000:]
    result = json.loads(found.stdout)
    assert result["plan"]["rankers"] == ["text", "semantic", "minilm"]
    assert any(r["path"] == "net/retry.py" for r in result["results"])
    assert all(set(r["ranks"]) == {"text", "semantic", "minilm"} for r in result["results"])
