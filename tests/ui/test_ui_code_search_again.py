"""F3 opens the code search on the last query and mode, with its results.

Found in tmux: after Enter inserted one result's `path:line` into the chat, F3 opened an
empty query in hybrid mode, so the next reference from the same results meant typing the
query (and choosing grep) again."""

from __future__ import annotations

from pilot_helpers import grep_in_code_search, wait_for_screen, wait_until

from paicli_tui.app import PaicliApp
from paicli_tui.ui.core_backend import CoreBackend
from paicli_tui.ui.screens.chat import ChatScreen
from paicli_tui.ui.screens.code_search import CodeSearchScreen
from paicli_tui.ui.widgets.prompt_input import PromptInput


async def test_f3_opens_on_the_last_query_mode_and_results(settings, project_dir):
    (project_dir / "app.py").write_text("class Progress:\n    pass\n" + "\n" * 40
                                        + "p = Progress()\n", encoding="utf-8")
    app = PaicliApp(settings, project_dir, backend=CoreBackend(settings, project_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        await grep_in_code_search(pilot, "Progress", 2)
        await pilot.press("down", "enter")  # the first result into the chat
        await wait_for_screen(pilot, ChatScreen)
        prompt = app.screen.query_one(PromptInput)
        assert prompt.text == "app.py:1 "
        await pilot.press("f3")
        await wait_for_screen(pilot, CodeSearchScreen)
        panel = app.screen.panel
        assert panel.query_one("#code-query").value == "Progress" and panel.mode == "grep"
        await wait_until(pilot, lambda: len(panel.hits) == 2)
        await pilot.press("down", "down", "enter")  # the second one, nothing typed again
        await wait_for_screen(pilot, ChatScreen)
        assert prompt.text == "app.py:1 app.py:43 "
        # a query given with /search still wins
        prompt.load_text("/search pass")
        await pilot.press("enter")
        await wait_for_screen(pilot, CodeSearchScreen)
        panel = app.screen.panel
        assert panel.query_one("#code-query").value == "pass" and panel.mode == "grep"
        await wait_until(pilot, lambda: len(panel.hits) == 1)
