"""A plan the person edited as JSON: the JSON object and nothing else.

A model's answer may wrap its plan in words, and :func:`~.plan.parse_plan` looks for the
object inside them. The person's own edit is read strictly instead: a sentence typed before
or after the object was dropped without a word, so the plan that ran was not all they wrote.
Such text is refused, saying what it was and on which line.
"""

from __future__ import annotations

import json

from .plan import Plan, PlanError, plan_from_json

QUOTED_CHARS = 60
"""Characters of the extra text the refusal quotes (its line says where the rest is)."""


def parse_edited_plan(goal: str, text: str) -> Plan:
    """The plan in ``text``, which must hold one JSON object and only whitespace around it;
    else PlanError saying why (the extra text quoted, with its line)."""
    start = len(text) - len(text.lstrip())
    if text[start:start + 1] != "{":
        brace = text.find("{", start)
        if brace == -1:
            raise PlanError('the plan must be one JSON object, {"tasks": [...]}')
        raise PlanError(_extra("before", text, start, brace))
    try:
        data, end = json.JSONDecoder().raw_decode(text, start)
    except (ValueError, RecursionError) as exc:
        raise PlanError(f"the plan is not valid JSON ({exc})") from None
    rest = len(text) - len(text[end:].lstrip())
    if rest < len(text):
        raise PlanError(_extra("after", text, rest, len(text)))
    return plan_from_json(goal, data)


def _extra(where: str, text: str, start: int, end: int) -> str:
    """The refusal of the text between ``start`` and ``end``, outside the JSON object."""
    extra = " ".join(text[start:end].split())
    quoted = extra if len(extra) <= QUOTED_CHARS else extra[:QUOTED_CHARS - 1] + "…"
    line = text.count("\n", 0, start) + 1
    return (f"there is text {where} the JSON object, on line {line}: {quoted!r}; the plan "
            "is the JSON alone, so delete it (or move it into a task's text)")
