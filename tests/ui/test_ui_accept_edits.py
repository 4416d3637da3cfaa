"""Shift+Tab in the input switches the accept-edits mode: the session hears of it at once,
and a line under the input says it is on (and is gone when it is off). In the slash menu
Shift+Tab still cycles the matches. A write that went ahead in the mode says so on its
block."""

from __future__ import annotations

import pytest
from pilot_helpers import wait_until
from test_ui_chat_input import make_app, started
from ui_fakes import FakeSession

from paicli_tui.core.contracts import events as ev
from paicli_tui.ui.widgets.mode_line import LONG, MEDIUM, SHORT, ModeLine, mode_text
from paicli_tui.ui.widgets.prompt_input import PromptInput
from paicli_tui.ui.widgets.tool_block import ToolBlock


@pytest.mark.parametrize(("width", "expected"), [(120, LONG), (80, MEDIUM), (60, MEDIUM),
                                                  (50, SHORT), (30, SHORT)])
def test_the_line_says_as_much_as_fits(width: int, expected: str) -> None:
    assert mode_text(width) == expected and len(mode_text(width)) + 2 <= max(width, 32)


async def test_shift_tab_switches_the_mode_and_the_line_follows(settings, project_dir):
    session = FakeSession()
    app = make_app(settings, project_dir, session)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        line = app.screen.query_one(ModeLine)
        assert not line.display and not session.accept_edits
        await pilot.press("shift+tab")
        await pilot.pause()
        assert session.accept_edits and line.display
        assert str(line.render()).startswith("» accept edits on")
        assert app.focused is app.screen.query_one(PromptInput)  # the focus stays
        await pilot.press("h", "i")
        assert app.screen.query_one(PromptInput).text == "hi"
        await pilot.press("shift+tab")
        await pilot.pause()
        assert not session.accept_edits and not line.display


async def test_in_the_slash_menu_shift_tab_still_cycles(settings, project_dir):
    session = FakeSession()
    app = make_app(settings, project_dir, session)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await pilot.press("slash", "m", "shift+tab")
        await pilot.pause()
        assert not session.accept_edits
        assert app.screen.query_one(PromptInput).text == "/model"


async def test_started_with_accept_edits_the_line_shows_from_the_start(settings, project_dir):
    session = FakeSession(script=[
        ev.ToolCallStarted("c1", "write_file", '{"path": "a.txt"}'),
        ev.ToolCallFinished("c1", "write_file", "done", "wrote a.txt",
                            permission="accept-edits"),
        ev.TextDelta("Done.")])
    app = make_app(settings.with_overrides(accept_edits=True), project_dir, session)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        assert session.accept_edits and app.screen.query_one(ModeLine).display
        await pilot.press(*"write it", "enter")
        await wait_until(pilot, lambda: not app.screen.turn_running
                         and bool(app.screen.query(ToolBlock)))
        title = str(app.screen.query_one(ToolBlock).title)
        assert title.endswith("· done · auto-approved (accept edits)"), title
