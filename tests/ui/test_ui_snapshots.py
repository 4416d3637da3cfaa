"""One snapshot per screen and dialog (scenes in ui_scenarios.py, 100×30, seeded data).

Update after an intended change with ``pytest tests/ui --snapshot-update`` and look at the
SVGs in tests/ui/__snapshots__ before committing them.
"""

from __future__ import annotations

import pytest
from ui_scenarios import SIZE, reach, scenes

from paicli_tui.config import Settings

NAMES = ["chat_midstream", "no_model", "gauge_zones", "memory_browser", "conflict_dialog",
         "code_search", "context_inspector", "session_picker", "approval_dialog", "help",
         "model_picker", "chat_light"]


@pytest.fixture
def stable_project(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("snap") / "project"
    root.mkdir()
    return root


@pytest.mark.parametrize("name", NAMES)
def test_snapshot(name: str, snap_compare, settings: Settings, stable_project) -> None:
    scene = next(s for s in scenes(settings, stable_project) if s.name == name)
    reached: list[str] = []

    async def before(pilot) -> None:
        await reach(pilot, scene)
        reached.append(type(pilot.app.screen).__name__)

    assert snap_compare(scene.app, terminal_size=SIZE, run_before=before), scene.about
    assert reached == [scene.screen], f"{name}: expected {scene.screen} on top"


def test_every_scene_has_a_snapshot(settings: Settings, stable_project) -> None:
    assert sorted(s.name for s in scenes(settings, stable_project)) == sorted(NAMES)
