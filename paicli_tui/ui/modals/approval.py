"""Ask the person before a command runs or a file is written: once, always, or deny.

The buttons always stay on screen: on a short terminal the diff or command gets fewer rows
and the buttons turn compact (one row each)."""

from __future__ import annotations

from rich.syntax import Syntax
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Label, Static

from ...core.contracts.asks import ApprovalDecision, ApprovalRequest
from .quiet_start import QuietStart, Typed
from .short_terminal import fit_buttons_to_height

DETAIL_ROWS = 14


class ApprovalModal(QuietStart):
    """Shows the command text or the diff; Esc or ``n`` denies. Keys typed as it opens are
    not answers (:mod:`.quiet_start`)."""

    BINDINGS = [
        Binding("y", "decide('once')", "Approve once"),
        Binding("a", "decide('always')", "Always for this tool"),
        Binding("n,escape", "decide('deny')", "Deny"),
    ]

    def __init__(self, request: ApprovalRequest, typed: Typed | None = None) -> None:
        super().__init__(typed=typed, classes="dialog-screen")
        self.request = request

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(classes="dialog approval-dialog"):
            yield Label(f"Allow [b]{request.tool}[/b]?", classes="dialog-title")
            yield Static(request.summary, markup=False, classes="approval-summary")
            if request.detail:
                lexer = "diff" if request.detail.lstrip().startswith(("---", "@@", "diff ")) \
                    else "bash"
                with VerticalScroll(classes="approval-detail"):
                    theme = "ansi_dark" if self.app.current_theme.dark else "ansi_light"
                    # a diff ends with a line break: Syntax drew it as an empty last row
                    yield Static(Syntax(request.detail.rstrip("\n"), lexer, word_wrap=True,
                                        theme=theme))
            with Horizontal(classes="dialog-buttons"):
                yield Button("Approve once (y)", id="once", variant="success")
                yield Button("Always (a)", id="always", variant="primary")
                yield Button("Deny (n)", id="deny", variant="error")

    def on_mount(self) -> None:
        self.start_quiet(self.query_one("#deny", Button))
        self.fit(self.size.height)

    def on_resize(self, event: events.Resize) -> None:
        self.fit(event.size.height)

    def fit(self, height: int) -> None:
        """Give the detail what is left once the title, summary and buttons have their rows."""
        small = fit_buttons_to_height(self, height)
        fixed = 11 if small else 16  # border, padding, title, summary, buttons, margins
        for detail in self.query(".approval-detail"):
            detail.styles.max_height = max(3, min(DETAIL_ROWS, height - fixed))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_decide(event.button.id or "deny")

    def action_decide(self, value: str) -> None:
        self.dismiss(ApprovalDecision(value))
