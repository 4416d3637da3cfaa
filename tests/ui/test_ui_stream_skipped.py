"""A reply whose stream held unreadable lines shows one dim notice after it, saying how many
were skipped (before, only the log knew). The real session and the OpenAI-compatible client,
with the provider's stream replayed."""

from __future__ import annotations

import httpx
from doubles.llm_replay import Replay, client_for, delta, sse, text_reply
from pilot_helpers import wait_until
from test_ui_core_session import make_app

from paicli_tui.ui.widgets.notice import ChatNotice
from paicli_tui.ui.widgets.prompt_input import PromptInput


async def test_skipped_stream_lines_show_one_dim_notice(settings, project_dir):
    garbled = [delta(content="The build "), *["{garbled"] * 5, delta(content="uses make."),
               delta(finish="stop")]
    replay = Replay([httpx.Response(200, content=sse(garbled)),
                     *[httpx.Response(200, content=text_reply("[]")) for _ in range(4)]])
    app = make_app(settings, project_dir, client_for(replay))
    async with app.run_test(size=(80, 24)) as pilot:
        chat = app.screen
        await wait_until(pilot, lambda: chat.session is not None)
        chat.query_one(PromptInput).load_text("how is it built?")
        await pilot.press("enter")
        await wait_until(pilot, lambda: chat.turn_worker is not None and not chat.turn_running)
        await pilot.pause()
        skipped = [n for n in chat.query(ChatNotice) if "could not be read" in str(n.source)]
        assert [(n.kind, str(n.source)) for n in skipped] == [(
            "dim", "deepseek sent 5 lines of this reply's stream that could not be read; "
                   "skipped, so the reply may be missing words or a tool call.")]
        assert "uses make." in chat.query("AssistantBlock").last().text
