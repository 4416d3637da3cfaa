"""The plan pane: a running plan's tasks, what each waits for, and its status as it changes
(pending, running, retrying, done, failed, skipped, cancelled), with the seconds of the
running ones. Shown above the input from the moment a plan is proposed or continued; it only
renders — the chat screen hands it the plan's events."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.timer import Timer
from textual.widget import Widget

from ...core.contracts import events as ev

MARKS = {"pending": "·", "running": "▶", "retrying": "↻", "done": "✓", "failed": "✗",
         "skipped": "⊘", "stopped": "·", "cancelled": "⊘"}


@dataclass
class TaskRow:
    id: str
    title: str
    depends_on: tuple[str, ...]
    status: str = "pending"
    attempt: int = 1
    started_at: float | None = None
    seconds: float | None = None


class PlanPane(Widget, can_focus=False):
    COMPONENT_CLASSES = {f"plan-pane--{status}" for status in MARKS}
    clock: Callable[[], float] = staticmethod(time.monotonic)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="plan-pane")
        self.goal = ""
        self.rows: dict[str, TaskRow] = {}
        self.outcome = ""
        self._timer: Timer | None = None

    # -- what the screen hands it ------------------------------------------------------------
    def show_plan(self, goal: str, tasks: tuple[dict[str, Any], ...],
                  done: tuple[str, ...] = ()) -> None:
        """A proposed (or continued) plan; ``done``: tasks finished in an earlier run."""
        self.goal, self.outcome = goal, ""
        self.rows = {t["id"]: TaskRow(t["id"], t["title"], tuple(t.get("depends_on", ())))
                     for t in tasks}
        for task_id in done:
            if task_id in self.rows:
                self.rows[task_id].status = "done"
        self.display = True
        if self._timer is None:
            self._timer = self.set_interval(1.0, self._tick)
        self._changed()

    def task_started(self, event: ev.PlanTaskStarted) -> None:
        row = self.rows.get(event.task_id)
        if row is not None:
            row.status = "retrying" if event.attempt > 1 else "running"
            row.attempt, row.started_at, row.seconds = event.attempt, self.clock(), None
            self._changed()

    def task_finished(self, event: ev.PlanTaskFinished) -> None:
        row = self.rows.get(event.task_id)
        if row is None:
            return
        if row.started_at is not None:
            row.seconds = self.clock() - row.started_at
        # the first failure is retried at once: shown as retrying until it starts again
        row.status = ("retrying" if event.status == "failed" and event.attempt == 1
                      else event.status)
        self._changed()

    def finished(self, event: ev.PlanFinished) -> None:
        self.outcome = {"done": "finished", "stopped": "stopped",
                        "rejected": "rejected", "invalid": "no plan"}.get(event.status,
                                                                          event.status)
        if event.status in ("rejected", "invalid"):
            self.display = False  # nothing ran: the chat says why
        self._stop_timer()
        self._changed()

    def interrupted(self) -> None:
        """The plan's turn ended without PlanFinished (cancelled): running tasks stopped.
        They read "cancelled", as their sub-agents' blocks do: "failed" said the task went
        wrong when the person had stopped it."""
        if not self.rows or self.outcome:
            return
        for row in self.rows.values():
            if row.status in ("running", "retrying"):
                row.status = "cancelled"
                if row.started_at is not None:
                    row.seconds = self.clock() - row.started_at
        self.outcome = "interrupted"
        self._stop_timer()
        self._changed()

    # -- rendering ---------------------------------------------------------------------------
    def counts(self) -> tuple[int, int]:
        return sum(r.status == "done" for r in self.rows.values()), len(self.rows)

    def header(self) -> str:
        done, total = self.counts()
        state = f" · {self.outcome}" if self.outcome else ""
        return f"Plan · {done} of {total} done{state} · {self.goal}"

    def state_text(self, row: TaskRow) -> str:
        seconds = row.seconds
        if seconds is None and row.started_at is not None:
            seconds = self.clock() - row.started_at
        text = row.status
        if row.attempt > 1 and row.status in ("running", "retrying", "failed", "done"):
            text += f" (try {row.attempt})"
        if seconds is not None and row.status != "pending":
            text += f" {seconds:.0f} s"
        return text

    def render(self) -> Table:
        table = Table.grid(padding=(0, 1), expand=True)
        table.add_column(width=1, no_wrap=True)
        ids = max((len(r.id) for r in self.rows.values()), default=1)
        table.add_column(no_wrap=True, width=min(ids, 24) + 1)  # its padding counts
        table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        table.add_column(no_wrap=True, overflow="ellipsis", max_width=16)
        table.add_column(no_wrap=True, justify="right")
        for row in self.rows.values():
            after = f"← {', '.join(row.depends_on)}" if row.depends_on else ""
            style = self.get_component_rich_style(f"plan-pane--{row.status}", partial=True)
            table.add_row(Text(MARKS.get(row.status, "?"), style=style),
                          Text(row.id, style="bold"), Text(row.title),
                          Text(after, style="dim"), Text(self.state_text(row), style=style))
        return table

    def _changed(self) -> None:
        self.border_title = self.header()
        self.styles.height = len(self.rows) + 2 if self.rows else 0
        self.refresh(layout=True)

    def _tick(self) -> None:
        if any(r.status in ("running", "retrying") for r in self.rows.values()):
            self.refresh()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
