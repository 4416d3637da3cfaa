"""A one-line box (a new memory, the memory filter, the code query) takes a paste of several
lines whole, joined by spaces.

Found in tmux: pasting a three-line note into the new-memory box (F2, a) kept only
"line one", and Enter saved that."""

from __future__ import annotations

from pilot_helpers import wait_for_screen, wait_until
from textual import events

from paicli_tui.app import PaicliApp
from paicli_tui.core.memory.book import MemoryBook
from paicli_tui.ui.core_backend import CoreBackend
from paicli_tui.ui.modals.text_entry import TextEntryModal
from paicli_tui.ui.screens.memory import MemoryScreen


async def test_a_pasted_note_of_several_lines_is_saved_whole(settings, project_dir):
    app = PaicliApp(settings, project_dir, backend=CoreBackend(settings, project_dir))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        await pilot.press("f2")
        await wait_for_screen(pilot, MemoryScreen)
        await pilot.press("a")
        await wait_for_screen(pilot, TextEntryModal)
        box = app.screen.query_one("#entry-text")
        box.post_message(events.Paste("Deploys go through\n  the staging bucket\n\nfirst\n"))
        await wait_until(pilot, lambda: bool(box.value))
        assert box.value == "Deploys go through the staging bucket first"
        await pilot.press("enter")
        book = MemoryBook(settings, project_dir)
        await wait_until(pilot, lambda: [e.content for e in book.list_visible()] == [
            "Deploys go through the staging bucket first"])
