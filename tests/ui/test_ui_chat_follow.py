"""The conversation follows its end: a block the program opens or folds (a denied or failed
tool call opening to show why, a finished sub-agent folding) must not pull the view back to
that block, live or when a session is resumed."""

from __future__ import annotations

from pilot_helpers import resumed_app, wait_resumed, wait_until
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.core.contracts import events as ev
from paicli_tui.core.messages import Message, ToolCall
from paicli_tui.ui.widgets.assistant_block import AssistantBlock
from paicli_tui.ui.widgets.chat_log import ChatLog
from paicli_tui.ui.widgets.tool_block import ToolBlock

DENIED = ("The person declined: create notes.txt (1 line). Nothing was changed. Do not try "
          "the same change again; ask the person how to proceed if it is needed.")


def at_the_end(log: ChatLog) -> bool:
    return log.max_scroll_y > 0 and log.scroll_y == log.max_scroll_y


def denied_turn(n: int) -> list[Message]:
    call = ToolCall(f"c{n}", "write_file", '{"path": "notes.txt", "content": "hello\\n"}')
    return [Message.user(f"write a note {n}"), Message.assistant("", (call,)),
            Message.tool(call.id, "write_file", DENIED, status="denied"),
            Message.assistant(f"Turn {n} is complete.")]


async def test_a_resumed_session_opens_at_its_end(settings, project_dir):
    """Found in tmux: `--resume` of a session with a denied write opened a page above its
    end (the denied call's block, opened to show why, was scrolled into view and the view
    stopped following), so the last reply and "Resumed session … · N messages from you"
    were below the screen. A person now sees the end of the conversation and that line."""
    history = [Message.system("sys")]
    for n in range(1, 4):
        history += denied_turn(n)
        history += [Message.user(f"question {n}"), Message.assistant(f"answer {n}\n\n" * 3)]
    app = resumed_app(settings, project_dir, history)
    async with app.run_test(size=(80, 24)) as pilot:
        log = app.screen.query_one(ChatLog)
        await wait_resumed(pilot, log)
        await wait_until(pilot, lambda: all(not b.collapsed for b in log.query(ToolBlock)))
        await pilot.pause(0.5)  # the opened blocks' scroll requests run after a refresh
        # a view pulled back stays there; the scroll to the end can take longer to come
        await wait_until(pilot, lambda: at_the_end(log), 30,
                         lambda: f"scroll_y={log.scroll_y} max={log.max_scroll_y}")
        resumed = log.children[-1]
        assert "Resumed session" in str(getattr(resumed, "source", ""))
        assert resumed.region.bottom <= log.region.bottom


async def test_a_denied_call_does_not_stop_the_view_following_the_reply(settings,
                                                                         project_dir):
    """Found in tmux: after a write was denied its block opened (to show why) and the
    reply the model wrote next stayed below the screen until PgDn. The person now sees
    the reply under the opened block, followed to its last line."""
    history = [Message.system("system")]
    for n in range(20):
        history += [Message.user(f"question {n}"), Message.assistant(f"answer {n}")]
    reply = "\n\n".join(f"reply line {n}" for n in range(10))
    script = [ev.ToolCallStarted(call_id="w1", name="write_file",
                                 arguments='{"path": "notes.txt"}'),
              ev.ToolCallFinished(call_id="w1", name="write_file", status="denied",
                                  preview="\n".join([DENIED] * 6)),
              ev.AssistantMessage(content="", tool_call_ids=("w1",)),
              ev.TextDelta(reply), ev.AssistantMessage(content=reply),
              ev.TurnFinished(session="s1", reason="done")]
    backend = FakeBackend(settings, project_dir,
                          session=FakeSession(history=history, script=script),
                          client=FakeClient())
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        log = app.screen.query_one(ChatLog)
        await pilot.press(*"write it", "enter")
        await wait_until(pilot, lambda: not app.screen.turn_running
                         and isinstance(log.children[-1], AssistantBlock))
        await pilot.pause(0.5)
        assert not log.query_one(ToolBlock).collapsed
        await wait_until(pilot, lambda: at_the_end(log))
        assert log.children[-1].region.bottom <= log.region.bottom


async def test_a_command_after_scrolling_up_shows_what_it_said(settings, project_dir):
    """Found in tmux: after PgUp to read back an hour of chat, /compact compacted (the gauge
    fell from 9.5k to 4.2k) but its notice was below the screen: nothing seemed to happen.
    A command, like a message, brings the conversation back to its end, so the person sees
    "Older turns summarised: … tokens" under the last reply."""
    from paicli_tui.ui.widgets.compaction_notice import CompactionNotice

    history = [Message.system("system")]
    for n in range(30):
        history += [Message.user(f"question {n}"), Message.assistant(f"answer {n}")]
    backend = FakeBackend(settings, project_dir, session=FakeSession(history=history),
                          client=FakeClient())
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        log = app.screen.query_one(ChatLog)
        await wait_until(pilot, lambda: at_the_end(log))
        await pilot.press("pageup", "pageup")
        await wait_until(pilot, lambda: log.scroll_y < log.max_scroll_y - 20)
        await pilot.press(*"/compact", "enter")
        await wait_until(pilot, lambda: bool(log.query(CompactionNotice)))
        await wait_until(pilot, lambda: at_the_end(log))
        notice = log.query_one(CompactionNotice)
        assert log.region.y <= notice.region.y and notice.region.bottom <= log.region.bottom
