"""Review an editable draft before anything happens: /init's PAI.md, /plan's task graph."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, TextArea


class RulesDraftModal(ModalScreen[str | None]):
    """Returns the text to write, or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+s", "save", "Save"),
                # before the text area, which takes Ctrl+C for copy even with nothing chosen
                Binding("ctrl+c,super+c", "copy_or_interrupt", show=False, priority=True)]

    def __init__(self, path_label: str, draft: str, title: str | None = None, *,
                 ok: str = "Save", cancel: str = "Cancel") -> None:
        """``ok`` / ``cancel``: the buttons' words (a plan is run or rejected, not saved)."""
        super().__init__(classes="dialog-screen")
        self.path_label, self.draft = path_label, draft
        self.title_text = title or f"Draft {path_label} — edit, then Save (Ctrl+S) or Esc"
        self.ok_label, self.cancel_label = ok, cancel

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog rules-draft-dialog"):
            yield Label(self.title_text, classes="dialog-title", markup=False)
            # no language: Textual's markdown highlighting needs a grammar we do not ship
            yield TextArea(self.draft, id="rules-draft-text", soft_wrap=True)
            with Horizontal(classes="dialog-buttons"):
                yield Button(self.ok_label, id="ok", variant="primary")
                yield Button(self.cancel_label, id="cancel")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "ok":
            self.action_save()
        else:
            self.action_cancel()

    def action_copy_or_interrupt(self) -> None:
        """Ctrl+C copies the text chosen in the draft; with nothing chosen it does what it
        does in every dialog (:mod:`.dialog_keys`): in a plan under review it rejects the
        plan and cancels the turn (the text area had swallowed it, so nothing happened)."""
        chosen = self.query_one(TextArea).selected_text
        if chosen:
            self.app.copy_to_clipboard(chosen)
            return
        self.app.action_dialog_ctrl_c()  # type: ignore[attr-defined]

    def action_save(self) -> None:
        text = self.query_one(TextArea).text
        if not text.strip():
            self.notify("The draft is empty: nothing to save", severity="warning")
            return
        self.dismiss(text if text.endswith("\n") else text + "\n")

    def action_cancel(self) -> None:
        """Closes at once when nothing was edited; edits are dropped only once confirmed
        (Esc dropped a PAI.md or a plan being edited without a word)."""
        if self.query_one(TextArea).text == self.draft:
            self.dismiss(None)
            return
        from .confirm import ConfirmModal

        def answered(drop: bool | None) -> None:
            if drop:
                self.dismiss(None)

        self.app.push_screen(ConfirmModal(
            "Drop your edits?", f"What you changed in {self.path_label} is lost; Cancel (n) "
            "goes back to editing.", yes="Drop them"), answered)
