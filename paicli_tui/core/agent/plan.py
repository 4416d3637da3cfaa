"""Plan mode's plan: a validated graph of tasks, and the order they can run in.

The model proposes the plan as JSON; everything here is checked in code, whatever the model
said: the shape, unique ids, known dependencies, no cycle (the cycle is named), a bounded
number of tasks. ``levels`` gives the tasks in dependency order, grouped so that each group's
tasks depend only on earlier groups and can run at the same time.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..plural import noun_for

MAX_TASKS = 8
_ID = re.compile(r"^[A-Za-z0-9_-]{1,24}$")


class PlanError(ValueError):
    """The proposed plan cannot be run; the message says exactly why."""


@dataclass(frozen=True)
class PlanTask:
    id: str
    title: str
    task: str
    depends_on: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plan:
    goal: str
    tasks: tuple[PlanTask, ...]
    by_id: dict[str, PlanTask] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_id", {t.id: t for t in self.tasks})

    def to_json(self) -> dict[str, Any]:
        return {"goal": self.goal, "tasks": [
            {"id": t.id, "title": t.title, "task": t.task, "depends_on": list(t.depends_on)}
            for t in self.tasks]}

    def describe(self) -> str:
        """The plan as a person reads it (Markdown)."""
        lines = [f"**Plan** for: {self.goal}", ""]
        for t in self.tasks:  # a list item each: ids are words, never a numbered list
            after = f" (after {', '.join(t.depends_on)})" if t.depends_on else ""
            lines.append(f"- **{t.id}** · {t.title}{after} — {t.task}")
        return "\n".join(lines)


def _fenced(text: str) -> str | None:
    r"""What the pattern ```` ```(?:json)?\s*(.*?)``` ```` finds, in one pass: a fence
    followed by a long run of blanks made that pattern try every split of them (16,000
    took 3.5 s; a reply of blank lines up to its cap held the event loop for hours)."""
    start = text.find("```")
    if start == -1:
        return None
    at = start + 3
    if text.startswith("json", at) and text.find("```", at + 4) != -1:
        at += 4
    while at < len(text) and text[at].isspace():
        at += 1
    end = text.find("```", at)
    if end == -1:
        return None
    return text[at:end]


def _json_text(text: str) -> str:
    fenced = _fenced(text)
    if fenced is not None:
        return fenced
    start, end = text.find("{"), text.rfind("}")
    return text[start:end + 1] if start != -1 and end > start else text


def parse_plan(goal: str, text: str) -> Plan:
    """The plan in a model's answer (JSON, fenced or not), validated; else PlanError."""
    try:
        data = json.loads(_json_text(text))
    except (ValueError, RecursionError) as exc:
        raise PlanError(f"the plan is not valid JSON ({exc})") from None
    return plan_from_json(goal, data)


def plan_from_json(goal: str, data: Any) -> Plan:
    if not isinstance(data, dict) or not isinstance(data.get("tasks"), list):
        raise PlanError('the plan must be {"tasks": [...]}')
    raw_tasks = data["tasks"]
    if not raw_tasks:
        raise PlanError("the plan has no tasks")
    if len(raw_tasks) > MAX_TASKS:
        raise PlanError(f"the plan has {len(raw_tasks)} tasks; at most {MAX_TASKS} are allowed")
    tasks: list[PlanTask] = []
    seen: set[str] = set()
    for n, raw in enumerate(raw_tasks, 1):
        if not isinstance(raw, dict):
            raise PlanError(f"task {n} is not an object")
        task_id, title, body = raw.get("id"), raw.get("title"), raw.get("task")
        depends = raw.get("depends_on", [])
        if not isinstance(task_id, str) or not _ID.match(task_id):
            raise PlanError(f"task {n} has no usable id (letters, digits, - or _)")
        if task_id in seen:
            raise PlanError(f"two tasks have the id {task_id!r}")
        seen.add(task_id)
        if not isinstance(title, str) or not title.strip():
            raise PlanError(f"task {task_id!r} has no title")
        if not isinstance(body, str) or not body.strip():
            raise PlanError(f"task {task_id!r} does not say what to do ('task')")
        if not isinstance(depends, list) or not all(isinstance(d, str) for d in depends):
            raise PlanError(f"task {task_id!r}: depends_on must be a list of task ids")
        tasks.append(PlanTask(task_id, " ".join(title.split())[:120], body.strip(),
                              tuple(dict.fromkeys(depends))))
    ids = {t.id for t in tasks}
    for t in tasks:
        unknown = [d for d in t.depends_on if d not in ids]
        if unknown:
            raise PlanError(f"task {t.id!r} depends on unknown "
                             f"{noun_for(len(unknown), 'task')}: {', '.join(unknown)}")
        if t.id in t.depends_on:
            raise PlanError(f"task {t.id!r} depends on itself")
    plan = Plan(goal, tuple(tasks))
    cycle = find_cycle(plan)
    if cycle:
        raise PlanError("the tasks depend on each other in a cycle: " + " -> ".join(cycle))
    return plan


def find_cycle(plan: Plan) -> list[str]:
    """One dependency cycle as a path (``a -> b -> a``), or [] when there is none."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for dep in plan.by_id[node].depends_on:
            if state.get(dep) == 1:
                return stack[stack.index(dep):] + [dep]
            if dep not in state:
                found = visit(dep)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return []

    for task in plan.tasks:
        if task.id not in state:
            found = visit(task.id)
            if found:
                return found
    return []


def levels(plan: Plan) -> list[list[PlanTask]]:
    """Tasks grouped in dependency order; a group's tasks can run together."""
    done: set[str] = set()
    remaining = list(plan.tasks)
    out: list[list[PlanTask]] = []
    while remaining:
        ready = [t for t in remaining if set(t.depends_on) <= done]
        if not ready:  # cannot happen for a validated plan
            raise PlanError("the plan has a cycle")
        out.append(ready)
        done |= {t.id for t in ready}
        remaining = [t for t in remaining if t.id not in done]
    return out
