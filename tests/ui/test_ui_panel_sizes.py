"""The panels and their dialogs at 80×24 (right) and 60×20 (usable), plus a panel docked
beside a running turn at 140×40. Same seeded scenes as test_ui_snapshots.py.

What a person should see, per scene and size (each picture was looked at before accepting):

- memory_browser 80×24: filter box and scope selector on one line; the three memories with
  scope, the text (cut with …), verified date, the `⚠` / `?` marks and the source — no
  "written" column below 100 columns so the text keeps its room; the status line saying 1
  awaiting review and 1 possibly stale; key hints in the footer, on two lines (all of them).
- memory_browser 60×20: the same rows with a shorter text column; marks still visible; under
  a line, the highlighted memory whole ("The project uses Java 17 and Gradle 8.", cut in its
  cell); the footer's hints without padding on two lines, Delete, Accept, Reject and Filter
  on the second.
- code_search 80×24: the query box focused, two results (location cut from the left so the
  file name and line stay, name, score) in 55% of the width, the Java preview with line
  numbers in the rest, the index line at the bottom.
- code_search 60×20: the preview under the results, both full width: the location keeps
  its file name and line (`…a/app/ConfigLoader.java:12`), the preview its whole lines; the
  index line.
- context_inspector 80×24 and 60×20: tokens by category ending in one total (the estimate),
  the window and both triggers with what is left; the compaction history beside it with
  short cells, every column readable: tier, `61k→44k`, the time of day (`10:02`), then the
  detail as far as it fits, and under the table the highlighted row's whole detail
  ("clearing 61k→44k: 3 tool results cleared", wrapped). At 60 the categories lose their share column to make room, and
  the left column (categories, thresholds, memories) shows a one-cell scroll bar: what does
  not fit is reached by scrolling it (the thresholds are below the fold there; a trigger's
  "(53k left)" goes on its own indented line, never cut in two).
- session_picker 80×24 and 60×20: the filter box and three sessions, newest first; under
  them "↑↓ choose · Enter reopens · Esc cancels".
- conflict_dialog 80×24 and 60×20: the new fact and the existing one, Replace / Keep both /
  Cancel reachable.
- model_picker 80×24 and 60×20: title, the current model, the providers list (scrolling
  when it does not fit) and the model-name box with its whole border under it (at 80×24 the
  box's bottom border was cut off).
- docked_memory 140×40: the chat streaming on the left (question, tool blocks, partial
  answer), the input and the context gauge below it; the memory browser docked in the right
  half with its three memories and, above its status line, the highlighted one whole (cut in
  its cell); the footer under the chat with the panel's and the chat's
  keys on three lines (none hidden under the dock) and the palette key.
"""

from __future__ import annotations

import pytest
from ui_scenarios import assert_scene_snapshot, reach, scenes, settle

from paicli_tui.config import Settings

PANELS = ["memory_browser", "code_search", "context_inspector", "session_picker",
          "conflict_dialog", "model_picker"]
SIZES = [(80, 24), (60, 20)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", PANELS)
def test_panel_at_small_sizes(name: str, size: tuple[int, int], snap_compare,
                              settings: Settings, stable_project) -> None:
    scene = next(s for s in scenes(settings, stable_project) if s.name == name)
    assert_scene_snapshot(scene, size, snap_compare)


def test_memory_docked_beside_a_running_turn(snap_compare, settings: Settings,
                                             stable_project) -> None:
    scene = next(s for s in scenes(settings, stable_project) if s.name == "chat_midstream")

    async def before(pilot) -> None:
        await reach(pilot, scene)
        await pilot.press("f2")
        await settle(pilot, 6)
        assert pilot.app.screen.docked_panel() is not None

    assert snap_compare(scene.app, terminal_size=(140, 40), run_before=before)


@pytest.mark.parametrize(("size", "stacked", "location"), [
    ((60, 20), True, 27),  # side by side it was 12 cells: "…der.java:12"
    ((71, 24), True, 34),
    ((72, 24), False, 15),
    ((80, 24), False, 18),
])
async def test_a_narrow_code_search_shows_the_preview_under_the_results(
        settings: Settings, stable_project, size, stacked, location) -> None:
    scene = next(s for s in scenes(settings, stable_project) if s.name == "code_search")
    async with scene.app.run_test(size=size) as pilot:
        await reach(pilot, scene)
        screen = pilot.app.screen
        results = screen.query_one("#code-results").region
        preview = screen.query_one("#code-preview-box").region
        if stacked:
            assert preview.y >= results.bottom and preview.width == results.width
        else:
            assert preview.x >= results.right and preview.y == results.y
        table = screen.query_one("#code-results")
        assert next(iter(table.columns.values())).width == location


async def test_inspector_left_column_scrolls_to_its_last_line_at_60x20(
        settings: Settings, stable_project) -> None:
    """At 60x20 the thresholds and memories do not fit under the categories: the column can
    be scrolled from the keyboard (Tab reaches it, End goes to its last line)."""
    scene = next(s for s in scenes(settings, stable_project) if s.name == "context_inspector")
    async with scene.app.run_test(size=(60, 20)) as pilot:
        await reach(pilot, scene)
        left = pilot.app.screen.query_one(".inspector-left")
        await settle(pilot)
        assert left.max_scroll_y > 0  # something is below the fold
        left.focus()
        await pilot.press("end")
        await settle(pilot)
        assert left.scroll_y == left.max_scroll_y


@pytest.mark.parametrize(("size", "shown"), [
    ((100, 30), [None, None]),  # the detail column is whole: no line under the table
    ((130, 30), [None, None]),
])
async def test_inspector_shows_the_highlighted_compactions_whole_detail_when_cut(
        settings: Settings, stable_project, size, shown) -> None:
    """Where the history has a detail column, a detail it cuts is shown whole under the
    table for the highlighted row; these short ones fit, so no line shows."""
    scene = next(s for s in scenes(settings, stable_project) if s.name == "context_inspector")
    async with scene.app.run_test(size=size) as pilot:
        await reach(pilot, scene)
        screen = pilot.app.screen
        line = screen.query_one("#history-detail")
        seen = []
        for key in (None, "down"):
            if key:
                screen.query_one("#history").focus()
                await pilot.press(key)
                await settle(pilot)
            seen.append(str(line.render()) if line.display else None)
        assert seen == shown


@pytest.mark.parametrize("size", [(80, 24), (60, 20), (99, 30)])
async def test_inspector_stacks_the_compaction_history_when_narrow(
        settings: Settings, stable_project, size) -> None:
    """At 80 columns the history's detail column got 4 cells ('3 to'; the whole detail only
    for the highlighted row, under the table). Below 100 columns each compaction now takes
    the table's width on its own lines: 'clearing 61k→44k', then '10:02 · 3 tool results
    cleared', wrapped when narrower; nothing is cut sideways and no line repeats it under."""
    scene = next(s for s in scenes(settings, stable_project) if s.name == "context_inspector")
    async with scene.app.run_test(size=size) as pilot:
        await reach(pilot, scene)
        screen = pilot.app.screen
        table = screen.query_one("#history")
        assert [str(c.label) for c in table.ordered_columns] == ["compaction"]
        assert [str(table.get_row_at(i)[0]) for i in range(table.row_count)] == [
            "clearing 61k→44k\n10:02 · 3 tool results cleared",
            "summary 96k→12k\n10:40 · kept 3 user turns"]
        assert table.max_scroll_x == 0, "nothing is cut at the right"
        assert all(row.height >= 2 for row in table.ordered_rows)
        assert not screen.query_one("#history-detail").display


async def test_inspector_says_whole_that_nothing_was_compacted_yet_at_80x24(
        settings: Settings, stable_project) -> None:
    """A session with no compaction: the history's one row was cut to 'no c' at 80
    columns; it now reads 'no compaction in this session yet' whole."""
    scene = next(s for s in scenes(settings, stable_project) if s.name == "context_inspector")
    scene.app.backend.history_events = []
    async with scene.app.run_test(size=(80, 24)) as pilot:
        await reach(pilot, scene)
        table = pilot.app.screen.query_one("#history")
        assert [str(table.get_row_at(i)[0]) for i in range(table.row_count)] == [
            "no compaction in this session yet"]
        assert table.max_scroll_x == 0


@pytest.mark.parametrize(("fact", "note", "cells", "lines"), [
    ("clearing trigger 57,000", "53k left", 43, ["clearing trigger 57,000 (53k left)"]),
    ("clearing trigger 57,000", "53k left", 31, ["clearing trigger 57,000", "  (53k left)"]),
    ("window 128,000", "48% used", 31, ["window 128,000 (48% used)"]),
    ("compaction trigger 950,000", "reached", 36, ["compaction trigger 950,000 (reached)"]),
    ("compaction trigger 950,000", "reached", 35,
     ["compaction trigger 950,000", "  (reached)"]),
])
def test_a_threshold_keeps_its_note_whole(fact, note, cells, lines) -> None:
    from paicli_tui.ui.screens.context_inspector import threshold_lines

    assert threshold_lines(fact, note, cells) == lines


@pytest.mark.parametrize(("size", "shown"), [
    ((60, 20), ["window 128,000 (48% used)", "clearing trigger 57,000", "  (reached)",
                "compaction trigger 95,000", "  (33k left)"]),
    ((80, 24), ["window 128,000 (48% used)", "clearing trigger 57,000 (reached)",
                "compaction trigger 95,000 (33k left)"]),
])
async def test_the_inspector_threshold_lines_are_not_cut(settings: Settings, stable_project,
                                                         size, shown) -> None:
    """At 60x20 the left column wrapped "clearing trigger 57,000 (53k left)" into
    "clearing trigger 57,000 (53k" and "left)"; each row the column shows is now whole."""
    scene = next(s for s in scenes(settings, stable_project) if s.name == "context_inspector")
    async with scene.app.run_test(size=size) as pilot:
        await reach(pilot, scene)
        await settle(pilot)
        thresholds = pilot.app.screen.query_one("#thresholds")
        rows = [thresholds.render_line(y).text.rstrip() for y in range(len(shown))]
        assert rows == shown
