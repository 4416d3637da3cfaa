"""One line above the input while a turn runs: a spinner, what is happening, the seconds it
has taken, and "Esc to interrupt" (Ctrl+C while a dialog of the turn is open). It moves even when nothing arrives from the model."""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TICK_S = 0.1
MIN_LABEL = 12
"""Cells of the label kept however narrow the line is."""


class TurnStatus(Static):
    """``start`` when a turn begins, ``phase`` as it goes, ``stop`` when it ends."""

    clock: Callable[[], float] = staticmethod(time.monotonic)
    """Replaced by tests for a stable picture."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, classes="turn-status", markup=False)
        self.label = ""
        self.warning = ""
        self.started_at = 0.0
        self.phase_started_at = 0.0
        self.until: float | None = None
        self.waiting_for_person = ""
        """While set (a dialog is open), shown instead of the phase, which goes on updating
        underneath (a tool's start may arrive after its approval dialog opened)."""
        self.stop_key = "Esc"
        """The key that stops the turn. While a dialog of the turn is open it is Ctrl+C: Esc
        there answers the dialog (an approval is denied and the turn goes on)."""
        self._timer: Timer | None = None

    @property
    def running(self) -> bool:
        return self._timer is not None

    def start(self, label: str) -> None:
        self.started_at = self.clock()
        self.display = True
        self.phase(label)
        if self._timer is None:
            self._timer = self.set_interval(TICK_S, self.tick)

    def phase(self, label: str, *, warning: str = "", until: float | None = None) -> None:
        """What the turn is doing now; ``warning`` (a retry) shows in its own colour, with
        a countdown to ``until`` (a clock time) when given."""
        self.label = label
        self.warning = warning
        self.until = until
        self.phase_started_at = self.clock()
        self.set_class(bool(warning), "-warning")
        self.tick()

    def wait_for_person(self, label: str) -> None:
        """Say the turn waits for the person (``""``: it does not any more)."""
        self.waiting_for_person = label
        self.tick()

    def stopped_by(self, key: str) -> None:
        self.stop_key = key
        self.tick()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.display = False
        self.label = self.warning = self.waiting_for_person = ""
        self.stop_key = "Esc"

    def line(self) -> Text:
        now = self.clock()
        frame = FRAMES[int((now - self.started_at) / TICK_S) % len(FRAMES)]
        out = Text(f"{frame} ", style="bold")
        if self.warning:
            countdown = ""
            if self.until is not None:
                countdown = f" in {max(0.0, self.until - now):.0f} s"
            out.append(f"{self.warning}{countdown}", style="bold")
            out.append(" · ")
        tail = Text.assemble((f" · {now - self.started_at:.0f} s", "bold"),
                             (f" · {self.stop_key} to interrupt", "dim"))
        label = Text(self.waiting_for_person or self.label)
        # too narrow for all of it (a sub-agent's step at 60 columns): the label gives way,
        # the seconds and the key to stop stay whole
        room = self.content_size.width - out.cell_len - tail.cell_len
        if self.content_size.width and label.cell_len > room:
            label.truncate(max(room, MIN_LABEL), overflow="ellipsis")
        out.append_text(label)
        out.append_text(tail)
        return out

    def tick(self) -> None:
        if self.label:
            self.update(self.line())
