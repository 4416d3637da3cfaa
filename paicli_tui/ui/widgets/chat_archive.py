"""The earlier part of a long conversation, in compact form: many blocks as one widget.

Textual lays out every widget of the screen again whenever one is added, so a chat that
kept hours of messages as live widgets (each reply a dozen of them) got slower with every
message: adding one exchange took seconds after a few hundred. The chat keeps its newest
blocks live and folds older ones, a batch at a time, into one :class:`ArchivedBlocks`
that draws them as text: your messages and the replies in full (Markdown), each tool call,
sub-agent and notice as its title line. Nothing is removed from the session: the ledger
keeps every message, and the text stays on the screen to scroll back to. A resumed
session's older part is drawn into it from the messages, without making widgets first.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.markdown import Markdown as RichMarkdown
from rich.padding import Padding
from rich.rule import Rule
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown, Static

from ...core.messages import InternalKind, Message, Role
from ...core.plural import counted
from .assistant_block import AssistantBlock
from .compaction_notice import restored_title
from .tool_block import call_title, recorded_status
from .user_message import UserMessage


def user_part(text: str) -> RenderableType:
    return Padding(Text.assemble(("› ", "bold"), (text, "bold")), (1, 0, 1, 0))


def reply_part(text: str) -> RenderableType:
    return Padding(RichMarkdown(text), (0, 0, 0, 2))


def transcript(widget: Widget) -> RenderableType | None:
    """How a finished block reads in the compact view; None: it cannot be folded (an
    unknown kind of block) and stays live."""
    if isinstance(widget, UserMessage):
        return user_part(str(widget.content))
    if isinstance(widget, AssistantBlock):
        return reply_part(widget.text)
    if isinstance(widget, Collapsible):  # a tool call, a sub-agent, a compaction notice
        return Padding(Text(str(widget.title), style="dim", overflow="ellipsis", no_wrap=True),
                       (0, 0, 0, 2))
    if isinstance(widget, Markdown):  # a notice
        return Padding(RichMarkdown(widget.source or ""), (0, 0, 0, 2), style="dim")
    if isinstance(widget, Static):  # the welcome line, the how-to-connect guide
        return Padding(Text(str(widget.content)), (0, 0, 0, 2), style="dim")
    return None


class ArchivedBlocks(Widget):
    """Blocks of the conversation folded into text (``count`` of them), drawn line by line
    from text rendered once per width: the layout asks every widget its height again on each
    addition, and a Static rendered its whole content again each time (folded chats still
    got slower with every message)."""

    def __init__(self, parts: list[RenderableType], count: int, texts: list[str]) -> None:
        super().__init__(classes="chat-archive")
        heading = Rule(f"earlier · {counted(count, 'block')} in compact form", style="dim",
                       characters="·")
        self._content = Group(heading, *parts)
        self._lines: list[Strip] = []
        self._drawn_for: tuple[int, Style] | None = None
        self.renders = 0
        """How many times the text was rendered (once per width and theme)."""
        self.count = count
        self.texts = texts
        """What the person and the model wrote in these blocks (for search and tests)."""

    def lines_at(self, width: int) -> list[Strip]:
        key = (width, self.rich_style)
        if key != self._drawn_for:
            console = self.app.console
            options = console.options.update_width(max(1, width))
            rendered = console.render_lines(self._content, options, style=self.rich_style)
            self._lines = [Strip(line, width) for line in rendered]
            self._drawn_for = key
            self.renders += 1
        return self._lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines_at(width))

    def render_line(self, y: int) -> Strip:
        lines = self.lines_at(self.size.width)
        return lines[y] if y < len(lines) else Strip.blank(self.size.width, self.rich_style)


def foldable(widget: Widget) -> bool:
    """Finished and of a kind the compact view can draw."""
    if isinstance(widget, ArchivedBlocks):
        return False
    if getattr(widget, "status", "done") == "running":  # a tool call or sub-agent at work
        return False
    return transcript(widget) is not None


def restored_parts(messages: Sequence[Message], no_answer: str
                   ) -> list[tuple[RenderableType, str | None]]:
    """The older part of a resumed session drawn straight into the compact view: each block
    the chat would have made, as the compact view shows it (and the words said), without
    making the widgets first (building and styling them took seconds per hundred turns)."""
    results = {m.tool_call_id: m for m in messages if m.role is Role.TOOL and m.tool_call_id}
    parts: list[tuple[RenderableType, str | None]] = []
    unanswered = False

    def line(text: str) -> RenderableType:
        return Padding(Text(text, style="dim", overflow="ellipsis", no_wrap=True),
                       (0, 0, 0, 2))

    for message in messages:
        if message.role is Role.USER and message.internal is InternalKind.SUMMARY:
            parts.append((line(restored_title(str(message.meta.get("tier", "summary")))), None))
        elif message.role is Role.USER and message.internal is None:
            if unanswered:
                parts.append((line(no_answer), None))
            unanswered = True
            words = message.meta.get("user_input")
            said = words if isinstance(words, str) else message.content
            parts.append((user_part(said), said))
        elif message.role is Role.ASSISTANT:
            unanswered = False
            if message.content:
                parts.append((reply_part(message.content), message.content))
            for call in message.tool_calls:
                status = recorded_status(results.get(call.id))
                parts.append((line(f"{call_title(call.name, call.arguments, status)} · {status}"),
                              None))
    if unanswered:
        parts.append((line(no_answer), None))
    return parts


def split_restored(history: Sequence[Message], live_blocks: int
                   ) -> tuple[list[Message], list[Message]]:
    """(older, newer): the newer part makes about ``live_blocks`` blocks and starts at a
    message of the person's (so each call and its result stay on one side)."""
    blocks = 0
    for index in range(len(history) - 1, -1, -1):
        message = history[index]
        if message.role is Role.USER:
            blocks += 1
        elif message.role is Role.ASSISTANT:
            blocks += bool(message.content) + len(message.tool_calls)
        if blocks >= live_blocks and message.role is Role.USER and message.internal is None:
            return list(history[:index]), list(history[index:])
    return [], list(history)


def restored_archives(parts: list[tuple[RenderableType, str | None]], batch: int
                      ) -> list[ArchivedBlocks]:
    out = []
    for start in range(0, len(parts), batch):
        chunk = parts[start:start + batch]
        out.append(ArchivedBlocks([p for p, _ in chunk], len(chunk),
                                  [t for _, t in chunk if t is not None]))
    return out


def fold(blocks: list[Widget]) -> ArchivedBlocks:
    parts: list[RenderableType] = []
    texts: list[str] = []
    for block in blocks:
        if not block.display:  # a call drawn by its sub-agent's block instead
            continue
        part = transcript(block)
        if part is not None:
            parts.append(part)
        if isinstance(block, UserMessage):
            texts.append(str(block.content))
        elif isinstance(block, AssistantBlock):
            texts.append(block.text)
    return ArchivedBlocks(parts, len(blocks), texts)
