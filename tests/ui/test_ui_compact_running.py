"""/compact runs like a turn: the status line says so, Esc stops it, a message sent
meanwhile waits for it, and when nothing could be compacted the chat says why.

Found in tmux: /compact showed nothing until it ended (a summary takes seconds with a real
model), and a message sent meanwhile started a turn in the compaction's place (both ran as
the one exclusive "turn" worker), cancelling it without a word."""

from __future__ import annotations

import asyncio

from pilot_helpers import wait_until
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.core.agent.port import ManualCompaction
from paicli_tui.ui.widgets.compaction_notice import CompactionNotice
from paicli_tui.ui.widgets.notice import ChatNotice
from paicli_tui.ui.widgets.prompt_input import PromptInput


class SlowCompaction(FakeSession):
    """A summary that takes until ``done`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.done = asyncio.Event()
        self.turns: list[str] = []

    async def compact_now(self, focus: str = ""):
        await self.done.wait()
        return await super().compact_now(focus)

    async def run_turn(self, user_input: str):
        self.turns.append(user_input)
        async for event in super().run_turn(user_input):
            yield event


async def start_compacting(pilot, app) -> tuple[SlowCompaction, PromptInput]:
    chat = app.screen
    await wait_until(pilot, lambda: chat.session is not None)
    prompt = chat.query_one(PromptInput)
    await pilot.press(*"/compact", "enter")
    await wait_until(pilot, lambda: chat.turn_running)
    return chat.session, prompt


def app_for(settings, project_dir) -> PaicliApp:
    return PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=SlowCompaction(), client=FakeClient()))


async def test_a_message_sent_during_compact_waits_for_it(settings, project_dir):
    app = app_for(settings, project_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        session, prompt = await start_compacting(pilot, app)
        line = app.screen.status.line().plain
        assert "Compacting the context" in line and line.endswith("Esc to interrupt")
        await pilot.press(*"hello", "enter")
        await pilot.pause(0.2)
        assert prompt.queued == ["hello"] and session.turns == []
        session.done.set()
        await wait_until(pilot, lambda: session.turns == ["hello"])
        assert session.compactions  # it finished, and its notice is in the chat
        assert app.screen.query(CompactionNotice)


async def test_esc_stops_compact(settings, project_dir):
    app = app_for(settings, project_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        session, _ = await start_compacting(pilot, app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.screen.turn_running)
        # said once the compaction has ended: a moment later on a busy machine
        await wait_until(pilot, lambda: "Compaction cancelled." in [
            str(n.source) for n in app.screen.query(ChatNotice)])
        assert not session.compactions


class NothingToCompact(FakeSession):
    async def compact_now(self, focus: str = "") -> ManualCompaction:
        return ManualCompaction((), compacted=False,
                                why_not="the turns before the last one are already short")


async def compact_and_read(settings, project_dir, session: FakeSession, line: str) -> str:
    """Type /compact, wait for ``line`` in the chat; its kind (info, error…)."""
    app = PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=session, client=FakeClient()))
    async with app.run_test(size=(80, 24)) as pilot:
        chat = app.screen
        await wait_until(pilot, lambda: chat.session is not None)
        await pilot.press(*"/compact", "enter")
        await wait_until(pilot, lambda: line in [str(n.source) for n in chat.query(ChatNotice)])
        return next(n.kind for n in chat.query(ChatNotice) if str(n.source) == line)


async def test_compact_that_compacts_nothing_says_why_in_the_chat(settings, project_dir):
    """It was a toast, gone in seconds: a person who looked away saw nothing happen."""
    await compact_and_read(settings, project_dir, NothingToCompact(), "Nothing compacted: "
                           "the turns before the last one are already short.")


class BrokenCompaction(FakeSession):
    async def compact_now(self, focus: str = "") -> ManualCompaction:
        raise OSError("No space left on device")


async def test_compact_that_fails_says_so_in_the_chat(settings, project_dir):
    """A /compact that raised said so in a toast only, gone in seconds while "Nothing
    compacted" stays in the chat. The failure is now a chat line too."""
    kind = await compact_and_read(settings, project_dir, BrokenCompaction(), "Compaction "
                                  "failed: No space left on device. The history is as it was.")
    assert kind == "error"
