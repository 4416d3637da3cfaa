"""Running a plan: propose, review, then each task as a sub-agent in dependency order.

The model proposes the plan once (one repair if it is invalid). The person reviews it — a
dialog in the TUI, ``--yes`` headless — and may edit it, have the model revise it with their
feedback (:mod:`.plan_ask`; the same checks and repair) or reject it. Tasks whose dependencies
are done run together (at most 3 at a time), each as a sub-agent with a history of its own
that receives its task, the results of the tasks it depends on and the memories relevant to
it. A failed task is retried once; then the person decides (retry, skip or stop; headless
stops). The plan's result joins the main history as one turn, and automatic fact extraction
runs once, after the plan.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING

from ..context.boundary import wrap_tool_result
from ..contracts.events import (
    AgentError,
    AgentEvent,
    PlanContinued,
    PlanFinished,
    PlanProposed,
    PlanRevised,
    PlanTaskFinished,
    PlanTaskStarted,
    TurnFinished,
    TurnStarted,
)
from ..contracts.llm import LLMError
from ..messages import Message
from .plan import Plan, PlanError, PlanTask, levels
from .plan_ask import MAX_REVISIONS, Revise, propose_plan, revise_plan
from .plan_resume import RESULT_CHARS, InterruptedPlan
from .prompt import turn_context_block, user_turn
from .relay import relay_until, settle_quietly
from .subagent import drive_subagent

if TYPE_CHECKING:
    from .session import AgentSession

log = logging.getLogger(__name__)
PlanReview = Callable[[Plan], Awaitable[Plan | Revise | None]]
"""Shows the plan; returns the plan to run (possibly edited), a :class:`Revise` asking the
model for a changed plan (then the review is asked again), or None to reject it."""
FailureDecision = Callable[[PlanTask, str], Awaitable[str]]
"""A task failed twice: ``retry``, ``skip`` or ``stop``."""
MAX_PARALLEL_TASKS = 3
DEPENDENCY_RESULT_CHARS = 6_000
PREVIEW_CHARS = 300


async def stop_on_failure(task: PlanTask, error: str) -> str:
    return "stop"


PLAN_AGAIN = (" (the model's answer, also once asked to fix it). Nothing ran: send the goal "
              "again, or switch to a stronger model (/model; exec: --model).")
"""After why the model's plan was refused: whose answer it was, and what the person can do."""


def task_input(task: PlanTask, plan: Plan, results: dict[str, str], memories: str) -> str:
    parts = [f"You are doing one task of a larger plan. The plan's goal: {plan.goal}",
             f"Your task ({task.id}: {task.title}):\n{task.task}"]
    for dep in task.depends_on:
        text = results.get(dep, "")
        if len(text) > DEPENDENCY_RESULT_CHARS:
            text = text[:DEPENDENCY_RESULT_CHARS] + "\n[result cut]"
        # the answer of a sub-agent that read files and pages: data, as a run_subagent answer
        # is in the main history, not words of the person's in this task's message
        parts.append(wrap_tool_result(f"plan task {dep}",
                                      f"Result of task {dep} ({plan.by_id[dep].title}):\n{text}"))
    if memories.strip():
        parts.append(memories.strip())
    return "\n\n".join(parts)


async def run_plan(session: AgentSession, goal: str, *, review: PlanReview,
                   on_failure: FailureDecision = stop_on_failure,
                   plan: Plan | None = None,
                   resume: InterruptedPlan | None = None) -> AsyncIterator[AgentEvent]:
    """The events of a whole plan run, ending with PlanFinished and TurnFinished.
    ``resume``: continue an interrupted plan (already reviewed): only its unfinished tasks
    run, the finished ones' results are their inputs."""
    if resume is not None:
        goal = resume.plan.goal
    yield TurnStarted(session=session.session_id, user_input=f"/plan {goal}")
    results: dict[str, str] = {}
    status: dict[str, str] = {}
    if resume is not None:
        plan = resume.plan
        for task_id, (state, result) in resume.finished.items():
            status[task_id], results[task_id] = state, result
        session.ledger.event("plan_started", plan=plan.to_json(), continued=True,
                             carried={k: list(v) for k, v in resume.finished.items()})
        yield PlanContinued(goal=goal, tasks=tuple(plan.to_json()["tasks"]),
                            done=tuple(resume.finished), remaining=tuple(resume.remaining))
    else:
        chosen = None
        async for event in _propose_and_review(session, goal, review, plan):
            if isinstance(event, Plan):
                chosen = event
            else:
                yield event
        if chosen is None:
            return
        plan = chosen
        session.ledger.event("plan_started", plan=plan.to_json())
        # a plan joins the history only when it ends: stopped before, the session had no
        # title and was left out of the session list, with its plan to continue
        session.name_if_untitled(f"/plan {goal}")
    async for event in _run_tasks(session, plan, results, status, on_failure):
        yield event


async def _propose_and_review(session: AgentSession, goal: str, review: PlanReview,
                              plan: Plan | None) -> AsyncIterator[AgentEvent | Plan]:
    """Propose (unless given) and review the plan, revising it as often as the person asks
    (up to MAX_REVISIONS): yields its events, then the plan to run (nothing when it is
    rejected or invalid: then the run's last events are yielded)."""
    if plan is None:
        try:
            plan = await propose_plan(session, goal)
        except (PlanError, LLMError) as exc:
            # a newcomer read 'the plan must be {"tasks": [...]}' as a rule for their goal
            again = (PLAN_AGAIN if isinstance(exc, PlanError) and session.client is not None
                     else "")
            yield AgentError(message=f"No usable plan: {exc}{again}", recoverable=True)
            yield PlanFinished(status="invalid", done=0, total=0, detail=str(exc))
            yield TurnFinished(session=session.session_id, reason="error")
            return
    revisions = 0
    offered = True  # the plan is new: recorded and shown before it is reviewed
    while True:
        if offered:
            session.ledger.event("plan_proposed", plan=plan.to_json())
            yield PlanProposed(goal=goal, tasks=tuple(plan.to_json()["tasks"]))
        chosen = await review(plan)
        if not isinstance(chosen, Revise):
            break
        revisions += 1
        revised, why = await _revise(session, plan, chosen.feedback, revisions)
        status = "refused" if revised is None else "revised"
        # the feedback's length only: the person's words may hold anything (a key they pasted)
        session.ledger.event("plan_revised", status=status, revision=revisions,
                             feedback_chars=len(chosen.feedback), detail=why)
        yield PlanRevised(status=status, revision=revisions, allowed=MAX_REVISIONS,
                          feedback_chars=len(chosen.feedback), detail=why)
        offered = revised is not None
        plan = revised or plan
    if chosen is None:
        session.ledger.event("plan_rejected")
        yield PlanFinished(status="rejected", done=0, total=len(plan.tasks))
        yield TurnFinished(session=session.session_id, reason="done",
                           final_text="The plan was rejected; nothing was run.")
        return
    yield chosen


async def _revise(session: AgentSession, plan: Plan, feedback: str,
                  revision: int) -> tuple[Plan | None, str]:
    """The revised plan and "", or None and why it was refused (the plan before stays)."""
    if revision > MAX_REVISIONS:
        return None, (f"no revisions left ({MAX_REVISIONS} per plan): edit the plan, run it "
                      "or reject it")
    try:
        return await revise_plan(session, plan, feedback), ""
    except PlanError as exc:
        return None, (f"{exc} (the model's answer, also once asked to fix it). The plan "
                      "before is offered again.")
    except LLMError as exc:
        return None, f"{exc}. The plan before is offered again."


async def _run_tasks(session: AgentSession, plan: Plan, results: dict[str, str],
                     status: dict[str, str], on_failure: FailureDecision
                     ) -> AsyncIterator[AgentEvent]:
    """Run the plan's tasks not in ``status`` yet, then join the result to the history."""
    goal = plan.goal
    # a plan is one turn: /undo puts back every file its tasks changed (set before the
    # tasks start: each task's sub-agent takes the turn it is spawned in)
    session.turns += 1
    session.state.turn_id, session.state.turn_number = uuid.uuid4().hex, session.turns
    queue: asyncio.Queue[AgentEvent] = asyncio.Queue()
    slots = asyncio.Semaphore(MAX_PARALLEL_TASKS)
    stopped = False

    async def run_task(task: PlanTask) -> None:
        memories = ""
        if session.memory is not None:
            with contextlib.suppress(Exception):
                memories = await asyncio.to_thread(session.memory.injection_block, task.task,
                                                   session.profile.memory_budget)
        attempt = 0
        while True:
            attempt += 1
            async with slots:
                child = await session.spawn_subagent(task.id, read_only=False,
                                                     task_id=task.id)
                await queue.put(PlanTaskStarted(task_id=task.id, title=task.title,
                                                subagent=child.session_id,
                                                parent=session.session_id, attempt=attempt))
                try:
                    outcome = await drive_subagent(
                        child, task_input(task, plan, results, memories),
                        emit=queue.put_nowait)
                    final, reason, error = outcome.final, outcome.reason, outcome.error
                finally:
                    if child.state.external_content_used:
                        session.state.external_content_used = True
                    await child.close_subagent()
            ok = reason == "done" and bool(final.strip())
            why = error or ("no answer" if reason == "done" else reason)
            await queue.put(PlanTaskFinished(
                task_id=task.id, status="done" if ok else "failed",
                preview=(final if ok else why)[:PREVIEW_CHARS], subagent=child.session_id,
                parent=session.session_id, attempt=attempt))
            session.ledger.event("plan_task", task=task.id, status="done" if ok else "failed",
                                 attempt=attempt, subagent=child.session_id,
                                 **({"result": final.strip()[:RESULT_CHARS]} if ok else {}))
            if ok:
                results[task.id], status[task.id] = final.strip(), "done"
                return
            if attempt == 1:
                continue  # one automatic retry
            decision = await on_failure(task, why)
            if decision == "retry":
                continue
            status[task.id] = "skipped" if decision == "skip" else "failed"
            results[task.id] = f"(task {task.id} did not finish: {why})"
            if decision == "skip":
                session.ledger.event("plan_task", task=task.id, status="skipped",
                                     attempt=attempt, subagent=child.session_id,
                                     result=results[task.id])
            else:
                raise _StopPlan(task.id, why)
            return

    stop_reason = ""
    workers: list[asyncio.Future[None]] = []
    waiter: asyncio.Future[list[None]] | None = None
    try:
        for group in levels(plan):
            workers = [asyncio.ensure_future(run_task(t)) for t in group
                       if t.id not in status]  # a continued plan's finished tasks
            waiter = asyncio.ensure_future(asyncio.gather(*workers))
            waiter.add_done_callback(settle_quietly)
            async for event in relay_until(queue, waiter):
                yield event
            try:
                waiter.result()
            except _StopPlan as exc:
                stopped, stop_reason = True, f"task {exc.task_id} failed: {exc.why}"
                break
    finally:  # cancelled (Esc) or stopped: no task keeps running behind the person's back
        if waiter is not None:
            waiter.cancel()
        for worker in workers:
            worker.cancel()
    done = sum(1 for s in status.values() if s == "done")
    final_text = _final_text(plan, results, status, stop_reason)
    # The plan joins the main history as one turn: the goal, then what came of it.
    session.append(user_turn(f"/plan {goal}", turn_context_block(datetime.now().astimezone())))
    session.append(Message.assistant(final_text))
    session.ledger.event("plan_finished", status="stopped" if stopped else "done", done=done,
                         total=len(plan.tasks))
    if not stopped:
        session.extract_facts_later(goal)
    yield PlanFinished(status="stopped" if stopped else "done", done=done,
                       total=len(plan.tasks), detail=stop_reason)
    yield TurnFinished(session=session.session_id, reason="error" if stopped else "done",
                       final_text=final_text)


class _StopPlan(Exception):
    def __init__(self, task_id: str, why: str) -> None:
        super().__init__(task_id)
        self.task_id, self.why = task_id, why


def _final_text(plan: Plan, results: dict[str, str], status: dict[str, str],
                stop_reason: str) -> str:
    done = sum(1 for s in status.values() if s == "done")
    head = f"Plan for: {plan.goal} — {done} of {len(plan.tasks)} tasks done."
    if stop_reason:
        head += f" Stopped: {stop_reason}."
    parts = [head]
    for task in plan.tasks:
        state = status.get(task.id, "not run")
        parts.append(f"## {task.id}: {task.title} ({state})\n{results.get(task.id, '')}".rstrip())
    return "\n\n".join(parts)
