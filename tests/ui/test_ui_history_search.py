"""Ctrl+R searches what the person typed before, as a shell's reverse search does: the
newest match first, every word of the filter, Enter puts it in the input, Esc changes
nothing."""

from __future__ import annotations

import pytest
from pilot_helpers import wait_for_screen, wait_until
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.ui.modals.history_search import SHOWN_MAX, HistorySearch, matching
from paicli_tui.ui.widgets.prompt_input import PromptInput

TYPED = ["add a retry to the payment client", "run the tests", "explain @src/app.py",
         "Add retry with backoff\nto the HTTP client", "run the tests"]


@pytest.mark.parametrize(("typed", "found"), [
    ("", ["run the tests", "Add retry with backoff\nto the HTTP client", "explain @src/app.py",
          "add a retry to the payment client"]),                      # newest first, once
    ("retry", ["Add retry with backoff\nto the HTTP client", "add a retry to the payment client"]),
    ("RETRY client http", ["Add retry with backoff\nto the HTTP client"]),  # every word
    ("nothing like it", []),
])
def test_which_inputs_match(typed: str, found: list[str]) -> None:
    assert matching(TYPED, typed) == found


def test_at_most_so_many_rows() -> None:
    assert len(matching([f"prompt {n}" for n in range(SHOWN_MAX + 50)], "")) == SHOWN_MAX


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_ctrl_r_puts_an_earlier_prompt_in_the_input(settings, project_dir, size):
    app = PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=FakeSession(), client=FakeClient()))
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        prompt = app.screen.query_one(PromptInput)
        prompt.inputs = list(TYPED)
        await pilot.press("ctrl+r")
        await wait_for_screen(pilot, HistorySearch)
        await pilot.press(*"retry")
        await wait_until(pilot, lambda: len(app.screen.shown) == 2)
        await pilot.press("ctrl+r", "enter")  # the older of the two
        await wait_until(pilot, lambda: prompt.text == "add a retry to the payment client")
        assert prompt.has_focus
        # Esc leaves the input as it was
        await pilot.press("ctrl+r")
        await wait_for_screen(pilot, HistorySearch)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HistorySearch))
        assert prompt.text == "add a retry to the payment client"


async def test_esc_and_a_letter_at_once_close_it_and_type_the_letter(settings, project_dir):
    """Found in tmux: Esc and the first letter of a new prompt typed straight after it reach
    the app as one Alt+letter (tmux joins them for 500 ms by default); the dialog stayed
    open with the letter in its filter. It now closes, the input as it was plus the
    letter."""
    from test_ui_chat_input import terminal_keys

    app = PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=FakeSession(), client=FakeClient()))
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        prompt = app.screen.query_one(PromptInput)
        prompt.inputs = list(TYPED)
        prompt.load_text("draft ")
        prompt.move_cursor(prompt.document.end)
        await pilot.press("ctrl+r")
        await wait_for_screen(pilot, HistorySearch)
        await pilot.press(*"tests")
        assert [k.key for k in terminal_keys("\x1bn")] == ["alt+n"]
        for key in terminal_keys("\x1bn", "o"):
            app.post_message(key)
        await wait_until(pilot, lambda: prompt.text == "draft no")
        assert not isinstance(app.screen, HistorySearch) and prompt.has_focus


@pytest.mark.parametrize(("text", "width", "shown"), [
    ("run the tests", 40, "run the tests"),
    ("line one\n\n  line two", 40, "line one ⏎ line two"),
    ("a" * 50, 20, "a" * 19 + "…"),
    ("给订单服务加一个幂等校验", 10, "给订单服 …"),  # two cells a character
])
def test_a_prompt_takes_one_row(text: str, width: int, shown: str) -> None:
    from rich.cells import cell_len

    from paicli_tui.ui.modals.history_search import one_line

    row = one_line(text, width)
    assert row.plain == shown and cell_len(row.plain) <= width
