"""Ask for a line of text (a new memory, a replacement), optionally with a scope choice."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet

from ..widgets.typed_input import TypedInput
from .dialog_keys import CTRL_C

TextAnswer = tuple[str, str] | None
"""(text, scope) or None when cancelled."""


class ScopeChoice(RadioSet):
    """The scope buttons. Enter takes the highlighted scope and saves, as the dialog's
    "Save (Enter)" says: a RadioSet's Enter only pressed the button, so ↓ to "global" and
    Enter left the dialog open, looking stuck. Space still only chooses."""

    BINDINGS = [Binding("enter", "choose_and_save", "Save", show=False)]

    def action_choose_and_save(self) -> None:
        highlighted = self._selected
        button = self.pressed_button if highlighted is None else self._nodes[highlighted]
        if highlighted is not None and not button.value:
            self.action_toggle_button()
        self.post_message(self.SaveWanted(None if button is None else button.id))

    class SaveWanted(Message):
        """Enter on the scope buttons: save with the scope of ``button_id``."""

        def __init__(self, button_id: str | None) -> None:
            super().__init__()
            self.button_id = button_id


class TextEntryModal(ModalScreen[TextAnswer]):
    BINDINGS = [Binding("escape", "cancel", "Cancel"), CTRL_C]

    def __init__(self, title: str, initial: str = "", *, choose_scope: bool = False,
                 scope: str = "project") -> None:
        super().__init__(classes="dialog-screen")
        self.title_text, self.initial = title, initial
        self.choose_scope, self.scope = choose_scope, scope

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog entry-dialog"):
            yield Label(self.title_text, classes="dialog-title", markup=False)
            yield TypedInput(self.initial, placeholder="text", id="entry-text")
            if self.choose_scope:
                with ScopeChoice(id="entry-scope"):
                    yield RadioButton("project (only this project)",
                                      value=self.scope == "project", id="scope-project")
                    yield RadioButton("global (every project)",
                                      value=self.scope == "global", id="scope-global")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save (Enter)", id="ok", variant="primary")
                yield Button("Cancel (Esc)", id="cancel")

    def _answer(self, button_id: str | None = None) -> None:
        """Save with the scope of ``button_id`` (the one Enter chose), else the pressed one."""
        text = self.query_one("#entry-text", Input).value.strip()
        if not text:
            self.notify("Type some text first", severity="warning")
            return
        scope = self.scope
        if self.choose_scope:
            if button_id is None:
                pressed = self.query_one(RadioSet).pressed_button
                button_id = None if pressed is None else pressed.id
            scope = "global" if button_id == "scope-global" else "project"
        self.dismiss((text, scope))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._answer()

    def on_scope_choice_save_wanted(self, event: ScopeChoice.SaveWanted) -> None:
        event.stop()
        self._answer(event.button_id)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "ok":
            self._answer()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
