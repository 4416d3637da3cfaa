"""Finding a plan that was interrupted, from the session's ledger, so it can go on.

The ledger records a plan run as events: ``plan_started`` (the plan, and the finished tasks
a continued run carried over), ``plan_task`` (each attempt's status, a finished task's
result) and ``plan_finished``. A ``plan_started`` with no ``plan_finished`` after it is a plan
that was cancelled (Esc, Ctrl+C) or cut short by a crash: its finished tasks keep their
results, and continuing runs only the others, with those results as their inputs.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .ledger_events import ledger_events
from .plan import Plan, PlanError, plan_from_json

log = logging.getLogger(__name__)
RESULT_CHARS = 20_000
"""A finished task's result is recorded up to this length (its dependants see 6,000)."""
FINISHED = ("done", "skipped")


@dataclass(frozen=True)
class InterruptedPlan:
    plan: Plan
    finished: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Task id -> (status ``done`` or ``skipped``, its result)."""

    @property
    def remaining(self) -> list[str]:
        return [t.id for t in self.plan.tasks if t.id not in self.finished]

    def describe(self) -> str:
        """What a person reads before deciding to continue."""
        lines = [f"Plan for: {self.plan.goal} — interrupted, {len(self.finished)} of "
                 f"{len(self.plan.tasks)} tasks finished."]
        for task in self.plan.tasks:
            state = self.finished.get(task.id, ("not finished", ""))[0]
            lines.append(f"  {'✓' if state == 'done' else '·'} {task.id}: {task.title} ({state})")
        return "\n".join(lines)


def interrupted_plan(path: Path) -> InterruptedPlan | None:
    """The session's last plan when it never finished, else None."""
    try:
        events = ledger_events(path, "plan_")
    except OSError as exc:
        log.warning("cannot read %s for plan events: %s", path, exc)
        return None
    current: dict[str, Any] | None = None
    finished: dict[str, tuple[str, str]] = {}
    for record in events:
        kind = record.get("kind")
        if kind == "plan_started" and isinstance(record.get("plan"), dict):
            current, finished = record["plan"], {}
            carried = record.get("carried")
            for task_id, value in (carried.items() if isinstance(carried, dict) else ()):
                if isinstance(value, list) and len(value) == 2 and value[0] in FINISHED:
                    finished[str(task_id)] = (value[0], str(value[1]))
        elif kind == "plan_task" and current is not None and record.get("status") in FINISHED:
            result = record.get("result")
            finished[str(record.get("task"))] = (
                record["status"], result if isinstance(result, str)
                else "(its result was not recorded)")
        elif kind == "plan_finished":
            current = None
    if current is None:
        return None
    try:
        plan = plan_from_json(str(current.get("goal") or ""), current)
    except PlanError as exc:
        log.warning("the interrupted plan in %s cannot be read: %s", path, exc)
        return None
    return InterruptedPlan(plan, {k: v for k, v in finished.items() if k in plan.by_id})
