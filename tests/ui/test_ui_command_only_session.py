"""A session of ``!commands`` only (the person never wrote to the model) is in the session
picker, named after its first command, and reopening it shows the commands.

Found by testers: the quit line said how to resume such a session, but /resume did not list
it (no message, no title: the list took it for a launch closed without a word)."""

from __future__ import annotations

from pilot_helpers import wait_for_screen, wait_until
from test_ui_core_session import ScriptedClient, make_app, send
from textual.widgets import OptionList

from paicli_tui.core.context.ledger import list_sessions
from paicli_tui.ui.modals.session_picker import SessionPicker
from paicli_tui.ui.widgets.notice import ChatNotice
from paicli_tui.ui.widgets.tool_block import ToolBlock

SIZE = (100, 30)


async def test_a_session_of_commands_only_is_listed_and_resumed(settings, project_dir):
    first = make_app(settings, project_dir, ScriptedClient([]))
    async with first.run_test(size=SIZE) as pilot:
        await send(pilot, "!echo hello")
        await wait_until(pilot, lambda: any(b.status == "done"
                                            for b in first.screen.query(ToolBlock)))
        ran = first.screen.session.session_id
        await first.workers.wait_for_complete()
    listed = {s.session_id: s.title for s in list_sessions(settings.home, project_dir)}
    assert listed == {ran: "!echo hello"}

    client = ScriptedClient([(["It printed hello."], [])])
    second = make_app(settings, project_dir, client)
    async with second.run_test(size=SIZE) as pilot:
        await send(pilot, "/resume")
        await wait_for_screen(pilot, SessionPicker)
        options = second.screen.query_one(OptionList)
        await wait_until(pilot, lambda: options.option_count == 1)
        title, holds = options.get_option_at_index(0).prompt.renderables
        assert str(title) == "!echo hello" and f" · only commands · {ran}" in str(holds)
        await pilot.press("enter")

        def notices() -> list[str]:
            return [str(n.source) for n in second.screen.query(ChatNotice)]

        await wait_until(pilot, lambda: any(n.startswith(f"Resumed session {ran}")
                                            for n in notices()), explain=notices)
        assert f"Resumed session {ran} · no message from you yet." in notices()  # not "0 messages"
        assert "1 command you ran before quitting (`!echo hello`): its output goes with " \
               "your next message." in notices()
        # the first words the person writes name the session instead of the command
        await send(pilot, "what did it print?")
        await wait_until(pilot, lambda: bool(client.requests))
        assert "<shell_output command=\"echo hello\"" in client.requests[0][-1].content
        await second.workers.wait_for_complete()
    assert [s.title for s in list_sessions(settings.home, project_dir)] == \
        ["what did it print?"]
