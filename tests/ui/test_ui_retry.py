"""Provider retries are visible in the chat as they happen: the real session and the real
OpenAI-compatible client, on a transport that answers HTTP 500 first."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import httpx
from doubles.llm_replay import Replay, text_reply
from pilot_helpers import wait_until

from paicli_tui.app import PaicliApp
from paicli_tui.config import Secret, Settings
from paicli_tui.core.llm.openai_client import OpenAICompatibleClient
from paicli_tui.ui.core_backend import CoreBackend
from paicli_tui.ui.widgets.prompt_input import PromptInput
from paicli_tui.ui.widgets.turn_status import TurnStatus

KEY = "sk-retry-secret-987654"


class RetryBackend(CoreBackend):
    def __init__(self, settings: Settings, root: Path, client: Any) -> None:
        super().__init__(settings, root)
        self.client = client

    def build_client(self, settings: Settings) -> Any:
        return self.client


async def test_an_http_500_retry_shows_in_the_status_line_and_the_chat(settings: Settings,
                                                                       project_dir: Path):
    waiting, release = asyncio.Event(), asyncio.Event()
    slept: list[float] = []

    async def held_sleep(seconds: float) -> None:
        slept.append(seconds)
        waiting.set()
        await release.wait()

    replay = Replay([httpx.Response(500, json={"error": {"message": f"upstream {KEY}"}}),
                     httpx.Response(200, content=text_reply("Recovered."))])
    client = OpenAICompatibleClient(
        provider="custom", base_url="https://api.example.test/v1", model="m1",
        window=128_000, api_key=Secret(KEY), transport=httpx.MockTransport(replay),
        sleep=held_sleep, backoff_base=4.0)
    app = PaicliApp(settings, project_dir, backend=RetryBackend(settings, project_dir, client))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        app.screen.query_one(PromptInput).load_text("hello")
        await pilot.press("enter")
        await asyncio.wait_for(waiting.wait(), 60)
        status = app.screen.query_one(TurnStatus)
        await wait_until(pilot, lambda: "retry 1 of 3 in" in status.line().plain
                         and any(str(n.source).startswith("HTTP 500")
                                 for n in app.screen.query("ChatNotice")),
                         30, lambda: status.line().plain)
        line = status.line().plain
        # the countdown runs in real time: at most the delay that is being slept
        shown = re.search(r"HTTP 500, retry 1 of 3 in (\d+) s", line)
        assert shown is not None and int(shown.group(1)) <= round(slept[0]), line
        assert "Esc to interrupt" in line and status.has_class("-warning")
        notices = [str(n.source) for n in app.screen.query("ChatNotice")]
        assert any(n.startswith("HTTP 500: upstream") and "retry 1 of 3" in n
                   for n in notices), notices
        assert not any(KEY in n for n in notices) and KEY not in line
        release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Recovered." in app.screen.query("AssistantBlock").last().text
        assert not status.display
