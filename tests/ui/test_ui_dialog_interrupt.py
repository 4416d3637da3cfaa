"""Ctrl+C in a dialog the running turn opened cancels the turn, as Ctrl+C does in the chat.

Found in tmux: Ctrl+C with the approval dialog up only said how to quit (Ctrl+Q); the turn
went on waiting for an answer. Now the pending question is answered no (nothing it asked
about runs) and the turn is cancelled, with a notice saying so.
"""

from __future__ import annotations

import asyncio

import pytest
from pilot_helpers import wait_for_screen, wait_until
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.core.contracts import events as ev
from paicli_tui.core.contracts.asks import (
    ApprovalRequest,
    ConflictEntry,
    ConflictRequest,
    SummaryConsentRequest,
)
from paicli_tui.ui.modals.approval import ApprovalModal
from paicli_tui.ui.modals.conflict import ConflictModal
from paicli_tui.ui.modals.help import HelpScreen
from paicli_tui.ui.modals.summary_consent import SummaryConsentModal
from paicli_tui.ui.widgets.notice import ChatNotice
from paicli_tui.ui.widgets.tool_block import ToolBlock


async def _approval(session: FakeSession) -> object:
    return await session.approve(ApprovalRequest(
        "execute_command", "run: rm -rf build", "$ rm -rf build", call_id="c1"))


async def _conflict(session: FakeSession) -> object:
    return await session.resolve_conflict(ConflictRequest(
        "the build uses make", (ConflictEntry("m1", "the build uses ninja"),)))


async def _summary(session: FakeSession) -> object:
    return await session.ask_summary(SummaryConsentRequest(
        tokens=96_000, window=128_000, compaction_trigger=95_000, hard_limit=110_000,
        keep_user_turns=1))


def _asking_app(settings, project_dir, ask, answers: list,
                hold: asyncio.Event | None = None) -> PaicliApp:
    """A turn that asks with ``ask``, then (with ``hold``) goes on until it is set."""
    async def step(session: FakeSession) -> ev.AgentEvent:
        answers.append(await ask(session))
        return ev.ToolCallFinished("c1", "execute_command", "done", "ran")

    script = [ev.ToolCallStarted("c1", "execute_command", '{"command": "rm -rf build"}'),
              step, *([hold] if hold else []), ev.TurnFinished(session="s1", reason="done")]
    return PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=FakeSession(script=script), client=FakeClient()))


@pytest.mark.parametrize(("ask", "dialog"), [
    (_approval, ApprovalModal), (_conflict, ConflictModal), (_summary, SummaryConsentModal),
])
async def test_ctrl_c_in_the_turns_dialog_cancels_the_turn(settings, project_dir, ask, dialog):
    answers: list = []
    app = _asking_app(settings, project_dir, ask, answers)
    async with app.run_test(size=(80, 24)) as pilot:
        chat = app.screen
        await wait_until(pilot, lambda: chat.session is not None)
        await pilot.press(*"go", "enter")
        await wait_for_screen(pilot, dialog)
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not chat.turn_running)
        assert app.screen is chat
        assert answers == []  # the turn stopped at the question: nothing ran after it
        # said once the turn has ended: a moment later on a busy machine
        await wait_until(pilot, lambda: "Turn cancelled." in [str(n.source) for n
                                                              in chat.query(ChatNotice)])
        toasts = [n.message for n in app._notifications]
        assert any("Turn cancelled (Ctrl+C)" in t for t in toasts)
        assert not any("to quit" in t for t in toasts)
        if dialog is ApprovalModal:  # the command was never run: denied, not "failed"
            assert chat.query_one(ToolBlock).status == "denied"


@pytest.mark.parametrize(("ask", "dialog"), [
    (_approval, ApprovalModal), (_conflict, ConflictModal), (_summary, SummaryConsentModal),
])
async def test_the_status_line_names_ctrl_c_while_the_turns_dialog_is_open(
        settings, project_dir, ask, dialog):
    """Found in tmux: under the approval dialog the line said 'Esc to interrupt', and Esc
    there denied the command while the turn went on."""
    answers: list = []
    hold = asyncio.Event()
    app = _asking_app(settings, project_dir, ask, answers, hold)
    async with app.run_test(size=(80, 24)) as pilot:
        chat = app.screen
        await wait_until(pilot, lambda: chat.session is not None)
        await pilot.press(*"go", "enter")
        await wait_for_screen(pilot, dialog)
        assert chat.status.line().plain.endswith(" s · Ctrl+C to interrupt")
        await pilot.press("escape")  # answers the dialog (no / not yet / cancel)
        await wait_until(pilot, lambda: len(answers) == 1)
        assert chat.turn_running  # the turn goes on, and Esc stops it again
        assert chat.status.line().plain.endswith(" s · Esc to interrupt")
        hold.set()
        await wait_until(pilot, lambda: not chat.turn_running)


async def test_ctrl_c_in_a_dialog_the_person_opened_keeps_the_quit_hint(settings,
                                                                        project_dir):
    """No turn asked: Ctrl+C there is not an interrupt (the help stays, the quit hint shows:
    before, a dialog showed nothing at all)."""
    app = PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=FakeSession(), client=FakeClient()))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        await pilot.press("f1")
        await wait_for_screen(pilot, HelpScreen)
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: bool(app._notifications))
        assert isinstance(app.screen, HelpScreen)
        assert any("Press Ctrl+C again or Ctrl+Q to quit." in n.message for n in app._notifications)
