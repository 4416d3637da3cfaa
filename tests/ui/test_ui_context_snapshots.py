"""Snapshots of the context engine's states in the chat at 80×24 and 60×20 (scenes in
ui_context_scenes.py; each scene's ``about`` says what a person should see — look at the
SVG before accepting a change)."""

from __future__ import annotations

import pytest
from ui_chat_scenes import SMALL_SIZES
from ui_context_scenes import context_scenes
from ui_scenarios import assert_scene_snapshot

from paicli_tui.config import Settings

NAMES = ["ctx_summary_ahead", "ctx_compacting", "ctx_summary_failed", "ctx_digest",
         "ctx_ask_dialog", "ctx_postponed"]


@pytest.mark.parametrize("size", sorted(SMALL_SIZES))
@pytest.mark.parametrize("name", NAMES)
def test_context_snapshot(name: str, size: str, snap_compare, settings: Settings,
                          stable_project) -> None:
    scene = next(s for s in context_scenes(settings, stable_project) if s.name == name)
    assert_scene_snapshot(scene, SMALL_SIZES[size], snap_compare)


def test_every_context_scene_has_a_snapshot(settings: Settings, stable_project) -> None:
    assert sorted(s.name for s in context_scenes(settings, stable_project)) == sorted(NAMES)
