"""One snapshot per screen and dialog (scenes in ui_scenarios.py, 100×30, seeded data).

Update after an intended change with ``pytest tests/ui --snapshot-update`` and look at the
SVGs in tests/ui/__snapshots__ before committing them.
"""

from __future__ import annotations

import pytest
from ui_scenarios import SIZE, assert_scene_snapshot, scenes

from paicli_tui.config import Settings

NAMES = ["chat_midstream", "no_model", "gauge_zones", "memory_browser", "conflict_dialog",
         "code_search", "context_inspector", "session_picker", "approval_dialog", "help",
         "model_picker", "chat_light"]


@pytest.mark.parametrize("name", NAMES)
def test_snapshot(name: str, snap_compare, settings: Settings, stable_project) -> None:
    scene = next(s for s in scenes(settings, stable_project) if s.name == name)
    assert_scene_snapshot(scene, SIZE, snap_compare)


def test_every_scene_has_a_snapshot(settings: Settings, stable_project) -> None:
    assert sorted(s.name for s in scenes(settings, stable_project)) == sorted(NAMES)
