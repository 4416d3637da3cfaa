"""Snapshots of sub-agent blocks and the plan pane at 80×24 and 60×20 (scenes in
ui_plan_scenes.py; each scene's ``about`` says what a person should see — look at the SVG
before accepting a change)."""

from __future__ import annotations

import pytest
from ui_chat_scenes import SMALL_SIZES
from ui_plan_scenes import plan_scenes
from ui_scenarios import assert_scene_snapshot

from paicli_tui.config import Settings

NAMES = ["subagent_running", "subagent_done", "plan_running", "subagent_history",
         "inspector_subagents", "plan_review", "plan_revise"]


@pytest.mark.parametrize("size", sorted(SMALL_SIZES))
@pytest.mark.parametrize("name", NAMES)
def test_plan_snapshot(name: str, size: str, snap_compare, settings: Settings,
                       tmp_path_factory: pytest.TempPathFactory) -> None:
    project = tmp_path_factory.mktemp("snap") / "project"  # the same name in every picture
    project.mkdir()
    scene = next(s for s in plan_scenes(settings, project) if s.name == name)

    assert_scene_snapshot(scene, SMALL_SIZES[size], snap_compare)


def test_plan_review_snapshot_at_50x16(snap_compare, settings: Settings,
                                       tmp_path_factory: pytest.TempPathFactory) -> None:
    """Below 60 columns the four buttons do not fit on one row (Reject was cut at the
    border): Run and Revise, then Edit and Reject, each whole inside the dialog."""
    project = tmp_path_factory.mktemp("snap") / "project"
    project.mkdir()
    scene = next(s for s in plan_scenes(settings, project) if s.name == "plan_review")

    assert_scene_snapshot(scene, (50, 16), snap_compare)


def test_every_plan_scene_has_a_snapshot(settings: Settings, tmp_path) -> None:
    assert sorted(s.name for s in plan_scenes(settings, tmp_path)) == sorted(NAMES)
