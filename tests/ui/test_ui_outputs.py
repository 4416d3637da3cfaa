"""Commands that take something out of the session: /copy puts the model's last answer on the
clipboard and says how much it copied, or that there is nothing to copy."""

from __future__ import annotations

import pytest
from pilot_helpers import wait_until
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.core.messages import Message, ToolCall
from paicli_tui.ui.widgets.chat_log import ChatLog
from paicli_tui.ui.widgets.notice import ChatNotice
from paicli_tui.ui.widgets.prompt_input import PromptInput

SIZE = (100, 30)


def make_app(settings, project, history=()):
    backend = FakeBackend(settings, project, session=FakeSession(history=history),
                          client=FakeClient())
    return PaicliApp(settings, project, backend=backend)


def notices(app) -> list[str]:
    return [str(n.source) for n in app.screen.query_one(ChatLog).query(ChatNotice)]


async def send(pilot, text: str) -> None:
    await wait_until(pilot, lambda: getattr(pilot.app.screen, "session", None) is not None)
    pilot.app.screen.query_one(PromptInput).load_text(text)
    await pilot.press("enter")


ANSWERED = [
    Message.user("why does it crash?"),
    Message.assistant("First answer."),
    Message.user("and the fix?"),
    Message.assistant("", tool_calls=[ToolCall("c1", "read_file", '{"path": "a.py"}')]),
    Message.tool("c1", "read_file", "x = 1", status="done"),
    Message.assistant("Line one\nLine two\n修复：line three"),
    # a reply that only calls tools is not the answer
    Message.assistant("", tool_calls=[ToolCall("c2", "read_file", '{"path": "b.py"}')]),
    Message.tool("c2", "read_file", "y = 2", status="done"),
]


@pytest.mark.parametrize(("history", "copied", "said"), [
    (ANSWERED, "Line one\nLine two\n修复：line three",
     "Copied the last answer to the clipboard: 3 lines, 31 characters."),
    (ANSWERED[:2], "First answer.",
     "Copied the last answer to the clipboard: 1 line, 13 characters."),
    ([], None, "Nothing to copy: the model has not answered yet in this conversation."),
    (ANSWERED[:1], None, "Nothing to copy: the model has not answered yet in this "
                         "conversation."),
])
async def test_copy_puts_the_last_answer_on_the_clipboard(settings, project_dir, history,
                                                          copied, said) -> None:
    app = make_app(settings, project_dir, history)
    taken: list[str] = []
    app.copy_to_clipboard = taken.append
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/copy")
        await wait_until(pilot, lambda: any(said in n for n in notices(app)))
        assert taken == ([copied] if copied is not None else [])
