"""The memory browser confirms text that looks like a secret, as ``--sensitive`` does on the
command line.

Found by reading the code: replacing a memory (``e``, or ``/memory replace ID TEXT``) with
text that names a token was refused with "confirm with paicli-tui memory replace
--sensitive": the TUI had no way to confirm, the person had to leave for the command line.
Adding one (``a``) ended the same way. Now a question asks; yes writes it, no writes nothing.
"""

from __future__ import annotations

import pytest
from pilot_helpers import open_panel, wait_for_screen, wait_until
from textual.widgets import Input
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.core.memory.book import MemoryBook
from paicli_tui.ui.core_adapters import MemoryAdapter
from paicli_tui.ui.modals.confirm import ConfirmModal
from paicli_tui.ui.modals.text_entry import TextEntryModal
from paicli_tui.ui.screens.memory import MemoryScreen

SECRET = "deploy with the token sk-live-4f9a8b7c6d5e4f3a2b1c0d9e"


def _app(settings, project_dir) -> tuple[PaicliApp, MemoryBook]:
    book = MemoryBook(settings, project_dir)
    backend = FakeBackend(settings, project_dir, session=FakeSession(), client=FakeClient(),
                          memory_=MemoryAdapter(book))
    return PaicliApp(settings, project_dir, backend=backend), book


async def _type_into_dialog(pilot, text: str) -> None:
    await wait_for_screen(pilot, TextEntryModal)
    pilot.app.screen.query_one(Input).value = text
    await pilot.press("enter")


@pytest.mark.parametrize(("answer", "kept"), [("y", SECRET), ("n", "deploy with make")])
async def test_replace_with_secret_looking_text_asks_first(settings, project_dir, answer, kept):
    app, book = _app(settings, project_dir)
    book.save("deploy with make", scope="project")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        await open_panel(pilot, "f2", MemoryScreen)
        panel = app.screen.panel
        await wait_until(pilot, lambda: len(panel.rows) == 1)
        await pilot.press("e")
        await _type_into_dialog(pilot, SECRET)
        await wait_for_screen(pilot, ConfirmModal)
        assert "it mentions 'token'" in str(app.screen.body)
        await pilot.press(answer)
        await wait_until(pilot, lambda: any(
            n.message.startswith(("Replaced", "Nothing replaced")) for n in app._notifications))
        assert [e.content for e in book.list_visible()] == [kept]
        assert not any("failed" in n.title for n in app._notifications)


async def test_adding_secret_looking_text_asks_first(settings, project_dir):
    app, book = _app(settings, project_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        await open_panel(pilot, "f2", MemoryScreen)
        await pilot.press("a")
        await _type_into_dialog(pilot, SECRET)
        await wait_for_screen(pilot, ConfirmModal)
        await pilot.press("y")
        await wait_until(pilot, lambda: [e.content for e in book.list_visible()] == [SECRET])
