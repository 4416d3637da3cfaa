"""A ranking by meaning in the memory browser is asked once and kept: Enter again while one
is under way starts no other (each runs to its end in a thread, the first loading the
embedder), moving the browser between the dock and the full screen (F6) keeps the ranked
view instead of going back to words and asking again, and a scope chosen shows the best of
that scope, not what is left of the best of all."""

from __future__ import annotations

import threading

from pilot_helpers import inbox_seen, session_started, wait_for_screen, wait_until
from test_ui_memory_meaning import browser_app, ids, open_browser, reviewed, status
from ui_fakes import FakeMemory

from paicli_tui.ui.backend import MemoryRow
from paicli_tui.ui.screens.memory import MemoryPanel, MemoryScreen
from paicli_tui.ui.screens.memory_rows import RANKED_LIMIT


async def test_enter_again_while_ranking_asks_no_second_ranking(settings, project_dir):
    memory = FakeMemory(reviewed(), ranking={"build tool": ["m1", "m3"]})
    asked: list[str] = []
    release = threading.Event()
    answer = memory.search

    def slow_search(query: str, limit: int):  # the embedder loading, seconds
        asked.append(query)
        release.wait(60)
        return answer(query, limit)

    memory.search = slow_search  # type: ignore[method-assign]
    app = browser_app(settings, project_dir, memory)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_browser(pilot, app, "/memory")
        await wait_until(pilot, lambda: len(ids(screen)) == 3)
        await pilot.press("slash", *"build tool", "enter")
        await wait_until(pilot, lambda: asked == ["build tool"])
        await pilot.press("slash", "enter", "slash", "enter")  # impatient
        await pilot.pause()
        release.set()
        await app.workers.wait_for_complete()
        await wait_until(pilot, lambda: ids(screen) == ["m1", "m3"], 30, lambda: status(screen))
        assert asked == ["build tool"]


async def test_f6_keeps_a_ranked_view(settings, project_dir):
    memory = FakeMemory(reviewed(), ranking={"build tool": ["m1", "m3"]})
    app = browser_app(settings, project_dir, memory)
    inbox_seen(app)
    async with app.run_test(size=(160, 40)) as pilot:
        await session_started(pilot)
        chat = app.screen
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(chat.docked_panel(), MemoryPanel))
        docked = chat.docked_panel()
        await wait_until(pilot, lambda: len(docked.rows) == 3)
        await pilot.press("slash", *"build tool", "enter")
        await wait_until(pilot, lambda: ids(docked) == ["m1", "m3"])
        await pilot.press("f6")
        await wait_for_screen(pilot, MemoryScreen)
        full = app.screen.panel
        await wait_until(pilot, lambda: ids(full) == ["m1", "m3"], 30, lambda: status(full))
        assert status(full).startswith("2 of 3 memories by meaning")
        assert memory.searched == ["build tool"]  # kept, not asked again


async def test_a_scope_shows_its_best_ranked_not_what_the_best_of_all_left(
        settings, project_dir):
    """25 project memories rank above the one global memory that also passes the bars:
    asked for the best 20 of all, the global scope showed none ("none is relevant")."""
    rows = [MemoryRow(f"p{i}", "project", f"deploy step {i}", "2026-09-01", "2026-09-01")
            for i in range(25)]
    rows.append(MemoryRow("g1", "global", "I deploy on Fridays only", "2026-09-01",
                          "2026-09-01"))
    memory = FakeMemory(rows, ranking={"shipping": [r.id for r in rows]})
    app = browser_app(settings, project_dir, memory)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_browser(pilot, app, "/memory search shipping")
        await wait_until(pilot, lambda: "by meaning" in status(screen), 30,
                         lambda: status(screen))
        assert len(ids(screen)) == RANKED_LIMIT  # all scopes: the best 20
        screen.query_one("#memory-scope").value = "global"
        await wait_until(pilot, lambda: ids(screen) == ["g1"], 30, lambda: status(screen))
        assert memory.searched == ["shipping"]
