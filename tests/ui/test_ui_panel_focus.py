"""Typing in the panels: what a person types always lands in the box they are typing in.

Code search keeps the focus in the query box after a search; a printable key typed on the
results goes back to the query (no letter is a shortcut there), ↓ walks into the results and
only Enter on a result or Ctrl+O inserts a reference. The memory filter hands ↓ to the list.
"""

from __future__ import annotations

import pytest
from pilot_helpers import inbox_seen, open_panel, session_started, wait_until
from textual.widgets import DataTable, Input
from ui_fakes import (
    FakeBackend,
    FakeClient,
    FakeCode,
    FakeMemory,
    FakeSession,
    seeded_hits,
    seeded_memories,
)

from paicli_tui.app import PaicliApp
from paicli_tui.ui.screens.chat import ChatScreen
from paicli_tui.ui.screens.code_search import CodeSearchScreen
from paicli_tui.ui.screens.memory import MemoryScreen
from paicli_tui.ui.widgets.prompt_input import PromptInput

SIZE = (100, 30)


def _app(settings, project_dir) -> tuple[PaicliApp, FakeBackend]:
    backend = FakeBackend(settings, project_dir, session=FakeSession(), client=FakeClient(),
                          memory_=FakeMemory(seeded_memories()), code_=FakeCode(seeded_hits()))
    app = PaicliApp(settings, project_dir, backend=backend)
    inbox_seen(app)
    return app, backend


async def _opened(pilot, key: str, kind: type):
    """The panel ``key`` opens, once the chat is up."""
    await pilot.pause(0.2)
    await open_panel(pilot, key, kind)
    return pilot.app.screen.panel


async def test_typing_after_a_search_stays_in_the_query(settings, project_dir):
    app, backend = _app(settings, project_dir)
    async with app.run_test(size=SIZE) as pilot:
        panel = await _opened(pilot, "f3", CodeSearchScreen)
        screen = app.screen
        query = screen.query_one("#code-query", Input)
        await pilot.press(*"loader", "enter")
        await wait_until(pilot, lambda: len(panel.hits) == 2)
        assert screen.focused is query
        # a new query typed straight away: `m` and `i` are letters, not commands
        await pilot.press("backspace", *"mix", "enter")
        await wait_until(pilot, lambda: backend.code_.searches[-1][0] == "loademix")
        assert query.value == "loademix"
        assert panel.mode == "hybrid"
        assert app.screen is screen
        # ↓ reaches the results; a letter typed there goes back to the query
        await pilot.press("down")
        assert isinstance(screen.focused, DataTable)
        await pilot.press("i")
        assert screen.focused is query and query.value == "loademixi"
        assert app.screen is screen
        # Enter on a result is the deliberate insert: the reference lands in the input,
        # not in the conversation
        await pilot.press("down", "down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen))
        assert app.screen.query_one(PromptInput).text == "paicli_tui/config.py:204 "
        assert backend.session.history == []


async def test_escape_leaves_code_search_from_query_and_results(settings, project_dir):
    app, _ = _app(settings, project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await session_started(pilot)
        for keys in ((), ("down",)):
            await open_panel(pilot, "f3", CodeSearchScreen)
            await pilot.press(*"load", "enter")
            await wait_until(pilot, lambda: len(app.screen.panel.hits) == 2)
            await pilot.press(*keys, "escape")
            await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen))
            assert isinstance(app.screen.focused, PromptInput)


async def test_down_in_the_memory_filter_reaches_the_list(settings, project_dir):
    app, _ = _app(settings, project_dir)
    async with app.run_test(size=SIZE) as pilot:
        panel = await _opened(pilot, "f2", MemoryScreen)
        screen = app.screen
        await wait_until(pilot, lambda: len(panel.rows) == 3)
        await pilot.press("slash", *"gradle")
        assert screen.query_one("#memory-filter", Input).value == "gradle"
        await pilot.press("down")
        table = screen.query_one(DataTable)
        assert screen.focused is table and table.row_count == 1
        assert panel.selected().id == "m1"


@pytest.mark.parametrize("key,kind,box", [("f3", CodeSearchScreen, "#code-query"),
                                          ("f2", MemoryScreen, "#memory-filter")])
async def test_quick_keys_keep_their_order_in_the_panels_boxes(settings, project_dir, key,
                                                               kind, box):
    """`ab ⌫ c ← d` queued at once (a fast typist on a loaded machine) reads `adc` in the
    code search query and the memory filter, not `abc…` (Backspace acting late)."""

    app, _ = _app(settings, project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await _opened(pilot, key, kind)
        field = app.screen.query_one(box, Input)
        field.focus()
        field.value = ""
        await pilot.pause()
        _queue_ab_backspace_c_left_d(field)
        await wait_until(pilot, lambda: field.value == "adc")


async def test_quick_keys_keep_their_order_in_the_model_name_box(settings, tmp_path) -> None:
    """The /model dialog's model-name box reads `adc` for `ab ⌫ c ← d` queued at once too."""
    from ui_scenarios import reach, scenes

    scene = next(s for s in scenes(settings, tmp_path) if s.name == "model_picker")
    async with scene.app.run_test(size=SIZE) as pilot:
        await reach(pilot, scene)
        field = pilot.app.screen.query_one("#model-name", Input)
        field.focus()
        field.value = ""
        await pilot.pause()
        _queue_ab_backspace_c_left_d(field)
        await wait_until(pilot, lambda: field.value == "adc")


def _queue_ab_backspace_c_left_d(field: Input) -> None:
    """Post the keys at once, the way a fast typist's keys queue on a loaded machine."""
    from textual import events

    for name, character in (("a", "a"), ("b", "b"), ("backspace", "\x7f"), ("c", "c"),
                            ("left", None), ("d", "d")):
        field.post_message(events.Key(name, character))
