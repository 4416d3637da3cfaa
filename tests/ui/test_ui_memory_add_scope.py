"""The new-memory dialog saves on Enter wherever the focus is, as its "Save (Enter)" button
says: on the scope buttons Enter only pressed the highlighted one, so ↓ to "global" and
Enter left the dialog open with nothing saved."""

from __future__ import annotations

import pytest
from pilot_helpers import wait_for_screen, wait_until

from paicli_tui.app import PaicliApp
from paicli_tui.core.memory.book import MemoryBook
from paicli_tui.ui.core_backend import CoreBackend
from paicli_tui.ui.modals.text_entry import TextEntryModal
from paicli_tui.ui.screens.memory import MemoryScreen


@pytest.mark.parametrize("keys,scope", [
    (["tab", "down", "enter"], "global"),  # ↓ to global, Enter: saved there
    (["tab", "enter"], "project"),  # Enter on the highlighted (project) scope
    (["tab", "down", "space", "up", "enter"], "project"),  # Enter takes the highlighted one
    (["tab", "down", "space", "tab", "enter"], "global"),  # Space chose, the button saves
])
async def test_enter_on_the_scope_buttons_saves_with_the_highlighted_scope(
        settings, project_dir, keys, scope) -> None:
    app = PaicliApp(settings, project_dir, backend=CoreBackend(settings, project_dir))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        await pilot.press("f2")
        await wait_for_screen(pilot, MemoryScreen)
        await pilot.pause(0.3)
        await pilot.press("a")
        await wait_for_screen(pilot, TextEntryModal)
        await pilot.press(*"Tests run with pytest -q", *keys)

        def saved() -> list[tuple[str, str]]:
            return [(e.content, e.effective_scope)
                    for e in MemoryBook(settings, project_dir).list_visible()]

        await wait_until(pilot, lambda: saved() == [("Tests run with pytest -q", scope)],
                         explain=lambda: f"saved {saved()}; on top: {app.screen!r}")
        await wait_until(pilot, lambda: not isinstance(app.screen, TextEntryModal))
