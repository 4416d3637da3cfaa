"""Fixtures of the UI tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def stable_project(tmp_path_factory: pytest.TempPathFactory):
    """A project folder named ``project`` (snapshots show the folder's name)."""
    root = tmp_path_factory.mktemp("snap") / "project"
    root.mkdir()
    return root
