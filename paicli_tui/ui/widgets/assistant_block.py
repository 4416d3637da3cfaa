"""One assistant reply: folded reasoning and streaming Markdown text."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets.markdown import MarkdownBlock, MarkdownFence, MarkdownStream

PLAIN_FROM_LINES = 100
"""While a reply streams, a code block of this many lines or more is shown plain, and
coloured once when the reply ends: Textual colours the whole block again on every batch of
text, so a 3,000-line block froze the screen for half a minute."""


REASONING_EVERY_S = 0.2
"""How often streamed reasoning is shown (its title's count; its text when open)."""


class ReplyFence(MarkdownFence):
    """A code block of a reply: plain while it is long and still streaming."""

    plain = False

    def highlight(self, code: str, language: str, ansi: bool = False,  # type: ignore[override]
                  dark: bool = False) -> Content:
        markdown = self._markdown_ref()
        self.plain = isinstance(markdown, ReplyMarkdown) and markdown.streaming and \
            code.count("\n") + 1 >= PLAIN_FROM_LINES
        if self.plain:
            return Content(code)
        return MarkdownFence.highlight(code, language, ansi=ansi, dark=dark)

    def _copy_context(self, block: MarkdownBlock) -> None:
        if isinstance(block, ReplyFence):
            self.plain = block.plain
        super()._copy_context(block)

    def colour(self) -> None:
        """Colour a block shown plain while it streamed."""
        if self.plain:
            self.plain = False
            self.set_content(MarkdownFence.highlight(
                self.code, self.lexer, ansi=self.app.native_ansi_color,
                dark=self.app.current_theme.dark))
            self._highlighted_code = self._content


class ReplyMarkdown(Markdown):
    """The reply's Markdown; ``streaming`` while text still arrives."""

    streaming = False

    def get_block_class(self, block_name: str) -> type[MarkdownBlock]:
        if block_name in ("fence", "code_block"):
            return ReplyFence
        return super().get_block_class(block_name)


class AssistantBlock(Vertical):
    """Receives text and reasoning fragments while the model streams.

    Text goes through ``Markdown.get_stream`` (which batches fast appends); reasoning goes
    into a collapsed section that only appears once reasoning arrives.
    """

    def __init__(self) -> None:
        super().__init__(classes="assistant-block")
        self._stream: MarkdownStream | None = None
        self._reasoning: list[str] = []
        self._reasoning_chars = 0
        self._reasoning_shown = -1
        """Characters of reasoning in its text widget (drawn when opened)."""
        self._reasoning_timer: Timer | None = None
        self.text = ""

    def compose(self) -> ComposeResult:
        with Collapsible(title="Reasoning", collapsed=True, classes="reasoning"):
            yield Static("", markup=False, classes="reasoning-text")
        yield ReplyMarkdown("", classes="assistant-text")

    def on_mount(self) -> None:
        self.query_one(".reasoning", Collapsible).display = False

    async def append_text(self, fragment: str) -> None:
        if not fragment:
            return
        self.text += fragment
        if self._stream is None:
            markdown = self.query_one(".assistant-text", ReplyMarkdown)
            markdown.streaming = True
            self._stream = Markdown.get_stream(markdown)
        await self._stream.write(fragment)

    def append_reasoning(self, fragment: str) -> None:
        """Kept, and shown a few times a second: drawing the whole reasoning and its title
        again for every small piece froze the screen on a long one (69,000 characters: 20 s
        with the status line standing still)."""
        if not fragment:
            return
        self._reasoning.append(fragment)
        self._reasoning_chars += len(fragment)
        if self._reasoning_timer is None:
            self._reasoning_timer = self.set_timer(REASONING_EVERY_S, self.show_reasoning)

    def show_reasoning(self) -> None:
        """The title counts what arrived; the text is drawn only while it is open."""
        self._reasoning_timer = None
        if not self._reasoning:
            return
        section = self.query_one(".reasoning", Collapsible)
        section.display = True
        section.title = f"Reasoning ({self._reasoning_chars:,} chars)"
        if not section.collapsed and self._reasoning_shown != self._reasoning_chars:
            self._reasoning_shown = self._reasoning_chars
            self.query_one(".reasoning-text", Static).update("".join(self._reasoning))

    def on_collapsible_expanded(self, event: Collapsible.Expanded) -> None:
        self.show_reasoning()

    async def set_text(self, text: str) -> None:
        """Replace the text at once (a restored session, a finished message)."""
        await self.finish()
        self.text = text
        if not self.query(".assistant-text"):
            # seen once in a run of the whole suite on a loaded machine: a resumed reply's
            # block without its text widget, and the resumed session failed to draw; draw
            # the block's parts again instead
            await self.recompose()
            self.query_one(".reasoning", Collapsible).display = bool(self._reasoning)
        await self.query_one(".assistant-text", Markdown).update(text)

    async def finish(self) -> None:
        """Flush and close the stream; safe to call twice."""
        if self._reasoning_timer is not None:
            self._reasoning_timer.stop()
            self.show_reasoning()
        if self._stream is not None:
            stream, self._stream = self._stream, None
            await stream.stop()
            self.query_one(".assistant-text", ReplyMarkdown).streaming = False
            for fence in self.query(ReplyFence):
                fence.colour()
