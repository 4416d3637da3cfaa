"""/plan in the TUI on the real core: the plan is shown in an editable dialog, the person
runs it, each task's progress appears in the chat, and the plan's turn joins the history."""

from __future__ import annotations

import json

from pilot_helpers import wait_for_screen, wait_until
from test_ui_core_session import ScriptedClient, make_app, send

from paicli_tui.core.messages import Message, Role
from paicli_tui.ui.modals.rules_draft import RulesDraftModal
from paicli_tui.ui.widgets.chat_log import ChatLog
from paicli_tui.ui.widgets.notice import ChatNotice

PLAN = json.dumps({"tasks": [
    {"id": "look", "title": "Look around", "task": "List the files.", "depends_on": []},
    {"id": "sum", "title": "Summarise", "task": "Say what is there.", "depends_on": ["look"]}]})


class PlanClient(ScriptedClient):
    """Plans on tool-less plan requests; every sub-agent answers at once."""

    async def stream(self, messages, tools=(), *, model=None):
        if not tools and messages[0].content.startswith("You plan work"):
            from paicli_tui.core.contracts.llm import StreamDone

            yield StreamDone(Message.assistant(PLAN), "stop")
            return
        async for event in super().stream(messages, tools, model=model):
            yield event


async def test_plan_reviewed_edited_and_run(settings, project_dir) -> None:
    client = PlanClient([(["look: two files"], []), (["sum: a small project"], [])])
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await send(pilot, "/plan describe this project")
        await wait_for_screen(pilot, RulesDraftModal)
        await pilot.press("ctrl+s")  # run the plan as proposed
        log = app.screen.query_one(ChatLog)

        def texts() -> str:
            return "\n".join(n.source for n in log.query(ChatNotice))

        await wait_until(pilot, lambda: "2 of 2 tasks done" in texts())
        assert "▶ look Look around" in texts() and "✓ sum: sum: a small project" in texts()
        history = app.screen.session.history
        assert history[-1].role is Role.ASSISTANT and "2 of 2 tasks done" in history[-1].content
        assert history[-2].content.endswith("/plan describe this project")


async def test_plan_rejected_with_escape_runs_nothing(settings, project_dir) -> None:
    client = PlanClient([])
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await send(pilot, "/plan do everything")
        await wait_for_screen(pilot, RulesDraftModal)
        await pilot.press("escape")
        log = app.screen.query_one(ChatLog)
        await wait_until(pilot, lambda: any("rejected" in n.source for n in log.query(ChatNotice)))
        assert not [r for r in client.requests if "working as a sub-agent" in r[0].content]
