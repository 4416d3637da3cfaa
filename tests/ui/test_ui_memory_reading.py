"""The memory browser says it is reading the store until it has: on a loaded machine the
read takes seconds, and the status line read '0 of 0 memories' meanwhile, as if every
memory was gone."""

from __future__ import annotations

import threading

from pilot_helpers import wait_until
from test_ui_memory_meaning import browser_app, open_browser, status
from ui_fakes import FakeMemory

from paicli_tui.ui.backend import MemoryRow
from paicli_tui.ui.screens.memory_rows import READING


class SlowMemory(FakeMemory):
    """A store whose read waits until the test lets it go on."""

    def __init__(self, rows: list[MemoryRow]) -> None:
        super().__init__(rows)
        self.go_on = threading.Event()

    def rows(self) -> list[MemoryRow]:
        self.go_on.wait(30)
        return super().rows()


async def test_the_browser_says_it_is_reading_until_the_store_is_read(settings, project_dir):
    memory = SlowMemory([MemoryRow("m1", "project", "项目使用 pytest 运行测试", "2026-12-07",
                                   "2026-12-07")])
    app = browser_app(settings, project_dir, memory)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_browser(pilot, app, "/memory")
        try:
            await wait_until(pilot, lambda: status(screen) == READING, 30,
                             lambda: status(screen))
            await pilot.resize_terminal(60, 20)  # a layout again: still reading, not "0 of 0"
            await pilot.pause()
            assert status(screen) == READING
        finally:
            memory.go_on.set()
        await wait_until(pilot, lambda: status(screen) == "1 of 1 memory", 30,
                         lambda: status(screen))
