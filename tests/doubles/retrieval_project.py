"""The retrieval fixture project as the current folder, for tests of ``index`` and ``search``:
a copy under the test's own folder, embedded with the hash embedder (no model download)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import paicli_tui.core.embedders as embedders
from doubles.embedders import HashEmbedder

FIXTURE = Path(__file__).parents[1] / "codeidx" / "fixtures" / "retrieval"


def retrieval_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the fixture at ``tmp_path/project``, made the current folder."""
    root = tmp_path / "project"
    shutil.copytree(FIXTURE, root)
    fake = HashEmbedder()
    monkeypatch.setattr(embedders, "get_embedder", lambda settings: fake)
    monkeypatch.chdir(root)
    return root
