"""Snapshots of the chat side at 80×24 and 60×20 (scenes in ui_chat_scenes.py; each scene's
``about`` says what a person should see — look at the SVG before accepting a change)."""

from __future__ import annotations

import pytest
from ui_chat_scenes import SMALL_SIZES, chat_scenes
from ui_scenarios import assert_scene_snapshot

from paicli_tui.config import Settings

NAMES = ["chat_waiting", "chat_slash_menu", "chat_done", "help_small", "approval_small",
         "accept_edits_small", "diff_small", "mcp_servers_small", "chat_indexing"]


@pytest.mark.parametrize("size", sorted(SMALL_SIZES))
@pytest.mark.parametrize("name", NAMES)
def test_chat_snapshot(name: str, size: str, snap_compare, settings: Settings,
                       stable_project) -> None:
    scene = next(s for s in chat_scenes(settings, stable_project) if s.name == name)
    assert_scene_snapshot(scene, SMALL_SIZES[size], snap_compare)


def test_every_chat_scene_has_a_snapshot(settings: Settings, stable_project) -> None:
    assert sorted(s.name for s in chat_scenes(settings, stable_project)) == sorted(NAMES)
