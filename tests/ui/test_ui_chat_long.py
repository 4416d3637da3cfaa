"""Hours of chat: the conversation keeps its newest blocks as live widgets and folds older
ones into a compact view, so adding a message does not get slower with every message
(Textual lays out every widget again when one is added: a chat of a few hundred blocks
took seconds per exchange). Nothing the person or the model wrote leaves the screen."""

from __future__ import annotations

import json

import pytest
from pilot_helpers import resumed_app, wait_resumed, wait_until
from textual.app import App, ComposeResult
from ui_scenarios import settle

from paicli_tui.core.messages import Message, ToolCall
from paicli_tui.resources import style_paths
from paicli_tui.ui.widgets.assistant_block import AssistantBlock
from paicli_tui.ui.widgets.chat_archive import ArchivedBlocks
from paicli_tui.ui.widgets.chat_log import FOLD_BATCH, LIVE_BLOCKS, ChatLog
from paicli_tui.ui.widgets.tool_block import ToolBlock
from paicli_tui.ui.widgets.user_message import UserMessage


class ChatOnly(App[None]):
    CSS_PATH = [str(p) for p in style_paths()]

    def __init__(self, **chat: object) -> None:
        super().__init__()
        self.chat_options = chat

    def compose(self) -> ComposeResult:
        yield ChatLog(id="chat", **self.chat_options)  # type: ignore[arg-type]


async def exchange(chat: ChatLog, k: int, *, finish: bool = True) -> ToolBlock:
    """Four blocks: the person's message, two tool calls, the reply."""
    await chat.add_user(f"message {k}: 请检查 mod{k} 的重试逻辑")
    block = None
    for j in range(2):
        block = await chat.add_tool(f"c{k}_{j}", "read_file", json.dumps({"path": f"m{k}.py"}))
        if finish or j == 0:
            block.finish("done", "def f():\n    pass\n", chars=40)
    reply = await chat.assistant()
    await reply.set_text(f"reply {k}\n\n```python\nx = {k}\n```")
    await chat.end_assistant()
    assert block is not None
    return block


async def filled(app: App, pilot, exchanges: int, start: int = 0) -> ChatLog:
    """The app's chat after ``exchanges`` exchanges (numbered from ``start``)."""
    chat = app.query_one(ChatLog)
    for k in range(start, start + exchanges):
        await exchange(chat, k)
    await pilot.pause()
    return chat


def live(chat: ChatLog) -> list:
    return [c for c in chat.children if not isinstance(c, ArchivedBlocks)]


def everything_said(chat: ChatLog) -> list[str]:
    """The person's messages and the replies, in order: folded ones, then live ones."""
    out: list[str] = []
    for child in chat.children:
        if isinstance(child, ArchivedBlocks):
            out += child.texts
        elif isinstance(child, UserMessage):
            out.append(str(child.content))
        elif isinstance(child, AssistantBlock):
            out.append(child.text)
    return out


# exchanges → (live blocks, compact-view batches, blocks folded), LIVE_BLOCKS 80 and
# FOLD_BATCH 30: before each message is added, while more than 80 are live, the oldest 30
# are folded (then the 4 blocks of the exchange come)
FOLDING = [(10, 40, 0, 0), (21, 84, 0, 0), (22, 58, 1, 30), (60, 60, 6, 180)]


@pytest.mark.parametrize(("exchanges", "kept", "batches", "folded"), FOLDING)
async def test_the_chat_keeps_a_bounded_number_of_live_blocks(exchanges, kept, batches,
                                                               folded) -> None:
    assert (LIVE_BLOCKS, FOLD_BATCH) == (80, 30)
    app = ChatOnly()
    async with app.run_test(size=(100, 30)) as pilot:
        chat = await filled(app, pilot, exchanges)
        archives = [c for c in chat.children if isinstance(c, ArchivedBlocks)]
        assert (len(live(chat)), len(archives), chat.folded) == (kept, batches, folded)
        assert sum(a.count for a in archives) == folded
        # the tool blocks the chat still looks up are only the live ones
        assert len(chat.tool_blocks) == sum(isinstance(c, ToolBlock) for c in live(chat))
        expected = [t for k in range(exchanges) for t in
                    (f"message {k}: 请检查 mod{k} 的重试逻辑", f"reply {k}\n\n```python\nx = {k}\n```")]
        assert everything_said(chat) == expected


async def test_folded_blocks_are_rendered_once_not_on_every_addition(monkeypatch) -> None:
    """The layout asks every widget its height on each addition: the compact view answers
    from text it rendered once for its width, so its replies' Markdown is not rendered
    again for every new message (it was, and a folded chat still slowed down)."""
    from rich.markdown import Markdown as RichMarkdown

    renders = []
    original = RichMarkdown.__rich_console__

    def counting(self, console, options):
        renders.append(self)
        yield from original(self, console, options)

    monkeypatch.setattr(RichMarkdown, "__rich_console__", counting)
    app = ChatOnly()
    async with app.run_test(size=(100, 30)) as pilot:
        chat = await filled(app, pilot, 22)
        (archive,) = [c for c in chat.children if isinstance(c, ArchivedBlocks)]
        once = len(renders)
        assert once == 7 and archive.renders == 1  # the 7 replies among its 30 blocks
        for k in range(22, 27):  # 20 blocks more, none folded
            await exchange(chat, k)
            await pilot.pause()
        chat.scroll_home(animate=False)
        await pilot.pause()
        assert (len(renders), archive.renders, chat.folded) == (once, 1, 30)


async def test_without_a_bound_every_block_stays_a_widget() -> None:
    """The benchmark's "before": ``live_blocks=None`` keeps all (and the count shows why
    it was slow: every block is laid out again on each addition)."""
    app = ChatOnly(live_blocks=None)
    async with app.run_test(size=(100, 30)) as pilot:
        chat = await filled(app, pilot, 25)
        assert len(chat.children) == 100 and chat.folded == 0


async def test_a_block_still_at_work_stays_live_in_its_place() -> None:
    """A tool call still running when folding comes is never folded (its block must still
    receive its result); the finished blocks around it are, in order."""
    app = ChatOnly()
    async with app.run_test(size=(100, 30)) as pilot:
        running = await exchange(app.query_one(ChatLog), 0, finish=False)
        chat = await filled(app, pilot, 39, start=1)
        assert running.status == "running" and running.parent is chat
        assert chat.tool_blocks["c0_1"] is running
        assert chat.find_tool("c0_1") is running
        before = chat.children[:chat.children.index(running)]
        after = chat.children[chat.children.index(running) + 1:]
        assert isinstance(before[-1], ArchivedBlocks) and isinstance(after[0], ArchivedBlocks)
        assert everything_said(chat)[:2] == ["message 0: 请检查 mod0 的重试逻辑",
                                             "reply 0\n\n```python\nx = 0\n```"]


async def test_nothing_is_folded_while_the_person_reads_further_up() -> None:
    """Scrolled up to read, the view stays on what the person reads: a long turn adds
    blocks but folds nothing until they send a message (the view then goes to the end)."""
    app = ChatOnly()
    async with app.run_test(size=(100, 30)) as pilot:
        chat = await filled(app, pilot, 20)
        chat.scroll_to(y=chat.max_scroll_y // 2, animate=False)
        await pilot.pause()
        reading = chat.scroll_y
        for j in range(60):  # one long turn: many tool calls
            block = await chat.add_tool(f"long{j}", "grep", "{}")
            block.finish("done", "hit", chars=3)
        await pilot.pause()
        assert chat.folded == 0 and chat.scroll_y == reading
        await chat.add_user("next")
        await pilot.pause()
        assert chat.folded == 60 and len(live(chat)) == LIVE_BLOCKS + 1


def long_history(turns: int) -> list[Message]:
    history = [Message.system("sys")]
    for n in range(1, turns + 1):
        call = ToolCall(f"c{n}", "read_file", json.dumps({"path": f"src/mod{n}.py"}))
        history += [Message.user(f"question {n}: why does mod{n} retry twice?"),
                    Message.assistant(f"Reading `src/mod{n}.py`.", (call,)),
                    Message.tool(call.id, "read_file", "def retry():\n    pass\n"),
                    Message.assistant(f"**Answer {n}**: it retries in `send()`:\n\n"
                                      f"- attempt 1\n- attempt 2\n")]
    return history


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
def test_snapshot_the_top_of_a_long_resumed_session(size, snap_compare, settings,
                                                    stable_project) -> None:
    """A resumed session of 30 turns (120 blocks), scrolled to its top. A person sees a dim
    dotted rule "earlier · 30 blocks in compact form", then the first turns as text: the
    question in bold, each tool call as its dim title line (✓ read_file src/mod1.py ·
    done), the answer as Markdown (bold "Answer 1", a bulleted list); no folded blocks to
    open up there. The input and the gauge are at the bottom as usual."""
    app = resumed_app(settings, stable_project, long_history(30))

    async def to_the_top(pilot) -> None:
        log = app.screen.query_one(ChatLog)
        await wait_until(pilot, lambda: log.folded > 0)
        await settle(pilot, 4)
        log.scroll_home(animate=False)
        await settle(pilot, 2)

    assert snap_compare(app, terminal_size=size, run_before=to_the_top)


async def test_a_long_resumed_session_draws_its_older_part_without_widgets(
        settings, project_dir, monkeypatch) -> None:
    """Opening a resumed session of 100 turns (400 blocks) made and styled every block's
    widgets before folding the older ones (11-15 s of CPU). The older part is now drawn
    straight into the compact view: only the newest turns become widgets, and every
    question and answer is still there, in order, with "No reply" where a turn got none."""
    made = []
    original = UserMessage.__init__

    def counting(self, text):
        made.append(text)
        original(self, text)

    monkeypatch.setattr(UserMessage, "__init__", counting)
    history = long_history(100)
    history.insert(5, Message.user("a question that got no reply"))
    app = resumed_app(settings, project_dir, history)
    async with app.run_test(size=(100, 30)) as pilot:
        log = app.screen.query_one(ChatLog)
        await wait_resumed(pilot, log)
        said = everything_said(log)
        questions = [m.content for m in history if m.role.value == "user"]
        answers = [m.content for m in history if m.role.value == "assistant" and m.content]
        assert [t for t in said if t in questions] == questions
        assert [t for t in said if t in answers] == answers
        assert len(made) == 20 and len(live(log)) <= LIVE_BLOCKS + 2
        archives = [c for c in log.children if isinstance(c, ArchivedBlocks)]
        assert log.folded == sum(a.count for a in archives) == 322
        first = archives[0].render_line(0).text + "".join(
            "\n" + archives[0].render_line(y).text for y in range(1, 30))
        assert "No reply: that turn was cancelled or failed." in first
        assert "✓ read_file path=src/mod1.py · done" in first
