"""Ask before an automatic summary (setting ``ask_before_summary``): now, or not yet.

"Not yet" is bounded: the conversation goes on without a summary only up to the hard limit
the core names; there it is summarised without asking. Esc and ``n`` mean not yet."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, Static

from ...core.contracts.asks import SummaryConsent, SummaryConsentRequest
from ..format import fmt_tokens
from .quiet_start import QuietStart, Typed
from .short_terminal import fit_buttons_to_height


def consent_text(request: SummaryConsentRequest) -> str:
    """What each answer does, with the numbers of this request."""
    turns = request.keep_user_turns
    last = "message" if turns == 1 else f"{turns} messages"
    return (f"At {fmt_tokens(request.tokens)} tokens; summaries start at "
            f"{fmt_tokens(request.compaction_trigger)} (window {fmt_tokens(request.window)})."
            f"\n\nSummarise now: all before your last {last} becomes a summary (the "
            f"session file keeps everything).\n\n"
            f"Not yet: carry on up to {fmt_tokens(request.hard_limit)} tokens; there it is "
            f"summarised without asking. /compact works any time.")


class SummaryConsentModal(QuietStart):
    """Opens by itself mid-turn: keys typed as it opens are not answers (:mod:`.quiet_start`)."""

    BINDINGS = [Binding("s", "decide('now')", "Summarise now"),
                Binding("n,escape", "decide('not_yet')", "Not yet")]

    def __init__(self, request: SummaryConsentRequest, typed: Typed | None = None) -> None:
        super().__init__(typed=typed, classes="dialog-screen")
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
        self.start_quiet(self.query_one("#now", Button))
        self.fit(self.size.height)

    def on_resize(self, event: events.Resize) -> None:
        self.fit(event.size.height)

    def fit(self, height: int) -> None:
        """On a short terminal: one-row buttons and less padding, so both stay on screen."""
        fit_buttons_to_height(self, height)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_decide(event.button.id or "not_yet")

    def action_decide(self, value: str) -> None:
        self.dismiss(SummaryConsent(value))
