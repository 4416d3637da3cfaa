"""A reopened session says which ``!command`` outputs wait to go with the next message.

Found in tmux: `!git status`, quit, `--resume`: the chat showed the conversation and nothing
else, while the next message silently carried the command's output to the model. A line
under the "Resumed session" one now names the commands and says where their output goes.
"""

from __future__ import annotations

import pytest
from pilot_helpers import wait_resumed
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.core.agent.shell_notes import ShellNote
from paicli_tui.core.messages import Message
from paicli_tui.ui.resume_hint import waiting_commands_line
from paicli_tui.ui.widgets.chat_log import ChatLog
from paicli_tui.ui.widgets.notice import ChatNotice


def _notes(*commands: str) -> list[ShellNote]:
    return [ShellNote(c, 0, "out") for c in commands]


@pytest.mark.parametrize(("commands", "line"), [
    ((), ""),
    (("git status",), "1 command you ran before quitting (`!git status`): its output goes "
                      "with your next message."),
    (("ls", "make\n  test"), "2 commands you ran before quitting (`!ls`, `!make test`): "
                             "their outputs go with your next message."),
    (("a", "b", "c", "d", "e"), "5 commands you ran before quitting (`!c`, `!d`, `!e` and 2 "
                                "more): their outputs go with your next message."),
])
def test_the_waiting_commands_line(commands, line) -> None:
    assert waiting_commands_line(_notes(*commands)) == line


async def test_a_resumed_session_names_the_commands_waiting(settings, project_dir) -> None:
    session = FakeSession(history=[Message.system("sys"), Message.user("hi"),
                                   Message.assistant("hello")])
    session.pending_shell = _notes("git status")
    backend = FakeBackend(settings, project_dir, session=session, client=FakeClient())
    app = PaicliApp(settings, project_dir, resume="a1b2c3", backend=backend)
    async with app.run_test(size=(80, 24)) as pilot:
        log = app.screen.query_one(ChatLog)
        await wait_resumed(pilot, log)
        notices = [str(n.source) for n in log.query(ChatNotice)]
        assert notices[-2:] == ["Resumed session a1b2c3 · 1 message from you.",
                                "1 command you ran before quitting (`!git status`): its "
                                "output goes with your next message."]
