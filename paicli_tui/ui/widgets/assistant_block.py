"""One assistant reply: folded reasoning and streaming Markdown text."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets.markdown import MarkdownStream


class AssistantBlock(Vertical):
    """Receives text and reasoning fragments while the model streams.

    Text goes through ``Markdown.get_stream`` (which batches fast appends); reasoning goes
    into a collapsed section that only appears once reasoning arrives.
    """

    def __init__(self) -> None:
        super().__init__(classes="assistant-block")
        self._stream: MarkdownStream | None = None
        self._reasoning: list[str] = []
        self.text = ""

    def compose(self) -> ComposeResult:
        with Collapsible(title="Reasoning", collapsed=True, classes="reasoning"):
            yield Static("", markup=False, classes="reasoning-text")
        yield Markdown("", classes="assistant-text")

    def on_mount(self) -> None:
        self.query_one(".reasoning", Collapsible).display = False

    async def append_text(self, fragment: str) -> None:
        if not fragment:
            return
        self.text += fragment
        if self._stream is None:
            self._stream = Markdown.get_stream(self.query_one(".assistant-text", Markdown))
        await self._stream.write(fragment)

    def append_reasoning(self, fragment: str) -> None:
        if not fragment:
            return
        self._reasoning.append(fragment)
        section = self.query_one(".reasoning", Collapsible)
        section.display = True
        text = "".join(self._reasoning)
        section.title = f"Reasoning ({len(text):,} chars)"
        self.query_one(".reasoning-text", Static).update(text)

    async def set_text(self, text: str) -> None:
        """Replace the text at once (a restored session, a finished message)."""
        await self.finish()
        self.text = text
        await self.query_one(".assistant-text", Markdown).update(text)

    async def finish(self) -> None:
        """Flush and close the stream; safe to call twice."""
        if self._stream is not None:
            stream, self._stream = self._stream, None
            await stream.stop()
