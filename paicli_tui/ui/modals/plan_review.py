"""Review a proposed plan before anything runs: the tasks to read (numbered in the order
they run, which run together, what each waits for), then Run, Revise with your words, Edit
the JSON, or Reject.

The dialog opens by itself when the model's plan arrives, often while the person types, so
it takes keys only once the keyboard has rested (:mod:`.quiet_start`): the Enter that sent a
line must not run a plan nobody read. The tasks scroll; the buttons stay on screen."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.geometry import Size
from textual.widgets import Button, Input, Label, Static

from ...core.agent.plan_ask import FEEDBACK_CHARS
from ...core.plural import counted
from ..widgets.typed_input import TypedInput
from .quiet_start import QuietStart, Typed
from .short_terminal import fit_buttons_to_height

if TYPE_CHECKING:
    from ...core.agent.plan import Plan

FIXED_ROWS = (12, 6)
"""Rows the dialog needs besides the tasks (border, padding, title, the line on revising,
buttons): normal, short terminal."""
FEEDBACK_ROWS = 5
"""Rows of the feedback box (its line of help and the input) while it is open."""
NARROW_WIDTH = 76
"""Below this many columns the four buttons are drawn compact, so they fit on one row."""
DIALOG_WIDTH, DIALOG_SHARE, BORDER_COLUMNS, PADDING_COLUMNS = 90, 95, 2, (4, 2)
"""The dialog's width in columns at most, in percent of the screen at most, its border's
columns and its padding's (normal, short terminal): as dialogs.tcss draws it."""


@dataclass(frozen=True)
class PlanChoice:
    """What the person chose: ``run``, ``revise`` (with ``feedback``), ``edit`` or
    ``reject``."""

    kind: str
    feedback: str = ""


def numbered(plan: Plan) -> list[tuple[int, list[str]]]:
    """Task ids numbered in the order they run, grouped by what runs together: each group
    waits only for earlier ones. Returns (first number of the group, its ids)."""
    from ...core.agent.plan import levels

    out: list[tuple[int, list[str]]] = []
    n = 1
    for group in levels(plan):
        out.append((n, [t.id for t in group]))
        n += len(group)
    return out


def plan_lines(plan: Plan) -> list[tuple[str, Text | str]]:
    """The plan as the dialog shows it: (kind, text) rows, kind ``group`` (which tasks run
    together), ``head`` (number, title, id, what it waits for) or ``task`` (its text)."""
    groups = numbered(plan)
    number = {task_id: first + i for first, ids in groups for i, task_id in enumerate(ids)}
    rows: list[tuple[str, Text | str]] = []
    for first, ids in groups:
        if len(ids) > 1:
            together = ", ".join(str(first + i) for i in range(len(ids) - 1))
            rows.append(("group", f"{together} and {first + len(ids) - 1} run together"))
        for task_id in ids:
            task = plan.by_id[task_id]
            head = Text.assemble((f"{number[task_id]}. {task.title}", "bold"),
                                 (f" ({task_id})", "dim"))
            if task.depends_on:
                after = ", ".join(str(number[d]) for d in task.depends_on)
                head.append(f" · after {after}", "italic")
            rows.append(("head", head))
            rows.append(("task", task.task))
    return rows


def button_width(button: Button) -> int:
    """Columns ``button`` takes on one row: its words with a space either side, at least
    Textual's 16 unless compact (dialogs.tcss lets a compact one be as wide as its words)."""
    words = cell_len(str(button.label)) + 2
    return words if button.compact else max(16, words)


class PlanReviewModal(QuietStart):
    """Returns a :class:`PlanChoice`; Esc rejects (or closes the feedback box first)."""

    BINDINGS = [
        Binding("enter,ctrl+s", "decide('run')", "Run"),
        Binding("r", "decide('revise')", "Revise"),
        Binding("e", "decide('edit')", "Edit"),
        Binding("escape", "decide('reject')", "Reject"),
    ]

    def __init__(self, plan: Plan, *, revisions_left: int, note: str = "",
                 typed: Typed | None = None) -> None:
        """``revisions_left``: how many more times Revise may be asked (0: it is off);
        ``note``: why the last revision or edit was refused, shown above the tasks."""
        super().__init__(typed=typed, classes="dialog-screen")
        self.plan, self.revisions_left, self.note = plan, revisions_left, note

    def compose(self) -> ComposeResult:
        count = len(self.plan.tasks)
        with Vertical(classes="dialog plan-review-dialog"):
            yield Label(f"Plan · {counted(count, 'task')} · {self.plan.goal}",
                        classes="dialog-title", markup=False)
            with VerticalScroll(classes="plan-review-tasks"):
                if self.note:
                    yield Static(self.note, markup=False, classes="plan-review-note")
                for kind, text in plan_lines(self.plan):
                    yield Static(text, markup=False, classes=f"plan-review-{kind}")
            yield Label(self._revisions_text(), classes="plan-review-hint", markup=False)
            with Vertical(classes="plan-review-feedback"):
                yield Label("What should change? Enter sends it; Esc goes back.",
                            classes="dim", markup=False)
                yield TypedInput(placeholder="split task 2, drop the tests task",
                                 id="plan-feedback")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Run (Enter)", id="run", variant="success")
                yield Button("Revise (r)", id="revise", variant="primary")
                yield Button("Edit (e)", id="edit")
                yield Button("Reject (Esc)", id="reject", variant="error")

    def _revisions_text(self) -> str:
        if self.revisions_left <= 0:
            return "No revisions left: Edit (e) changes the plan by hand"
        return f"Revise: your words, a new plan ({counted(self.revisions_left, 'revision')} left)"

    def on_mount(self) -> None:
        self.query_one(".plan-review-feedback").display = False
        self.start_quiet(self.query_one(".plan-review-tasks"))
        self.fit(self.size)

    def arm(self) -> None:
        super().arm()
        self.query_one("#revise", Button).disabled = self.revisions_left <= 0

    def on_resize(self, event: events.Resize) -> None:
        self.fit(event.size)

    def fit(self, size: Size) -> None:
        """The tasks get the rows the title, the feedback box and the buttons leave."""
        height = size.height
        small = fit_buttons_to_height(self, height)
        if size.width < NARROW_WIDTH:
            for button in self.query(Button):
                button.compact = True
        fixed = FIXED_ROWS[1] if small else FIXED_ROWS[0]
        if self._wrap_buttons(size.width, small):
            fixed += 1
        if self.query_one(".plan-review-feedback").display:
            fixed += FEEDBACK_ROWS
        room = height if small else height * 9 // 10
        self.query_one(".plan-review-tasks").styles.max_height = max(3, room - fixed)

    def _wrap_buttons(self, width: int, small: bool) -> bool:
        """Two rows of two buttons when one row of four is wider than the dialog (below 60
        columns Reject was cut at the border, only Esc told how to reject); True then."""
        room = min(DIALOG_WIDTH, width * DIALOG_SHARE // 100) - BORDER_COLUMNS \
            - PADDING_COLUMNS[1 if small else 0]
        buttons = list(self.query(Button))
        needed = sum(button_width(b) + 1 for b in buttons)  # a margin before each
        wrapped = needed > room
        self.query_one(".dialog-buttons").set_class(wrapped, "-wrapped")
        return wrapped

    @property
    def feedback_open(self) -> bool:
        return bool(self.query_one(".plan-review-feedback").display)

    def _show_feedback(self, shown: bool) -> None:
        self.query_one(".plan-review-feedback").display = shown
        self.fit(self.size)
        if shown:
            self.query_one("#plan-feedback", Input).focus()
        else:
            self.query_one(".plan-review-tasks").focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_decide(event.button.id or "reject")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._send_feedback()

    def _send_feedback(self) -> None:
        feedback = self.query_one("#plan-feedback", Input).value.strip()
        if not feedback:
            self.notify("Type what should change first (Esc goes back)", severity="warning")
            return
        if len(feedback) > FEEDBACK_CHARS:  # the request carries this much of it
            self.notify(f"The model is sent the first {FEEDBACK_CHARS:,} characters of "
                        f"your {len(feedback):,}.", severity="warning")
        self.dismiss(PlanChoice("revise", feedback))

    def action_decide(self, kind: str) -> None:
        if kind == "reject" and self.feedback_open:
            self._show_feedback(False)  # Esc leaves the feedback, not the plan
            return
        if kind == "revise":
            if self.revisions_left <= 0:
                self.notify("No revisions left: Edit (e) changes the plan by hand, or run "
                            "or reject it", severity="warning")
                return
            if self.feedback_open:
                self._send_feedback()  # the button pressed again, with the words typed
            else:
                self._show_feedback(True)
            return
        self.dismiss(PlanChoice(kind))
