"""A new memory conflicts with existing ones: show both sides, the person decides."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Label, OptionList, Static
from textual.widgets.option_list import Option

from ...core.contracts.asks import ConflictDecision, ConflictRequest
from .quiet_start import QuietStart, Typed

ConflictAnswer = tuple[ConflictDecision, str | None]


class ConflictModal(QuietStart):
    """New text on the left, the conflicting entries on the right (pick which to replace).
    The agent's save_memory opens it mid-turn: keys typed as it opens are not answers
    (:mod:`.quiet_start`)."""

    BINDINGS = [
        Binding("r", "decide('replace')", "Replace"),
        Binding("k", "decide('keep_both')", "Keep both"),
        Binding("escape,c", "decide('cancel')", "Cancel"),
    ]

    def __init__(self, request: ConflictRequest, typed: Typed | None = None) -> None:
        super().__init__(typed=typed, classes="dialog-screen")
        self.request = request

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog conflict-dialog"):
            yield Label("This memory conflicts with what is already saved",
                        classes="dialog-title")
            with Horizontal(classes="conflict-sides"):
                with Vertical(classes="conflict-side conflict-new"):
                    yield Label("New", classes="side-title")
                    with VerticalScroll():
                        yield Static(self.request.new_content, markup=False)
                with Vertical(classes="conflict-side conflict-existing"):
                    yield Label(f"Existing ({len(self.request.existing)})",
                                classes="side-title")
                    yield OptionList(
                        *[Option(Text(f"{e.content}\n  id {e.id}"), id=e.id)
                          for e in self.request.existing],
                        classes="conflict-options")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Replace (r)", id="replace", variant="warning")
                yield Button("Keep both (k)", id="keep_both", variant="primary")
                yield Button("Cancel (c)", id="cancel")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        if options.option_count:
            options.highlighted = 0
        self.start_quiet(self.query_one("#cancel", Button))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_decide(event.button.id or "cancel")

    def action_decide(self, value: str) -> None:
        decision = ConflictDecision(value)
        target = None
        if decision is ConflictDecision.REPLACE:
            options = self.query_one(OptionList)
            index = options.highlighted if options.highlighted is not None else 0
            if self.request.existing:
                target = self.request.existing[index].id
        self.dismiss((decision, target))
