"""Ask before an automatic summary (setting ``ask_before_summary``): now, or not yet.

"Not yet" is bounded: the conversation goes on without a summary only up to the hard limit
the core names; there it is summarised without asking. Esc and ``n`` mean not yet."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from ...core.contracts.asks import SummaryConsent, SummaryConsentRequest
from ..format import fmt_tokens


def consent_text(request: SummaryConsentRequest) -> str:
    """What each answer does, with the numbers of this request."""
    turns = request.keep_user_turns
    last = "message" if turns == 1 else f"{turns} messages"
    return (f"The conversation is at {fmt_tokens(request.tokens)} tokens; summaries start "
            f"at {fmt_tokens(request.compaction_trigger)} (window "
            f"{fmt_tokens(request.window)}).\n\n"
            f"Summarise now: everything before your last {last} becomes a summary. The "
            f"session file keeps it all; /context can restore the view.\n\n"
            f"Not yet: go on as it is up to {fmt_tokens(request.hard_limit)} tokens; there "
            f"it is summarised without asking. /compact summarises whenever you like.")


class SummaryConsentModal(ModalScreen[SummaryConsent]):
    BINDINGS = [Binding("s", "decide('now')", "Summarise now"),
                Binding("n,escape", "decide('not_yet')", "Not yet")]

    def __init__(self, request: SummaryConsentRequest) -> None:
        super().__init__(classes="dialog-screen")
        self.request = request

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog summary-consent-dialog"):
            yield Label("Summarise the older turns now?", classes="dialog-title")
            yield Static(consent_text(self.request), markup=False,
                         classes="summary-consent-body")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Summarise now (s)", id="now", variant="primary")
                yield Button("Not yet (n)", id="not_yet")

    def on_mount(self) -> None:
        self.query_one("#now", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_decide(event.button.id or "not_yet")

    def action_decide(self, value: str) -> None:
        self.dismiss(SummaryConsent(value))
