"""A turn counts as running until its end is shown in the chat.

Found auditing the suite for timing: the turn's worker had stopped but the message saying
how it ended was still waiting its turn in the chat's queue, and for that moment the chat
took the turn as over. An Enter handled then started the next turn at once instead of
queueing the message, and the old turn's end, shown just after, hid the new turn's status
line and closed its reply while it ran. On a busy machine the moment is long enough to hit
(tests that waited for the turn to stop and then read its "Turn cancelled." notice failed
that way)."""

from __future__ import annotations

import asyncio

from pilot_helpers import session_started, wait_until
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.core.contracts import events as ev
from paicli_tui.ui.widgets.prompt_input import PromptInput


async def test_a_message_sent_as_a_turn_ends_goes_out_after_the_end_is_shown(
        settings, project_dir) -> None:
    """Enter handled between a turn's last step and the showing of its end: the message
    is queued, goes out once the end is shown, and the person sees the next turn's status
    line ("Sending the request …") for as long as it runs."""
    hold = asyncio.Event()
    session = FakeSession(script=[hold, ev.TextDelta("ok"), ev.AssistantMessage("ok"),
                                  ev.TurnFinished(session="s1", reason="done")])
    app = PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=session, client=FakeClient()))
    async with app.run_test(size=(80, 24)) as pilot:
        await session_started(pilot)
        chat = app.screen

        async def last_step():
            return
            yield

        # the person's Enter is in the chat's queue when the turn's worker ends
        chat.post_message(PromptInput.Submitted("the next question"))
        await chat.relay_events(last_step())  # posts how the turn ended, after the Enter
        assert chat.turn_running, "the end is not shown yet"
        await wait_until(pilot, lambda: [m.content for m in session.history]
                         == ["the next question"])
        assert chat.turn_running and chat.status.display, "the next turn's status line"
        hold.set()
        await wait_until(pilot, lambda: not chat.turn_running)
        shown = [str(u.render()) for u in chat.query("UserMessage")]
        assert shown == ["the next question"]
