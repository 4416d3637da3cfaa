"""Thousands of memories keep the browser quick: the table lists at most LISTED_AT_MOST rows
at once (filling it with every row again on each key typed in the filter held the screen
0.3 s per key), the status line counts them all and says to type to narrow."""

from __future__ import annotations

from pilot_helpers import wait_until
from test_ui_memory_meaning import browser_app, open_browser, status
from textual.widgets import DataTable
from ui_fakes import FakeMemory

from paicli_tui.ui.backend import MemoryRow
from paicli_tui.ui.screens.memory_rows import LISTED_AT_MOST


async def test_a_large_store_lists_the_first_rows_and_counts_them_all(settings, project_dir):
    rows = [MemoryRow(f"m{i}", "project", f"note {i} about topic{i % 50}q", "2026-09-01",
                      "2026-09-01") for i in range(5 * LISTED_AT_MOST)]
    app = browser_app(settings, project_dir, FakeMemory(rows))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_browser(pilot, app, "/memory")
        table = screen.query_one(DataTable)
        await wait_until(pilot, lambda: status(screen).startswith("5,000 of 5,000"), 30,
                         lambda: status(screen))
        assert table.row_count == LISTED_AT_MOST
        assert status(screen) == "5,000 of 5,000 memories · the first 1,000 listed, type to narrow"
        await pilot.press("slash", *"topic7q")  # narrowed under the bound: all listed
        await wait_until(pilot, lambda: status(screen) == "100 of 5,000 memories", 30,
                         lambda: status(screen))
        assert table.row_count == 100
