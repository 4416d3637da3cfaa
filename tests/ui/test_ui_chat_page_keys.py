"""PgUp / PgDn pressed fast (or held down) move the conversation a page each: Textual's page
scroll waits for the next refresh and starts from the position before it, so in a long
chat, where a refresh takes a while, a burst of presses moved one page."""

from __future__ import annotations

import pytest
from pilot_helpers import resumed_app, wait_resumed, wait_until
from test_ui_chat_long import long_history

from paicli_tui.ui.widgets.chat_log import ChatLog
from paicli_tui.ui.widgets.prompt_input import PromptInput


@pytest.mark.parametrize("presses", [3, 5])
async def test_a_burst_of_page_ups_moves_a_page_each(settings, project_dir, presses) -> None:
    app = resumed_app(settings, project_dir, long_history(30))
    async with app.run_test(size=(80, 24)) as pilot:
        log = app.screen.query_one(ChatLog)
        await wait_resumed(pilot, log)
        await wait_until(pilot, lambda: log.max_scroll_y > 0 and log.scroll_y == log.max_scroll_y)
        start, page = log.scroll_y, log.scrollable_content_region.height
        assert start > presses * page
        for _ in range(presses):  # all queued before the screen draws again
            app.screen.post_message(PromptInput.ScrollChat(-1))
        await wait_until(pilot, lambda: start - log.scroll_y >= presses * page,
                         explain=lambda: f"moved {start - log.scroll_y} of "
                                         f"{presses} pages of {page}")
        for _ in range(presses):
            app.screen.post_message(PromptInput.ScrollChat(+1))
        await wait_until(pilot, lambda: log.scroll_y == log.max_scroll_y,
                         explain=lambda: f"at {log.scroll_y} of {log.max_scroll_y}")
