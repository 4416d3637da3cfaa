"""A dialog that opens while the person types takes none of their keys as an answer.

Found in tmux: typing "… about the yaml config any ideas" while the agent worked, the
approval dialog opened under the fingers: the `y` of "yaml" approved `touch late_file.txt`
(it ran) and the word lost its letters. The dialog now answers only once the keyboard has
been quiet for a moment after it opened; what was typed before that goes on into the input.
"""

from __future__ import annotations

import asyncio

import pytest
from pilot_helpers import wait_for_screen, wait_until
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.core.contracts import events as ev
from paicli_tui.core.contracts.asks import ApprovalRequest
from paicli_tui.ui.modals.approval import ApprovalModal
from paicli_tui.ui.widgets.prompt_input import PromptInput

ARMING_IN_TESTS_S = 3.0
"""Longer than the real half second: on a loaded CI machine more than 0.5 s can pass between
the dialog opening and the test's next key, which the dialog rightly reads as a person who
stopped to read (CI saw the `y` of "yaml" approve). The rule under test is the same."""


@pytest.fixture(autouse=True)
def arming(monkeypatch):
    """A real delay (the other UI tests press keys as someone who has read the dialog)."""
    from paicli_tui.ui.modals.quiet_start import QuietStart

    monkeypatch.setattr(QuietStart, "ARM_AFTER_S", ARMING_IN_TESTS_S)


def asking_app(settings, project_dir, decisions: list,
               hold: asyncio.Event | None = None) -> PaicliApp:
    async def ask(session: FakeSession) -> ev.AgentEvent:
        decision = await session.approve(ApprovalRequest(
            "execute_command", "run: touch late_file.txt", "$ touch late_file.txt",
            call_id="c1"))
        decisions.append(decision.value)
        return ev.ToolCallFinished("c1", "execute_command", "done", f"decision {decision}")

    script = [ev.ToolCallStarted("c1", "execute_command", '{"command": "touch late_file.txt"}'),
              hold or asyncio.Event(), ask, ev.TurnFinished(session="s1", reason="done")]
    return PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=FakeSession(script=script), client=FakeClient()))


def asks_at_once() -> asyncio.Event:
    """The model's question comes as soon as the message is sent."""
    model_asks = asyncio.Event()
    model_asks.set()
    return model_asks


async def send_and_wait_armed(pilot, app: PaicliApp) -> ApprovalModal:
    """Send a message, and wait for the dialog it brings to take keys."""
    await wait_until(pilot, lambda: app.screen.session is not None)
    await pilot.press(*"go", "enter")
    await wait_for_screen(pilot, ApprovalModal)
    dialog = app.screen
    await wait_until(pilot, lambda: dialog.armed)
    return dialog


async def test_keys_typed_as_the_dialog_opens_go_to_the_message(settings, project_dir):
    decisions: list[str] = []
    model_asks = asyncio.Event()
    app = asking_app(settings, project_dir, decisions, model_asks)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        await pilot.press(*"go", "enter")
        prompt = app.screen.query_one(PromptInput)
        await pilot.press(*"about the ")
        model_asks.set()
        await wait_for_screen(pilot, ApprovalModal)
        await pilot.press(*"yaml config, any ideas", "enter")
        await pilot.pause(0.2)
        assert isinstance(app.screen, ApprovalModal) and decisions == []
        assert prompt.text == "about the yaml config, any ideas"
        await wait_until(pilot, lambda: app.screen.armed)  # the person stops and reads
        await pilot.press("n")
        await wait_until(pilot, lambda: decisions == ["deny"])


async def test_a_quick_second_y_does_not_answer_the_next_dialog(settings, project_dir):
    """Two questions in a row: `y y` meant for the first (a double press) left the second
    approved before it was read. The second dialog waits for a quiet keyboard too."""
    decisions: list[str] = []
    app = asking_app(settings, project_dir, decisions, asks_at_once())
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await send_and_wait_armed(pilot, app)
        await pilot.press("y")
        await wait_until(pilot, lambda: decisions == ["once"])
        chat = app.screen

        async def again() -> None:
            decisions.append((await chat.approve(ApprovalRequest(
                "execute_command", "run: rm -rf build", call_id="c2"))).value)

        chat.run_worker(again(), exclusive=False)
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalModal)
                         and app.screen is not dialog)
        await pilot.press("y")
        await pilot.pause(0.2)
        assert decisions == ["once"] and isinstance(app.screen, ApprovalModal)
        await wait_until(pilot, lambda: app.screen.armed)  # read, then answered
        await pilot.press("n")
        await wait_until(pilot, lambda: decisions == ["once", "deny"])


async def test_the_agents_other_questions_wait_for_a_quiet_keyboard_too(settings, project_dir):
    """The memory conflict the agent's save_memory raises (`r` replaces a memory: the `r` of
    "really") and the question before a summary (`s` summarises now: "sounds good") open
    by themselves as well: keys typed as they open go into the message."""
    from paicli_tui.core.contracts.asks import (
        ConflictEntry,
        ConflictRequest,
        SummaryConsentRequest,
    )
    from paicli_tui.ui.modals.conflict import ConflictModal
    from paicli_tui.ui.modals.summary_consent import SummaryConsentModal

    answers: list[str] = []
    gate = asyncio.Event()

    async def conflict(session: FakeSession) -> None:
        decision, _ = await session.resolve_conflict(ConflictRequest(
            "Tests run with unittest", (ConflictEntry("m1", "Tests run with pytest"),)))
        answers.append(decision.value)

    async def summary(session: FakeSession) -> None:
        await gate.wait()
        answers.append((await session.ask_summary(SummaryConsentRequest(
            tokens=96_000, compaction_trigger=95_000, hard_limit=110_000, window=128_000,
            keep_user_turns=1))).value)

    script = [asyncio.Event(), conflict, summary, ev.TurnFinished(session="s1", reason="done")]
    app = PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=FakeSession(script=script), client=FakeClient()))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        await pilot.press(*"go", "enter")
        prompt = app.screen.query_one(PromptInput)
        script[0].set()
        await wait_for_screen(pilot, ConflictModal)
        await pilot.press(*"really?")
        await wait_until(pilot, lambda: prompt.text == "really?")  # a loaded machine is slow
        assert answers == []
        await wait_until(pilot, lambda: app.screen.armed)  # the person stops and reads
        await pilot.press("c")
        await wait_until(pilot, lambda: answers == ["cancel"])
        await pilot.press("ctrl+u")
        gate.set()
        await wait_for_screen(pilot, SummaryConsentModal)
        await pilot.press(*"sounds good")
        await wait_until(pilot, lambda: prompt.text == "sounds good")
        assert answers == ["cancel"]
        await wait_until(pilot, lambda: app.screen.armed)
        await pilot.press("n")
        await wait_until(pilot, lambda: answers == ["cancel", "not_yet"])


async def test_a_key_pressed_before_the_dialog_armed_and_read_after_is_typing(settings,
                                                                               project_dir):
    """Found in tmux while an index built: keys typed on time waited in the app's queue while
    the arming timer ran out, and the `y` of "yes", read after the dialog armed, approved
    `touch late_file.txt`. A key pressed before the dialog armed goes into the message
    however late it is read, and the dialog waits for a quiet keyboard again."""
    from textual import events

    decisions: list[str] = []
    app = asking_app(settings, project_dir, decisions, asks_at_once())
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await send_and_wait_armed(pilot, app)
        prompt = app.screen_stack[-2].query_one(PromptInput)  # the chat, under the dialog
        late = events.Key("y", "y")
        late.time = dialog.armed_at - 0.2  # pressed while it waited, read after it armed
        app.post_message(late)
        await wait_until(pilot, lambda: decisions or prompt.text == "y")
        assert decisions == [] and app.screen is dialog and not dialog.armed
        await wait_until(pilot, lambda: dialog.armed)  # quiet again: now it answers
        await pilot.press("n")
        await wait_until(pilot, lambda: decisions == ["deny"])


async def test_a_paste_as_the_dialog_opens_goes_into_the_message(settings, project_dir):
    """Found in tmux: text pasted as the approval dialog appeared (it has no field to take
    it) vanished, neither in the dialog nor in the message. It goes into the message, while
    the dialog waits for a quiet keyboard and once it answers keys."""
    from textual import events

    decisions: list[str] = []
    app = asking_app(settings, project_dir, decisions, asks_at_once())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        prompt = app.screen.query_one(PromptInput)
        await pilot.press(*"go", "enter")
        await wait_for_screen(pilot, ApprovalModal)
        dialog = app.screen
        app.post_message(events.Paste("see 粘贴的文字, yes"))
        await wait_until(pilot, lambda: prompt.text == "see 粘贴的文字, yes", 30,
                         lambda: prompt.text)
        await wait_until(pilot, lambda: dialog.armed)
        app.post_message(events.Paste(" and more"))
        await wait_until(pilot, lambda: prompt.text == "see 粘贴的文字, yes and more", 30,
                         lambda: prompt.text)
        assert decisions == [] and app.screen is dialog
        await pilot.press("n")
        await wait_until(pilot, lambda: decisions == ["deny"])
