"""Ctrl+R: search what you typed before (this project's and others', newest first), as a
shell's reverse search and Claude Code's Ctrl+R do; Enter puts the chosen prompt in the
input to edit or send."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from ..widgets.typed_input import TypedInput
from .dialog_keys import CTRL_C, move_highlight
from .short_terminal import SMALL_HEIGHT

SHOWN_MAX = 200
"""Rows listed at most (the newest that match)."""


def matching(inputs: list[str], typed: str) -> list[str]:
    """The inputs holding every word of ``typed`` (any letter case), newest first, each
    once."""
    words = typed.lower().split()
    found: list[str] = []
    for text in reversed(inputs):
        lowered = text.lower()
        if all(word in lowered for word in words) and text not in found:
            found.append(text)
            if len(found) >= SHOWN_MAX:
                break
    return found


def one_line(text: str, width: int) -> Text:
    """A prompt on one row: its lines joined with ⏎, cut with … to ``width`` cells (a long
    prompt wrapped onto several rows, a Chinese one at half as many characters)."""
    shown = Text(" ⏎ ".join(line.strip() for line in text.splitlines() if line.strip()),
                 no_wrap=True)
    shown.truncate(max(8, width), overflow="ellipsis")
    return shown


class FilterInput(TypedInput):
    """The filter. Esc and a letter typed straight after it reach it as one Alt+letter (the
    terminal sends ESC + letter; tmux joins them for 500 ms by default), so Esc to close
    the dialog and typing the next prompt at once left the dialog open, the letter in the
    filter: that is Esc, then the letter for the chat's input (and so is every letter typed
    before the dialog is gone)."""

    escaped = False

    async def _on_key(self, event: events.Key) -> None:
        joined = event.key.startswith("alt+")
        screen = self.screen
        if (joined or self.escaped) and event.is_printable and event.character \
                and isinstance(screen, HistorySearch):
            event.stop()
            event.prevent_default()
            if not self.escaped:
                self.escaped = True
                screen.dismiss(None)
            screen.type_after(event.character)  # at once: in its place among the keys
            return
        await super()._on_key(event)


class HistorySearch(ModalScreen[str | None]):
    """Type to filter; ↑↓ choose; Enter puts the prompt in the input; Esc leaves it as it
    was."""

    BINDINGS = [Binding("escape", "cancel", "Cancel"), CTRL_C,
                Binding("down", "move(1)", show=False), Binding("up", "move(-1)", show=False),
                Binding("ctrl+r", "move(1)", show=False)]

    def __init__(self, inputs: list[str], typed: str = "",
                 type_after: Callable[[str], object] = lambda text: None) -> None:
        super().__init__(classes="dialog-screen")
        self.inputs = inputs
        self.typed = typed
        self.shown: list[str] = []
        self.type_after = type_after
        """Where what is typed straight after Esc goes (the chat's input)."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog picker-dialog"):
            yield Label("Search what you typed before", classes="dialog-title")
            yield FilterInput(self.typed, placeholder="words of an earlier prompt…",
                              id="history-filter")
            yield OptionList(id="history-options")
            yield Label("", id="history-empty", classes="dim")
            yield Label("↑↓ choose · Enter takes it · Esc cancels", classes="dim dialog-keys")

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.height < SMALL_HEIGHT, "-small")
        self.call_after_refresh(lambda: self._fill(self.query_one(Input).value))

    def on_mount(self) -> None:
        self.set_class(self.size.height < SMALL_HEIGHT, "-small")
        self._fill(self.typed)
        self.query_one(Input).focus()

    def _fill(self, typed: str) -> None:
        self.shown = matching(self.inputs, typed)
        options = self.query_one(OptionList)
        options.clear_options()
        # the list's inner width (its padding and scrollbar), or the screen's before layout
        width = (options.content_size.width or self.size.width - 12) - 2
        options.add_options([Option(one_line(text, width)) for text in self.shown])
        if self.shown:
            options.highlighted = 0
        self.query_one("#history-empty", Label).update(
            "" if self.shown else ("Nothing typed yet." if not self.inputs else "No match."))

    def on_input_changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._choose(self.query_one(OptionList).highlighted)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self._choose(event.option_index)

    def _choose(self, index: int | None) -> None:
        if index is not None and 0 <= index < len(self.shown):
            self.dismiss(self.shown[index])

    def action_move(self, step: int) -> None:
        move_highlight(self.query_one(OptionList), step)

    def action_cancel(self) -> None:
        self.dismiss(None)
