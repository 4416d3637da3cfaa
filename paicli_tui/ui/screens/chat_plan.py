"""Plan mode and sub-agents on the chat screen, as a mixin: `/plan`, the plan worker, the
offer to continue an interrupted plan on resume, and the rendering of plan and sub-agent
events (the plan pane, a block per sub-agent with its tool calls inside). Workers post the
core's events as messages; the handlers here hand them to the widgets."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from textual import work
from textual.message import Message

from ...core.contracts import events as ev
from ..widgets.plan_pane import PlanPane

if TYPE_CHECKING:
    from ...core.agent.plan_resume import InterruptedPlan
    from ..widgets.subagent_block import SubAgentBlock
    from .chat import ChatScreen


class PlanViewMixin:
    plan_turn = False
    """A plan's events are arriving (its TurnFinished text is the plan's answer)."""
    plan_ran = False
    """The plan was run (not rejected, not invalid)."""

    # -- commands and workers ------------------------------------------------------------------
    async def slash_plan(self: ChatScreen, rest: str) -> None:
        if not rest.strip():
            await self.chat.add_notice("Usage: `/plan <goal>`", "warning")
            return
        if self.session is None or self.session.client is None:
            await self.chat.add_notice("Plan mode needs a model: connect one first.", "warning")
            return
        if self.turn_running:
            await self.chat.add_notice("A turn is running: /plan waits until it ends (Esc "
                                       "stops it).", "warning")
            return
        await self.chat.add_user(f"/plan {rest.strip()}")
        self.status.start("Planning")
        self.plan_turn, self.plan_ran = True, False
        self.turn_worker = self.run_plan(rest.strip())

    @work(group="turn", exclusive=True, exit_on_error=False)
    async def run_plan(self: ChatScreen, goal: str,
                       resume: InterruptedPlan | None = None) -> None:
        """Iterate the plan's events (a turn: Esc cancels it); each is posted as a message."""
        from ..modals.confirm import ConfirmModal
        from .plan_review_flow import PlanReviewFlow

        flow = PlanReviewFlow(self)

        async def on_failure(task: Any, why: str) -> str:
            async with self._asking:  # tasks run in parallel: one question at a time
                again = await self.ask_in_turn(ConfirmModal(
                    f"Task {task.id} failed twice", f"{task.title}\n\n{why}\n\nRetry it? "
                    "(No stops the plan.)", yes="Retry"), False)
            return "retry" if again else "stop"

        await self.relay_events(flow.watch(self.session.run_plan(
            goal, review=flow.review, on_failure=on_failure, resume=resume)))

    class ContinuePlan(Message):
        """The person chose to continue the resumed session's interrupted plan."""

        bubble = False

        def __init__(self, interrupted: InterruptedPlan) -> None:
            super().__init__()
            self.interrupted = interrupted

    @work(group="plan-offer", exit_on_error=False)
    async def offer_plan_continue(self: ChatScreen) -> None:
        """A resumed session whose plan never finished: show what finished, offer the rest."""
        from ..modals.confirm import ConfirmModal

        session = self.session
        if session is None:
            return
        interrupted = await asyncio.to_thread(session.interrupted_plan)
        if interrupted is None or session is not self.session:
            return
        self.say(interrupted.describe(), "warning")
        left = ", ".join(interrupted.remaining) or "nothing"
        go_on = await self.app.push_screen_wait(ConfirmModal(
            "This session's plan was interrupted",
            f"{interrupted.describe()}\n\nContinue it? Only the unfinished tasks run "
            f"({left}); the finished ones' results are their inputs.", yes="Continue"))
        if go_on:
            self.post_message(PlanViewMixin.ContinuePlan(interrupted))
        else:
            self.say("The plan stays interrupted; resume the session again to be offered it.")

    async def on_plan_view_mixin_continue_plan(self: ChatScreen, message: ContinuePlan) -> None:
        interrupted = message.interrupted
        if self.turn_running or self.session is None or self.session.client is None:
            await self.chat.add_notice("Cannot continue the plan now (a turn is running or "
                                       "no model is connected).", "warning")
            return
        await self.chat.add_user(f"/plan {interrupted.plan.goal} (continued)")
        self.status.start("Continuing the plan")
        self.plan_turn, self.plan_ran = True, False
        self.turn_worker = self.run_plan(interrupted.plan.goal, interrupted)

    # -- rendering -----------------------------------------------------------------------------
    @property
    def plan_pane(self: ChatScreen) -> PlanPane:
        return self.query_one(PlanPane)

    async def plan_event(self: ChatScreen, event: ev.AgentEvent) -> bool:
        """Render a plan or sub-agent event; False for the events the chat renders itself
        (a run_subagent call's result is shown in its sub-agent block too)."""
        chat, pane = self.chat, self.plan_pane
        if isinstance(event, ev.SubAgentStarted):
            await self._add_subagent(event)
            self._subagents_phase()
        elif isinstance(event, ev.SubAgentStep):
            block = chat.subagents.get(event.subagent)
            if block is not None:
                await block.step(event.event)
                inner = (block.tools.get(event.event.call_id)
                         if isinstance(event.event, ev.ToolCallStarted) else None)
                if inner is not None:
                    chat.tool_shown(inner)
            if isinstance(event.event, ev.ToolCallStarted) and self.status.running:
                self.status.phase(f"{block.heading if block else 'sub-agent'}: "
                                  f"{event.event.name}")
            elif isinstance(event.event, ev.ToolCallFinished):
                self._subagents_phase()
        elif isinstance(event, ev.SubAgentFinished):
            block = chat.subagents.get(event.subagent)
            if block is not None:
                block.finish(event)
            self._subagents_phase()
        elif isinstance(event, ev.PlanProposed):
            pane.show_plan(event.goal, event.tasks)
        elif isinstance(event, ev.PlanRevised):
            if event.status == "revised":
                await chat.add_notice(f"The plan was revised from your words (revision "
                                      f"{event.revision} of {event.allowed}).")
            else:
                await chat.add_notice(f"The revision was refused: {event.detail}", "warning")
        elif isinstance(event, ev.PlanContinued):
            pane.show_plan(event.goal, event.tasks, event.done)
        elif isinstance(event, ev.PlanTaskStarted):
            pane.task_started(event)
        elif isinstance(event, ev.PlanTaskFinished):
            pane.task_finished(event)
            block = chat.subagents.get(event.subagent)
            if block is not None:
                block.show_answer(event.preview)
        elif isinstance(event, ev.PlanFinished):
            pane.finished(event)
            self.plan_ran = event.status in ("done", "stopped")
            if not self.plan_ran and event.status == "rejected":
                await chat.add_notice("The plan was rejected; nothing was run.")
        elif isinstance(event, ev.TurnStarted) and not self.plan_turn:
            pane.display = False  # a new turn of the conversation: the last plan is done with
            return False
        elif isinstance(event, ev.TurnFinished) and self.plan_turn and self.plan_ran \
                and event.final_text:
            # a plan's result is its answer: shown like one (it joined the main history)
            block = await chat.assistant()
            await block.set_text(event.final_text)
            await chat.end_assistant()
            return False
        elif isinstance(event, ev.ToolCallFinished):
            for block in chat.subagents.values():
                if block.call_id == event.call_id:
                    block.show_answer(event.preview)
            return False
        else:
            return False
        return True

    def _subagents_phase(self: ChatScreen) -> None:
        """The line above the input names the sub-agents still at work (a finished task's
        last tool stayed there while the next task ran on)."""
        running = [b for b in self.chat.subagents.values() if b.status == "running"]
        if running and self.status.running:
            more = f" (and {len(running) - 1} more)" if len(running) > 1 else ""
            self.status.phase(f"{running[0].heading}{more}")

    async def _add_subagent(self: ChatScreen, started: ev.SubAgentStarted) -> SubAgentBlock:
        """The block goes where the run_subagent call was (its plain tool block hidden), or
        at the end of the chat for a plan task."""
        row = self.plan_pane.rows.get(started.task_id) if started.task_id else None
        tool = self.chat.tool_blocks.get(started.call_id) if started.call_id else None
        return await self.chat.add_subagent(started, caption=row.title if row else "",
                                            after=tool)

    def plan_turn_ended(self: ChatScreen) -> None:
        """The turn ended: sub-agents still running were stopped with it, and so was the
        plan when it did not finish."""
        for block in self.chat.subagents.values():
            block.cancel()
        if self.plan_turn:
            self.plan_pane.interrupted()
        self.plan_turn = False
