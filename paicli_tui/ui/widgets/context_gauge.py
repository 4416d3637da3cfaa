"""The context gauge, always visible: estimate vs window, triggers, usage, tokens per request."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Sparkline, Static

from ..format import fmt_tokens, zone_for
from .gauge_bar import GaugeBar

ZONE_LABELS = {"ok": "ok", "near": "near clearing", "clearing": "clearing",
               "compaction": "compacts next"}
"""Past the compaction trigger the history is compacted before the next request, not now:
"compacting" beside an idle gauge (362% after a huge reply) read as work under way. While
a compaction runs, the gauge's state says "compacting…" instead."""

SPARK_POINTS = 40
"""Requests kept in the sparkline (older ones scroll out)."""
SPARK_FROM_WIDTH = 70
"""Narrower gauges drop the sparkline: the numbers need the room."""
WIDE_NUMBERS_FROM = 84
"""From this width the numbers line uses whole words ("clear at", "last prompt"): the long
line (61 cells with a cache figure) and the sparkline (20) fit."""


class ContextGauge(Vertical):
    """Two lines. The parent sets the numbers with :meth:`show`; the gauge renders them and
    posts :class:`ContextGauge.NearClearing` once per session when the clearing trigger gets
    near."""

    class NearClearing(Message):
        def __init__(self, tokens: int, clearing_trigger: int) -> None:
            super().__init__()
            self.tokens = tokens
            self.clearing_trigger = clearing_trigger

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="context-gauge")
        self.tokens = 0
        self.window = 128_000
        self.clearing_trigger = 57_000
        self.compaction_trigger = 95_000
        self.last_prompt: int | None = None
        self.cached = 0
        self.model_label = ""
        self.per_request: list[float] = []
        self.warned = False
        self._shown_zone = ""
        self.state = ""
        """What the last compaction did, when the person should know (a failed summary,
        the digest in use); shown in place of the zone name."""

    def compose(self) -> ComposeResult:
        with Horizontal(classes="gauge-row"):
            yield Static("context", classes="gauge-label")
            yield GaugeBar()
            yield Static("", classes="gauge-percent", markup=False)
        with Horizontal(classes="gauge-row"):
            yield Static("", classes="gauge-numbers", markup=False)
            yield Sparkline([], summary_function=max, classes="gauge-spark")

    def on_mount(self) -> None:
        self._render_numbers()

    def show(self, *, tokens: int | None = None, window: int | None = None,
             clearing_trigger: int | None = None, compaction_trigger: int | None = None,
             model_label: str | None = None, state: str | None = None) -> None:
        """Set any of the numbers (and the compaction ``state``, "" clears it) and redraw."""
        if state is not None:
            self.state = state
        if tokens is not None:
            self.tokens = max(0, int(tokens))
        if window:
            self.window = int(window)
        if clearing_trigger:
            self.clearing_trigger = int(clearing_trigger)
        if compaction_trigger:
            self.compaction_trigger = int(compaction_trigger)
        if model_label is not None:
            self.model_label = model_label
        self._render_numbers()
        if not self.warned and self.zone != "ok":
            self.warned = True
            self.post_message(self.NearClearing(self.tokens, self.clearing_trigger))

    def record_usage(self, prompt_tokens: int, cached_tokens: int) -> None:
        """A provider reported usage: remember it and add a point to the chart."""
        self.last_prompt = prompt_tokens
        self.cached = cached_tokens
        self.per_request = (self.per_request + [float(prompt_tokens)])[-SPARK_POINTS:]
        self._render_numbers()

    def reset_session(self) -> None:
        """Another session is shown: nothing said about the last one's compactions stays
        (a resumed session's "digest failed" was the session it replaced)."""
        self.state = ""
        self.per_request = []
        self.last_prompt = None
        self.cached = 0
        self.warned = False
        self._render_numbers()

    @property
    def zone(self) -> str:
        return zone_for(self.tokens, self.clearing_trigger, self.compaction_trigger)

    def _render_numbers(self) -> None:
        if not self.is_mounted:
            return
        bar = self.query_one(GaugeBar)
        bar.tokens, bar.window = self.tokens, self.window
        bar.clearing_trigger, bar.compaction_trigger = self.clearing_trigger, self.compaction_trigger
        zone = self.zone
        if zone != self._shown_zone:  # a class change restyles the subtree: only on change
            if self._shown_zone:
                self.remove_class(f"zone-{self._shown_zone}")
            self.add_class(f"zone-{zone}")
            self._shown_zone = zone
        percent = self.tokens / self.window * 100 if self.window else 0
        self.query_one(".gauge-percent", Static).update(
            f"{fmt_tokens(self.tokens)}/{fmt_tokens(self.window)} {percent:4.1f}% {self.state or ZONE_LABELS[zone]}")
        self.query_one(".gauge-numbers", Static).update(self.numbers_line())
        spark = self.query_one(Sparkline)
        spark.data = list(self.per_request)
        spark.display = self.size.width >= SPARK_FROM_WIDTH

    def numbers_line(self, width: int | None = None) -> str:
        """Triggers and the last prompt; words shortened when the terminal is narrow so
        the line is never cut."""
        width = width if width is not None else (self.size.width or 100)
        last = "—" if self.last_prompt is None else fmt_tokens(self.last_prompt)
        cache = f" ({fmt_tokens(self.cached)} cached)" if self.last_prompt is not None else ""
        clear, compact = fmt_tokens(self.clearing_trigger), fmt_tokens(self.compaction_trigger)
        if width >= WIDE_NUMBERS_FROM:
            return f"clear at {clear} · compact at {compact} · last prompt {last}{cache}"
        return f"clear {clear} · compact {compact} · last {last}{cache}"

    def on_resize(self) -> None:
        self._render_numbers()
