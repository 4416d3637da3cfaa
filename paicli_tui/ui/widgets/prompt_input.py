"""The multi-line chat input: Enter sends, Ctrl+J/Alt+Enter adds a line, ↑/↓ walk the input
history at the first/last line, Tab completes a slash command."""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import TextArea

from ..slash import completions

NEWLINE_KEYS = ("ctrl+j", "shift+enter", "alt+enter")


class PromptInput(TextArea):
    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, classes="prompt-input", soft_wrap=True,
                         show_line_numbers=False, tab_behavior="focus")
        self.inputs: list[str] = []
        self._history_index: int | None = None
        self._draft = ""

    # -- keys ------------------------------------------------------------------------------
    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.submit()
            return
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if event.key == "tab" and self.complete():
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    def action_cursor_up(self, select: bool = False) -> None:
        if not select and self.cursor_location[0] == 0 and self.history_previous():
            return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        last_row = self.document.line_count - 1
        if not select and self.cursor_location[0] == last_row and self.history_next():
            return
        super().action_cursor_down(select)

    # -- behaviour -------------------------------------------------------------------------
    def submit(self) -> None:
        """Send the text (if not blank), remember it, clear the input."""
        text = self.text
        if not text.strip():
            return
        if not self.inputs or self.inputs[-1] != text:
            self.inputs.append(text)
        self._history_index = None
        self._draft = ""
        self.clear()
        self.post_message(self.Submitted(text))

    def complete(self) -> bool:
        """Complete a slash-command name: the only match, or the longest shared prefix."""
        matches = completions(self.text)
        if not matches:
            return False
        names = [m.name for m in matches]
        if len(names) == 1:
            target = names[0] + " "
        else:
            target = _common_prefix(names)
            if len(target) <= len(self.text):
                return False
        self.load_text(target)
        self.move_cursor(self.document.end)
        return True

    def history_previous(self) -> bool:
        if not self.inputs:
            return False
        if self._history_index is None:
            self._draft = self.text
            self._history_index = len(self.inputs) - 1
        elif self._history_index > 0:
            self._history_index -= 1
        else:
            return True
        self._show(self.inputs[self._history_index])
        return True

    def history_next(self) -> bool:
        if self._history_index is None:
            return False
        if self._history_index < len(self.inputs) - 1:
            self._history_index += 1
            self._show(self.inputs[self._history_index])
        else:
            self._history_index = None
            self._show(self._draft)
        return True

    def insert_reference(self, text: str) -> None:
        """Insert text at the cursor with a space around it where needed."""
        before = self.document.get_text_range((0, 0), self.cursor_location)
        prefix = "" if not before or before.endswith((" ", "\n")) else " "
        self.insert(prefix + text + " ")

    def _show(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)


def _common_prefix(names: list[str]) -> str:
    first, last = min(names), max(names)
    size = 0
    while size < len(first) and first[size] == last[size]:
        size += 1
    return first[:size]
