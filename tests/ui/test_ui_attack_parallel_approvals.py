"""Approvals asked at the same moment are shown one at a time.

Plan tasks and `run_subagent` calls run in parallel (three at a time), each with write and
command tools, so two approvals can be asked within the same instant. Each was pushed as its
own dialog: the second covered the first while the person was reading it, and the key they
pressed for the first (y) approved the second — another command, unseen. Now a second
question waits until the first is answered. What a person sees: one "Allow …?" dialog; after
answering it, the next one.
"""

from __future__ import annotations

import asyncio

from pilot_helpers import wait_until
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.core.contracts.asks import ApprovalDecision, ApprovalRequest
from paicli_tui.ui.modals.approval import ApprovalModal


def dialogs(app: PaicliApp) -> list[ApprovalModal]:
    return [screen for screen in app.screen_stack if isinstance(screen, ApprovalModal)]


async def test_two_approvals_at_once_are_asked_one_after_the_other(settings,
                                                                   project_dir) -> None:
    app = PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=FakeSession(), client=FakeClient()))
    harmless = ApprovalRequest("execute_command", "run: make test", call_id="a")
    dangerous = ApprovalRequest("execute_command", "run: rm -rf ~", call_id="b")
    answers: dict[str, ApprovalDecision] = {}
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        chat = app.screen

        async def ask(request: ApprovalRequest) -> None:
            answers[request.summary] = await chat.approve(request)

        async def both() -> None:
            await asyncio.gather(ask(harmless), ask(dangerous))

        chat.run_worker(both(), exclusive=False)
        await wait_until(pilot, lambda: len(dialogs(app)) >= 1)
        await pilot.pause(0.2)  # the second question has been asked by now
        assert [d.request.summary for d in dialogs(app)] == ["run: make test"]
        await pilot.press("y")  # meant for the dialog on screen
        await wait_until(pilot, lambda: [d.request.summary for d in dialogs(app)]
                         == ["run: rm -rf ~"])
        await pilot.press("n")
        await wait_until(pilot, lambda: len(answers) == 2)
    assert answers == {"run: make test": ApprovalDecision.ONCE,
                       "run: rm -rf ~": ApprovalDecision.DENY}
