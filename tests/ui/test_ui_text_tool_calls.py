"""A tool call the model wrote as text, in the chat: the streamed JSON gives way to the tool
block, and a warning says what happened (a person otherwise sees a JSON blob answer, then a
tool run nobody asked for)."""

from __future__ import annotations

from test_ui_chat import SIZE, make_app, send, wait_turn
from ui_fakes import FakeClient, FakeSession

from paicli_tui.core.contracts import events as ev
from paicli_tui.ui.widgets.chat_log import ChatLog
from paicli_tui.ui.widgets.notice import ChatNotice
from paicli_tui.ui.widgets.tool_block import ToolBlock

RAW = '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>'


async def test_the_written_call_becomes_a_tool_block_with_a_warning(settings, project_dir):
    script = [ev.TextDelta(RAW[:30]), ev.TextDelta(RAW[30:]),
              ev.AssistantMessage(content="", tool_call_ids=("call_text_1",)),
              ev.ToolCallsFromText(form="`<tool_call>` tags", names=("read_file",)),
              ev.ToolCallStarted(call_id="call_text_1", name="read_file",
                                 arguments='{"path": "a.py"}'),
              ev.ToolCallFinished(call_id="call_text_1", name="read_file", status="done",
                                  preview="print(1)", chars=8),
              ev.TextDelta("It prints 1."), ev.AssistantMessage(content="It prints 1."),
              ev.TurnFinished(session="s1", reason="done", final_text="It prints 1.")]
    app, _ = make_app(settings, project_dir, FakeSession(script=script), FakeClient())
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "what does a.py print?")
        await wait_turn(pilot)
        chat = app.screen.query_one(ChatLog)
        texts = [block.text for block in chat.query("AssistantBlock")]
        assert texts == ["It prints 1."], texts
        assert [block.tool_name for block in chat.query(ToolBlock)] == ["read_file"]
        warning = [n for n in chat.query(ChatNotice) if n.kind == "warning"]
        assert len(warning) == 1
        assert "wrote a tool call as text" in warning[0].source
        assert "read_file" in warning[0].source


async def test_words_around_the_call_stay(settings, project_dir):
    script = [ev.TextDelta("Let me look.\n" + RAW),
              ev.AssistantMessage(content="Let me look.", tool_call_ids=("call_text_1",)),
              ev.ToolCallsFromText(form="`<tool_call>` tags", names=("read_file",)),
              ev.TurnFinished(session="s1", reason="done")]
    app, _ = make_app(settings, project_dir, FakeSession(script=script), FakeClient())
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "look")
        await wait_turn(pilot)
        texts = [b.text for b in app.screen.query_one(ChatLog).query("AssistantBlock")]
        assert texts == ["Let me look."], texts
