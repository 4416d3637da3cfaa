"""Fixtures shared by the search-quality tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from doubles.retrieval_project import retrieval_project

from paicli_tui import cli


@pytest.fixture
def indexed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The retrieval fixture as the current folder, indexed."""
    root = retrieval_project(tmp_path, monkeypatch)
    assert cli.main(["index", "--quiet"]) == 0
    return root
