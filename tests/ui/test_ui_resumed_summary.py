"""A reopened session whose older turns were summarised: the summary shows as what it is, the
program's acknowledgement after it is not shown as a reply of the model's, and the line under
the conversation says the count of the person's messages starts at the summary."""

from __future__ import annotations

import json

import pytest
from pilot_helpers import resumed_app, wait_resumed

from paicli_tui.core.context.summary import ACKNOWLEDGEMENT, rebuild
from paicli_tui.core.messages import Message, ToolCall
from paicli_tui.ui.widgets.assistant_block import AssistantBlock
from paicli_tui.ui.widgets.chat_archive import ArchivedBlocks
from paicli_tui.ui.widgets.chat_log import ChatLog
from paicli_tui.ui.widgets.compaction_notice import CompactionNotice
from paicli_tui.ui.widgets.notice import ChatNotice


def summarised_history(turns_after: int) -> list[Message]:
    """A day's session as its view is after a summary: system prompt, the summary, the
    acknowledgement, then ``turns_after`` turns kept word for word."""
    older = [Message.system("sys"), Message.user("first question of the morning"),
             Message.assistant("first answer")]
    view = rebuild(older, len(older), "## Goal\nMove config loading to TOML.")
    for n in range(1, turns_after + 1):
        call = ToolCall(f"c{n}", "read_file", json.dumps({"path": f"src/mod{n}.py"}))
        view += [Message.user(f"question {n}"), Message.assistant("Reading.", (call,)),
                 Message.tool(call.id, "read_file", "def f():\n    pass\n"),
                 Message.assistant(f"answer {n}")]
    return view


def archive_text(archive: ArchivedBlocks) -> str:
    return "\n".join(archive.render_line(y).text for y in range(archive.virtual_size.height))


@pytest.mark.parametrize("turns_after,folded", [(2, False), (40, True)])
async def test_a_restored_summary_reads_as_one_and_is_not_answered_by_the_model(
        settings, project_dir, turns_after, folded) -> None:
    """It showed "⇣ Older turns summarised: 0 → 0 tokens" (a summary of nothing) followed by
    a reply "Understood. I will continue from this summary…" that the model never wrote, and
    "· 2 messages from you" for a day of messages. With 40 turns after it the summary falls
    into the compact view, which showed the same acknowledgement as a reply."""
    app = resumed_app(settings, project_dir, summarised_history(turns_after))
    async with app.run_test(size=(80, 24)) as pilot:
        log = app.screen.query_one(ChatLog)
        await wait_resumed(pilot, log)
        await pilot.pause()
        replies = [b.text for b in log.query(AssistantBlock)]
        archives = list(log.query(ArchivedBlocks))
        assert bool(archives) is folded
        said = [t for a in archives for t in a.texts]
        assert ACKNOWLEDGEMENT not in replies + said
        if folded:
            first = archive_text(archives[0])
            assert "Older turns summarised before this session was reopened" in first
            assert "0 → 0" not in first
        else:
            notice = log.query_one(CompactionNotice)
            assert str(notice.title) == ("⇣ Older turns summarised before this session was "
                                         "reopened")
        notices = [str(n.source) for n in log.query(ChatNotice)]
        assert (f"Resumed session a1b2c3 · {turns_after} messages from you since the summary "
                "of the older turns.") in notices


async def test_a_resumed_session_without_a_summary_counts_plainly(settings, project_dir):
    app = resumed_app(settings, project_dir, [Message.system("sys"), Message.user("hi"),
                                              Message.assistant(ACKNOWLEDGEMENT)])
    async with app.run_test(size=(80, 24)) as pilot:
        log = app.screen.query_one(ChatLog)
        await wait_resumed(pilot, log)
        notices = [str(n.source) for n in log.query(ChatNotice)]
        assert "Resumed session a1b2c3 · 1 message from you." in notices
        # the same words written by the model, not after a summary, are its reply
        assert [b.text for b in log.query(AssistantBlock)] == [ACKNOWLEDGEMENT]
