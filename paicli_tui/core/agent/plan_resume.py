"""Finding a plan that was interrupted, from the session's ledger, so it can go on.

The ledger records a plan run as events: ``plan_started`` (the plan, and the finished tasks
a continued run carried over), ``plan_task`` (each attempt's status, a finished task's
result) and ``plan_finished``. A ``plan_started`` with no ``plan_finished`` after it is a plan
that was cancelled (Esc, Ctrl+C) or cut short by a crash: its finished tasks keep their
results, and continuing runs only the others, with those results as their inputs.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..context.ledger_read import open_regular
from .plan import Plan, PlanError, plan_from_json

log = logging.getLogger(__name__)
RESULT_CHARS = 20_000
"""A finished task's result is recorded up to this length (its dependants see 6,000)."""
FINISHED = ("done", "skipped")
_PLAN_EVENT = b'"kind":"plan_'


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


def _plan_events(path: Path) -> list[dict[str, Any]]:
    """The plan events of a ledger, oldest first; only lines naming one are parsed."""
    events = []
    with open_regular(path) as handle:
        for line in handle:
            if _PLAN_EVENT not in line:
                continue
            try:
                record = json.loads(line.decode("utf-8", "replace"))
            except (ValueError, RecursionError):
                continue  # a torn last line: the reader of the view says so
            if isinstance(record, dict) and record.get("type") == "event":
                events.append(record)
    return events


def interrupted_plan(path: Path) -> InterruptedPlan | None:
    """The session's last plan when it never finished, else None."""
    try:
        events = _plan_events(path)
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
