"""Code in the conversation: a code line wider than the screen wraps, nothing is cut; an
error is said in words, not shown as code."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from pilot_helpers import wait_until
from textual.geometry import Region
from textual.widgets import Label
from textual.widgets.markdown import MarkdownFence
from ui_fakes import FakeBackend, FakeClient, FakeCode, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.core.contracts import events as ev

COMMAND = ("python -m pip install --upgrade --index-url https://mirrors.example.com/pypi/simple "
           "some-package==1.2.3 && echo done-with-it")
REPLY = f"Run this:\n\n```sh\n{COMMAND}\n```\n\nThen check."


@contextlib.asynccontextmanager
async def after_the_turn(settings, project_dir, script: list, *, size=(80, 24),
                         shows: type | None = None, seconds: float = 30.0):
    """The pilot of the app at ``size`` once a turn playing ``script`` has ended, with a
    ``shows`` on the screen (when given)."""
    backend = FakeBackend(settings, project_dir, session=FakeSession(script=script),
                          client=FakeClient())
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        await pilot.press(*"go on", "enter")
        await wait_until(pilot, lambda: not app.screen.turn_running
                         and (shows is None or bool(app.screen.query(shows))), seconds)
        await pilot.pause(0.3)
        yield pilot


def replied(settings, project_dir, size, reply: str, shows: type):
    """The pilot once ``reply`` (one answer) is on the screen with a ``shows``."""
    script = [ev.TextDelta(reply), ev.AssistantMessage(content=reply),
              ev.TurnFinished(session="s1", reason="done")]
    return after_the_turn(settings, project_dir, script, size=size, shows=shows)


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_a_long_code_line_in_a_reply_wraps(settings, project_dir, size):
    """Found in tmux: a reply's shell command longer than the screen was cut at its right
    edge ("…--index-url https://m" at 60 columns), with no marker and no way to see the
    rest: a person would copy a broken command. As in Claude Code and Codex, the line now
    wraps inside the code block; every character of it is on the screen."""
    async with replied(settings, project_dir, size, REPLY, MarkdownFence) as pilot:
        app = pilot.app
        fence = app.screen.query_one(MarkdownFence)
        code = fence.query_one(Label)
        assert code.region.right <= fence.region.right
        width, height = code.outer_size  # with its padding
        lines = [strip.text for strip in code.render_lines(Region(0, 0, width, height))]
        shown = "".join(line.strip() for line in lines)
        assert shown.replace(" ", "") == COMMAND.replace(" ", "")
        assert sum(1 for line in lines if line.strip()) >= 2  # wrapped


TABLE = ("Here is a comparison:\n\n| 语言 | Typing | 速度 |\n|---|---|---|\n"
         "| Python | dynamic | slow-ish |\n| 中文名字很长的一种语言 | gradual | medium |\n")
WIDE_TABLE = TABLE + ("| Go | static | a cell long enough that the table cannot fit the screen "
                      "at sixty or eighty columns |\n")


async def table_widths(settings, project_dir, size, reply: str) -> tuple[list[int], int]:
    """The first row's cell widths of the table in ``reply``, and the conversation's
    width; every cell is checked to end inside the conversation."""
    from textual.widgets._markdown import MarkdownTableContent

    async with replied(settings, project_dir, size, reply, MarkdownTableContent) as pilot:
        app = pilot.app
        table = app.screen.query_one(MarkdownTableContent)
        log = app.screen.query_one("ChatLog")
        assert all(cell.region.right <= log.region.right for cell in table.children)
        return [cell.outer_size.width for cell in table.children][:3], log.content_size.width


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_a_markdown_table_is_as_wide_as_its_cells(settings, project_dir, size):
    """Found in tmux: a three-column table took the whole width, its first column 39 cells
    for 22 of content (中文名字很长的一种语言). A person now sees each column as wide as
    its widest cell plus its padding (24, 9, 10 cells), nothing cut; a table too wide for
    the screen still shrinks to fit it (its cells wrap)."""
    widths, _ = await table_widths(settings, project_dir, size, TABLE)
    assert widths == [24, 9, 10]
    widths, room = await table_widths(settings, project_dir, size, WIDE_TABLE)
    assert sum(widths) + 4 <= room


async def test_graph_without_an_index_says_so_in_words(settings, project_dir):
    """Found in tmux: `/graph Loader` before `/index` showed its error inside a code block
    (grey, with blank rows, cut at the edge: "… no code index yet: run `pai"). A person now
    sees a warning notice in plain words that says how to build the index."""
    from paicli_tui.core.code.graph_query import GraphError
    from paicli_tui.ui.widgets.notice import ChatNotice

    class NoIndex(FakeCode):
        def graph(self, name: str) -> str:
            raise GraphError("this project has no code index yet: run `paicli-tui index` "
                             "(or /index) first; the graph is built with it")

    backend = FakeBackend(settings, project_dir, session=FakeSession(), client=FakeClient(),
                          code_=NoIndex())
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        await pilot.press(*"/graph Loader", "enter")
        await wait_until(pilot, lambda: any("code graph" in n.source
                                            for n in app.screen.query(ChatNotice)))
        notice = next(n for n in app.screen.query(ChatNotice) if "code graph" in n.source)
        assert notice.kind == "warning" and "```" not in notice.source
        assert not notice.query(MarkdownFence)


async def test_a_long_block_title_wraps_with_its_status(settings, project_dir):
    """Found in tmux: at 80 columns a sub-agent's title ran off the edge ("… · 3 tools ·
    3.3k to") and at 60 a tool's lost its status ("… · done · 41k char"). A person now sees
    the whole title, wrapped onto a second line inside the block."""
    from textual.widgets._collapsible import CollapsibleTitle

    from paicli_tui.ui.widgets.tool_block import ToolBlock

    args = '{"pattern": "load_settings_from_the_environment", "path": "paicli_tui/core"}'
    script = [ev.ToolCallStarted("c1", "grep_code", args),
              ev.ToolCallFinished("c1", "grep_code", "done", "config.py:204: def load(", 41_000),
              ev.TurnFinished(session="s1", reason="done")]
    async with after_the_turn(settings, project_dir, script, size=(60, 20),
                              shows=ToolBlock) as pilot:
        block = pilot.app.screen.query_one(ToolBlock)
        title = block.query_one(CollapsibleTitle)
        assert title.region.right <= block.region.right
        width, height = title.outer_size
        shown = " ".join(s.text.strip() for s in title.render_lines(Region(0, 0, width, height)))
        assert height >= 2 and shown.endswith("· done · 41k chars"), shown


async def test_a_calls_arguments_show_chinese_as_written(settings, project_dir):
    """Many models send JSON arguments with non-ASCII as \\u escapes: a denied write_file
    opened on `"content": "hello\\n\\u4f60\\u597d\\n"`, its Chinese unreadable (the title
    already read `content=hello 你好`). The open block shows 你好."""
    from paicli_tui.ui.widgets.tool_block import ToolBlock

    args = '{"path": "notes.txt", "content": "hello\\n\\u4f60\\u597d\\n"}'
    script = [ev.ToolCallStarted("c1", "write_file", args),
              ev.ToolCallFinished("c1", "write_file", "denied", "The person declined."),
              ev.TurnFinished(session="s1", reason="done")]
    async with after_the_turn(settings, project_dir, script, shows=ToolBlock) as pilot:
        shown = str(pilot.app.screen.query_one(ToolBlock).query_one(".tool-args").render())
        assert "你好" in shown and "\\u4f60" not in shown, shown
        assert '"path": "notes.txt"' in shown


async def test_a_long_code_block_streams_without_highlighting_it_again_and_again(
        settings, project_dir, monkeypatch):
    """Found in tmux: a reply streaming a 3,000-line code block froze the screen for half a
    minute (the seconds on the status line stood still, Esc went unheard): every batch of
    text coloured the whole block again, so the work grew with the square of its length.
    While a long block streams it is shown plain; it is coloured once, when the reply ends."""
    import textual.widgets._markdown as textual_markdown
    from textual.widgets.markdown import MarkdownFence

    from paicli_tui.ui.widgets.assistant_block import PLAIN_FROM_LINES

    coloured: list[int] = []
    real = textual_markdown.highlight

    def counting(code: str, **kwargs):
        coloured.append(code.count("\n") + 1)
        return real(code, **kwargs)

    monkeypatch.setattr(textual_markdown, "highlight", counting)
    lines = [f"def f_{i}(x):  # 数据 {i}\n    return x * {i}\n" for i in range(300)]
    reply = "Here:\n\n```python\n" + "".join(lines) + "```\n\nDone."
    deltas = [reply[i:i + 60] for i in range(0, len(reply), 60)]

    def paced(delta: str):
        async def arrive(session) -> ev.TextDelta:  # as a provider sends it, a bit at a time
            await asyncio.sleep(0.002)
            return ev.TextDelta(delta)
        return arrive

    script = [*(paced(d) for d in deltas), ev.AssistantMessage(content=reply),
              ev.TurnFinished(session="s1", reason="done")]
    async with after_the_turn(settings, project_dir, script, shows=MarkdownFence,
                              seconds=60) as pilot:
        fence = pilot.app.screen.query_one(MarkdownFence)
        assert fence.code.count("\n") + 1 == 600
        assert fence._highlighted_code.spans, "coloured once the reply ended"
        # short, it is coloured as it grows; from PLAIN_FROM_LINES on, only whole, when the
        # reply ended (it was 49,617 lines coloured in 167 passes for this block). In two
        # full runs on a loaded machine the finished block was coloured a second time (the
        # cause is not found; never reproduced alone), so once or twice, never while it grows.
        long = [n for n in coloured if n >= PLAIN_FROM_LINES]
        assert long in ([600], [600, 600]), coloured


async def test_long_reasoning_streams_without_drawing_it_again_and_again(
        settings, project_dir, monkeypatch):
    """Found in tmux: 69,000 characters of reasoning in small pieces froze the screen for
    20 s ('Waiting for custom:x · 0 s' never moved): each piece drew the whole folded
    reasoning again and renamed its title. The folded text is drawn when it is opened or
    the reply ends; the title follows a few times a second."""
    from textual.widgets import Collapsible, Static

    drawn: list[int] = []
    real = Static.update

    def counting(self, content="", **kwargs):
        if self.has_class("reasoning-text"):
            drawn.append(len(str(content)))
        return real(self, content, **kwargs)

    monkeypatch.setattr(Static, "update", counting)
    thought = "让我想一想这个问题。Let me think about it step by step. " * 400
    pieces = [thought[i:i + 12] for i in range(0, len(thought), 12)]
    script = [*(ev.ReasoningDelta(p) for p in pieces), ev.TextDelta("好的。"),
              ev.AssistantMessage(content="好的。"), ev.TurnFinished(session="s1", reason="done")]
    async with after_the_turn(settings, project_dir, script, seconds=60) as pilot:
        app = pilot.app
        section = app.screen.query_one(".reasoning", Collapsible)
        assert section.title == f"Reasoning ({len(thought):,} chars)"
        assert len(drawn) < 20, (len(pieces), len(drawn))
        section.collapsed = False
        text = app.screen.query_one(".reasoning-text", Static)
        # drawn once opened: after a refresh, late on a busy machine
        await wait_until(pilot, lambda: str(text.render()).startswith("让我想一想") and
                         str(text.render()).rstrip().endswith("step by step."),
                         30, lambda: str(text.render())[:80])
