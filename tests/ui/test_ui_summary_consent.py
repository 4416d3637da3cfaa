"""The TUI on the real core with ``ask_before_summary`` on: the warning before a summary, the
dialog (now / not yet), "not yet" running out at the hard limit, the gauge's words at each
step, and the ledger records. The model is a scripted ChatClient at the provider protocol;
the person presses keys through the pilot."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from pilot_helpers import wait_until

from paicli_tui.app import PaicliApp
from paicli_tui.config import Settings
from paicli_tui.core.context.summary import SECTION_TITLES
from paicli_tui.core.contracts.llm import StreamDone, UsageReport
from paicli_tui.core.messages import Message
from paicli_tui.ui.core_backend import CoreBackend
from paicli_tui.ui.modals.summary_consent import SummaryConsentModal
from paicli_tui.ui.widgets.compaction_notice import CompactionNotice
from paicli_tui.ui.widgets.context_gauge import ContextGauge
from paicli_tui.ui.widgets.notice import ChatNotice
from paicli_tui.ui.widgets.prompt_input import PromptInput

WINDOW = 8_000  # clearing 3,000 · compaction 5,000 · hard limit 5,500


class SummaryClient:
    """Answers agent requests with a short text, summary requests with the four sections,
    fact extraction with no facts."""

    provider = "scripted"
    model = "scripted-1"
    window = WINDOW

    def __init__(self) -> None:
        self.summaries = 0

    async def stream(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]] = (),
                     *, model: str | None = None) -> AsyncIterator[Any]:
        system = messages[0].content.lower() if messages else ""
        if not tools and "summar" in system:
            self.summaries += 1
            text = "\n".join(f"## {t}\n- kept {i}" for i, t in enumerate(SECTION_TITLES))
        elif not tools:
            text = '{"facts": []}'
        else:
            text = f"Noted ({len(messages)} messages)."
        yield StreamDone(Message.assistant(text), "stop",
                         UsageReport(prompt_tokens=0, completion_tokens=5))

    async def aclose(self) -> None:
        return None


class Backend(CoreBackend):
    def __init__(self, settings: Settings, root: Path, client: SummaryClient) -> None:
        super().__init__(settings, root)
        self.client = client

    def build_client(self, settings: Settings) -> Any:
        return self.client


async def _send(pilot, n: int) -> None:
    """A turn of ~300 tokens of the person's own notes; returns when it ended or the
    dialog is open."""
    screen = pilot.app.screen
    await wait_until(pilot, lambda: screen.session is not None and not screen.turn_running)
    screen.query_one(PromptInput).load_text(f"turn {n}: " + "notes " * 200)
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, SummaryConsentModal)
                     or not screen.turn_running)


def _notices(screen, start: str) -> list[str]:
    return [str(n.source) for n in screen.query(ChatNotice) if str(n.source).startswith(start)]


async def test_warned_asked_not_yet_then_the_hard_limit_then_now(settings: Settings,
                                                                 project_dir: Path) -> None:
    settings = settings.with_overrides(ask_before_summary=True, auto_extract=False)
    client = SummaryClient()
    app = PaicliApp(settings, project_dir, backend=Backend(settings, project_dir, client))
    async with app.run_test(size=(100, 30)) as pilot:
        chat = app.screen
        gauge = chat.query_one(ContextGauge)
        n = 0
        while not isinstance(app.screen, SummaryConsentModal):  # the first approach
            await _send(pilot, n)
            n += 1
            assert n < 30, "never asked"
        ahead = _notices(chat, "Summary ahead: ")
        assert len(ahead) == 1 and "You will be asked first" in ahead[0]
        assert "/compact [focus] summarises now" in ahead[0]
        dialog = app.screen
        body = str(dialog.query_one(".summary-consent-body").render())
        assert "summaries start at 5.0k (window 8.0k)" in body
        assert "up to 5.5k tokens; there it is summarised without asking" in body
        assert gauge.state == "compacting…"
        await pilot.press("n")  # not yet
        await wait_until(pilot, lambda: not chat.turn_running)
        assert client.summaries == 0 and not list(chat.query(CompactionNotice))
        assert gauge.state == "summary postponed" and gauge.tokens >= 5_000
        assert "summary postponed" in str(gauge.query_one(".gauge-percent").render())
        assert len(_notices(chat, "Not yet: no summary until 5,500 tokens")) == 1
        # not asked again below the hard limit; there it is summarised without asking
        asked_again = False
        while not list(chat.query(CompactionNotice)):
            await _send(pilot, n)
            n += 1
            asked_again |= isinstance(app.screen, SummaryConsentModal)
            assert n < 45 and not asked_again
        assert len(_notices(chat, "Summarising without asking: the conversation reached the hard limit of 5,500")) == 1
        assert client.summaries == 1 and gauge.state == "" and gauge.tokens < 5_000
        # the next approach asks again; "s" summarises at once
        while not isinstance(app.screen, SummaryConsentModal):
            await _send(pilot, n)
            n += 1
            assert n < 70, "never asked again"
        await pilot.press("s")
        await wait_until(pilot, lambda: not chat.turn_running)
        assert client.summaries == 2 and gauge.state == ""
        assert len(_notices(chat, "Summary ahead: ")) == 2  # once per approach
        ledger = Path(chat.session.ledger.path).read_text(encoding="utf-8").splitlines()
        records = [r for r in map(json.loads, ledger) if r.get("type") == "event"]
        answers = [r["answer"] for r in records if r["kind"] == "summary_consent"]
        assert answers == ["not_yet", "hard_limit", "now"]
        assert len([r for r in records if r["kind"] == "summary_ahead"]) == 2
