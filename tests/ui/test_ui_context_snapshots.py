"""Snapshots of the context engine's states in the chat at 80×24 and 60×20 (scenes in
ui_context_scenes.py; each scene's ``about`` says what a person should see — look at the
SVG before accepting a change)."""

from __future__ import annotations

import pytest
from ui_chat_scenes import SMALL_SIZES
from ui_context_scenes import context_scenes
from ui_scenarios import reach

from paicli_tui.config import Settings

NAMES = ["ctx_summary_ahead", "ctx_compacting", "ctx_summary_failed", "ctx_digest",
         "ctx_ask_dialog", "ctx_postponed"]


@pytest.fixture
def stable_project(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("snap") / "project"
    root.mkdir()
    return root


@pytest.mark.parametrize("size", sorted(SMALL_SIZES))
@pytest.mark.parametrize("name", NAMES)
def test_context_snapshot(name: str, size: str, snap_compare, settings: Settings,
                          stable_project) -> None:
    scene = next(s for s in context_scenes(settings, stable_project) if s.name == name)
    reached: list[str] = []

    async def before(pilot) -> None:
        await reach(pilot, scene)
        reached.append(type(pilot.app.screen).__name__)

    assert snap_compare(scene.app, terminal_size=SMALL_SIZES[size], run_before=before), \
        scene.about
    assert reached == [scene.screen], f"{name}: expected {scene.screen} on top"


def test_every_context_scene_has_a_snapshot(settings: Settings, stable_project) -> None:
    assert sorted(s.name for s in context_scenes(settings, stable_project)) == sorted(NAMES)
