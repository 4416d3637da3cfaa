"""Fixtures of the UI tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def stable_project(tmp_path_factory: pytest.TempPathFactory):
    """A project folder named ``project`` (snapshots show the folder's name)."""
    root = tmp_path_factory.mktemp("snap") / "project"
    root.mkdir()
    return root


@pytest.fixture(autouse=True)
def dialogs_answer_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pilot presses a dialog's key as someone who has read it; the wait for a quiet
    keyboard before a dialog of the agent's answers (modals/quiet_start.py) has its own
    tests, which set it back."""
    from paicli_tui.ui.modals.quiet_start import QuietStart

    monkeypatch.setattr(QuietStart, "ARM_AFTER_S", 0.0)
