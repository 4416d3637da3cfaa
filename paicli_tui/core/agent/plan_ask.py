"""Asking the model for a plan: the first proposal for a goal, and a revision the person
asked for during the review (the goal, the plan before as data, their feedback). Either way
the answer is checked in code (:mod:`.plan`) and an invalid one is sent back once for repair.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...resources import load_prompt
from ..context.boundary import wrap_data
from ..contracts.llm import TextCompleter
from ..llm.complete import completer_for
from .plan import Plan, PlanError, parse_plan

if TYPE_CHECKING:
    from .session import AgentSession

MAX_REVISIONS = 3
"""Revisions one review allows (a refused one counts: it cost the same requests)."""
FEEDBACK_CHARS = 4_000
"""The person's feedback is sent up to this length."""


@dataclass(frozen=True)
class Revise:
    """A review's answer: propose the plan again, changed as ``feedback`` says."""

    feedback: str


async def ask_for_plan(complete: TextCompleter, system: str, request: str, goal: str) -> Plan:
    """The plan in the model's answer to ``request``; an invalid answer is sent back once
    with the reason, then PlanError."""
    text = await complete(system, request)
    try:
        return parse_plan(goal, text)
    except PlanError as first:
        repair = (f"{request}\n\nYour previous answer could not be used: {first}. Answer again "
                  f"with the JSON only.\n\nPrevious answer:\n{text[:4000]}")
        return parse_plan(goal, await complete(system, repair))


def _completer(session: AgentSession) -> TextCompleter:
    if session.client is None:
        raise PlanError("no model is connected")
    return completer_for(session.client, session.settings.secrets())


async def propose_plan(session: AgentSession, goal: str) -> Plan:
    """The model's plan for ``goal``, validated (one repair); PlanError or LLMError."""
    complete = _completer(session)
    request = f"Project root: {session.project.root}\n\nGoal: {goal}"
    return await ask_for_plan(complete, load_prompt("plan").strip(), request, goal)


def revision_request(root: str, plan: Plan, feedback: str) -> str:
    """What the model is sent to revise ``plan``: the goal, the plan before as data (its
    tasks are the model's own words, which may quote files), the person's feedback."""
    tasks = json.dumps({"tasks": plan.to_json()["tasks"]}, ensure_ascii=False, indent=1)
    return (f"Project root: {root}\n\nGoal: {plan.goal}\n\nThe plan you proposed before:\n"
            f"{wrap_data('previous_plan', {}, tasks)}\n\nThe person's feedback on it:\n"
            f"{feedback.strip()[:FEEDBACK_CHARS]}")


async def revise_plan(session: AgentSession, plan: Plan, feedback: str) -> Plan:
    """A new plan for ``plan.goal`` with ``feedback`` taken in, validated (one repair);
    PlanError or LLMError."""
    if not feedback.strip():
        raise PlanError("no feedback was given: say what to change")
    complete = _completer(session)
    request = revision_request(str(session.project.root), plan, feedback)
    return await ask_for_plan(complete, load_prompt("plan_revise").strip(), request, plan.goal)
