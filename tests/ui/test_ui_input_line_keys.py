"""Ctrl+A / Ctrl+E / Ctrl+U / Ctrl+K in the chat input act on the whole line, as in a shell.

Found in tmux: in a message that wrapped into three rows, Ctrl+A put the cursor at the start
of the third row (mid-message) and Ctrl+U deleted only that row, leaving the two above."""

from __future__ import annotations

from pilot_helpers import wait_until
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.ui.widgets.prompt_input import PromptInput

WORDS = " ".join(f"word{n}" for n in range(40))  # 269 cells: three rows at 100 columns


async def test_line_keys_act_on_the_whole_line_of_a_message_that_wraps(settings,
                                                                      project_dir):
    app = PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=FakeSession(), client=FakeClient()))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        prompt = app.screen.query_one(PromptInput)
        prompt.load_text(f"first line\n{WORDS}\nlast line")
        prompt.move_cursor((1, len(WORDS) - 3))  # on the third row shown of the middle line
        await pilot.press("ctrl+a", "X")
        assert prompt.document.get_line(1) == "X" + WORDS
        await pilot.press("ctrl+e", "Y")
        assert prompt.document.get_line(1) == f"X{WORDS}Y"
        prompt.move_cursor((1, len(WORDS) - 3))
        await pilot.press("ctrl+u")
        assert prompt.text == f"first line\n{WORDS[-4:]}Y\nlast line"
        await pilot.press("ctrl+k")
        assert prompt.text == "first line\n\nlast line"
        # at either end of a line they join it to its neighbour, as before
        await pilot.press("ctrl+k")
        assert prompt.text == "first line\nlast line"
        await pilot.press("ctrl+u")
        assert prompt.text == "first linelast line"
        # Home and End keep the row shown, as in an editor
        prompt.load_text(WORDS)
        prompt.move_cursor((0, len(WORDS)))
        await pilot.press("home")
        assert 0 < prompt.cursor_location[1] < len(WORDS)
