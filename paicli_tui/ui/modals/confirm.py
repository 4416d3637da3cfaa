"""Yes/no confirmation for destructive actions (delete a memory, clear memories)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from .dialog_keys import CTRL_C


class ConfirmModal(ModalScreen[bool]):
    BINDINGS = [Binding("y", "answer(True)", "Yes"),
                Binding("n,escape", "answer(False)", "No"), CTRL_C]

    def __init__(self, title: str, body: str = "", yes: str = "Delete") -> None:
        super().__init__(classes="dialog-screen")
        self.title_text, self.body, self.yes = title, body, yes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog confirm-dialog"):
            yield Label(self.title_text, classes="dialog-title", markup=False)
            if self.body:
                yield Static(self.body, markup=False, classes="confirm-body")
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.yes} (y)", id="yes", variant="error")
                yield Button("Cancel (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
