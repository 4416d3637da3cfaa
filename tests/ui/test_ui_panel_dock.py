"""Panels docked beside the chat at ≥ 140 columns: the chat, its input and the gauge stay in
sight, the agent's turn keeps streaming beside the panel, F6 moves a panel between the dock
and full screen, Esc hands the focus back to the chat input."""

from __future__ import annotations

import asyncio

from pilot_helpers import inbox_seen, session_started, wait_for_screen, wait_until
from textual.widgets import Input
from ui_fakes import (
    FakeBackend,
    FakeClient,
    FakeCode,
    FakeMemory,
    FakeSession,
    chat_script,
    seeded_hits,
    seeded_memories,
)

from paicli_tui.app import PaicliApp
from paicli_tui.ui.screens.chat import ChatScreen
from paicli_tui.ui.screens.code_search import CodeSearchPanel, CodeSearchScreen
from paicli_tui.ui.screens.memory import MemoryPanel, MemoryScreen
from paicli_tui.ui.widgets.context_gauge import ContextGauge
from paicli_tui.ui.widgets.prompt_input import PromptInput


def _app(settings, project_dir, script=()) -> PaicliApp:
    backend = FakeBackend(settings, project_dir, session=FakeSession(script=script),
                          client=FakeClient(), memory_=FakeMemory(seeded_memories()),
                          code_=FakeCode(seeded_hits()))
    app = PaicliApp(settings, project_dir, backend=backend)
    inbox_seen(app)
    return app


async def test_memory_docks_beside_a_running_turn(settings, project_dir):
    hold = asyncio.Event()
    script = chat_script()[:4] + [hold] + chat_script()[4:]
    app = _app(settings, project_dir, script)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)  # before Enter
        chat = app.screen
        chat.prompt.load_text("find the config loader")
        await pilot.press("enter")
        await wait_until(pilot, lambda: chat.turn_running)
        await pilot.press("f2")
        await wait_until(pilot, lambda: chat.docked_panel() is not None)
        panel = chat.docked_panel()
        assert isinstance(panel, MemoryPanel) and app.screen is chat
        await wait_until(pilot, lambda: len(panel.rows) == 3)
        # side by side: the panel on the right half, chat and gauge on the left, all visible
        gauge = chat.query_one(ContextGauge)
        assert panel.region.x >= 68 and panel.region.width >= 60
        assert gauge.region.width > 0 and gauge.region.right <= panel.region.x
        assert chat.prompt.region.right <= panel.region.x
        # curating while the turn runs: verify the stale memory with one key
        await wait_until(pilot, lambda: panel.has_focus_within)
        await pilot.press("v")
        await wait_until(pilot, lambda: not next(r for r in panel.rows if r.id == "m1").stale)
        hold.set()  # the turn goes on and finishes beside the panel
        await wait_until(pilot, lambda: not chat.turn_running)
        assert chat.docked_panel() is panel
        # Esc: back to the chat input, the panel stays docked
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.focused, PromptInput))
        assert chat.docked_panel() is panel
        # F2 focuses the docked panel, F2 again (focus in it) closes it
        await pilot.press("f2")
        await wait_until(pilot, lambda: panel.has_focus_within)
        await pilot.press("f2")
        await wait_until(pilot, lambda: chat.docked_panel() is None)
        await wait_until(pilot, lambda: isinstance(app.focused, PromptInput))


async def test_f6_moves_code_search_between_dock_and_full_screen(settings, project_dir):
    app = _app(settings, project_dir)
    async with app.run_test(size=(160, 40)) as pilot:
        await session_started(pilot)
        chat = app.screen
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(chat.docked_panel(), CodeSearchPanel))
        await pilot.press(*"load", "enter")
        panel = chat.docked_panel()
        await wait_until(pilot, lambda: len(panel.hits) == 2)
        await pilot.press("f6")
        await wait_for_screen(pilot, CodeSearchScreen)
        full = app.screen.panel
        assert chat.docked_panel() is None
        assert full.query_one("#code-query", Input).value == "load"
        await wait_until(pilot, lambda: len(full.hits) == 2)
        # the choice is kept: the next panel opens full screen too
        await pilot.press("escape")
        await wait_for_screen(pilot, ChatScreen)
        await pilot.press("f2")
        await wait_for_screen(pilot, MemoryScreen)
        await pilot.press("f6")  # and back into the dock
        await wait_until(pilot, lambda: isinstance(chat.docked_panel(), MemoryPanel))
        assert app.screen is chat
        # a reference inserted from a docked search lands in the input; the panel stays
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(chat.docked_panel(), CodeSearchPanel))
        await pilot.press(*"load", "enter")
        panel = chat.docked_panel()
        await wait_until(pilot, lambda: len(panel.hits) == 2)
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: chat.prompt.text == f"{seeded_hits()[0].reference} ")
        assert isinstance(app.focused, PromptInput) and chat.docked_panel() is panel


async def test_narrow_terminals_open_panels_full_screen(settings, project_dir):
    app = _app(settings, project_dir)
    async with app.run_test(size=(120, 30)) as pilot:
        await session_started(pilot)
        await pilot.press("f2")
        await wait_for_screen(pilot, MemoryScreen)
        await pilot.press("f6")  # cannot dock: says why and stays
        await wait_until(pilot, lambda: any("140 columns" in n.message
                                            for n in app._notifications))
        assert isinstance(app.screen, MemoryScreen)


async def test_a_docked_panel_goes_full_screen_when_the_terminal_narrows(settings,
                                                                         project_dir):
    """Found in tmux: code search docked at 160 columns, the window made 80 wide: the panel
    kept half the screen and the chat was left 40 columns (its notices cut into 3-word
    lines). Below 140 columns a docked panel moves to full screen with its query, as F6
    would; Esc is back at a whole-width chat."""
    app = _app(settings, project_dir)
    async with app.run_test(size=(160, 40)) as pilot:
        await session_started(pilot)
        chat = app.screen
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(chat.docked_panel(), CodeSearchPanel))
        await pilot.press(*"load", "enter")
        await pilot.resize_terminal(80, 24)
        await wait_for_screen(pilot, CodeSearchScreen)
        assert chat.docked_panel() is None
        assert app.screen.panel.query_one("#code-query", Input).value == "load"
        await pilot.press("escape")
        await wait_for_screen(pilot, ChatScreen)
        # laid out at the whole width after a refresh: late on a busy machine
        await wait_until(pilot, lambda: chat.prompt.region.width >= 76, 30,
                         lambda: chat.prompt.region)
