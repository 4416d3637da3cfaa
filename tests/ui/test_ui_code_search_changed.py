"""Results from files changed since the index was built, in the code search panel.

Found in tmux: after an edit the panel's summary said '2 of 5 from files changed since the
index was built', but no row said which two, and the preview of an edited file showed the
text the index had read (its old line numbers) as if it were the file. The changed rows are
now marked and their preview says whose text it is."""

from __future__ import annotations

import dataclasses

from pilot_helpers import open_panel, session_started, wait_until
from textual.widgets import DataTable
from ui_fakes import FakeBackend, FakeClient, FakeCode, FakeSession, seeded_hits

from paicli_tui.app import PaicliApp
from paicli_tui.ui.screens.code_search import CodeSearchScreen


def preview_text(panel) -> str:
    """The preview as the person reads it (wide enough for the note on one line)."""
    from rich.console import Console

    console = Console(width=400, record=True)
    console.print(panel.query_one("#code-preview").content, crop=False)
    return console.export_text()


async def test_a_changed_result_is_marked_and_its_preview_says_so(settings, project_dir):
    loader, config = seeded_hits()
    hits = [loader, dataclasses.replace(config, path="app.py", changed="changed"),
            dataclasses.replace(config, path="old.py", changed="deleted")]
    backend = FakeBackend(settings, project_dir, session=FakeSession(), client=FakeClient(),
                          code_=FakeCode(hits))
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=(100, 30)) as pilot:
        await session_started(pilot)
        await open_panel(pilot, "f3", CodeSearchScreen)
        panel = app.screen.panel
        await pilot.press(*"load", "enter")
        await wait_until(pilot, lambda: len(panel.hits) == 3)
        table = panel.query_one(DataTable)
        locations = [str(table.get_row_at(row)[0]) for row in range(3)]
        assert locations[0].endswith("ConfigLoader.java:12") and "*" not in locations[0]
        assert locations[1:] == ["* app.py:204", "* old.py:204"]
        assert not preview_text(panel).startswith("The file")  # the file as indexed
        table.move_cursor(row=1)
        await wait_until(pilot, lambda: panel.previewed is hits[1])
        assert preview_text(panel).startswith(
            "The file changed since the index was built: this is the text the index read, "
            "its lines may have moved (/index refreshes it).")
        table.move_cursor(row=2)
        await wait_until(pilot, lambda: panel.previewed is hits[2])
        assert preview_text(panel).startswith(
            "The file was deleted since the index was built: this is the text the index "
            "read (/index refreshes it).")
