"""One plan's review on the chat screen: the review dialog, the JSON editor behind its Edit
choice, and what the core said about the last revision (the dialog that opens next says why
a revision was refused, and how many are left)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from ...core.contracts import events as ev
from ..messages import AgentEventPosted

if TYPE_CHECKING:
    from .chat import ChatScreen


class PlanReviewFlow:
    """``review`` is the core's review callback; ``watch`` passes the plan's events on and
    notes each revision's outcome, which the core reports just before it asks again."""

    def __init__(self, screen: ChatScreen) -> None:
        from ...core.agent.plan_ask import MAX_REVISIONS

        self.screen = screen
        self.revisions_left = MAX_REVISIONS
        self.note = ""
        """Why the last revision or edit was refused (shown in the next dialog)."""
        self.edited: str | None = None
        """The person's last edit of this plan's JSON: the next Edit starts from it."""
        self.shown: Any = None
        """The plan last written to the chat (a refused revision offers it again)."""
        self.revised = False
        """The plan to review next is the model's revision (not an offer again)."""

    async def watch(self, events: AsyncIterator[ev.AgentEvent]) -> AsyncIterator[ev.AgentEvent]:
        async for event in events:
            if isinstance(event, ev.PlanRevised):
                self.revisions_left = max(0, event.allowed - event.revision)
                if event.status == "refused":
                    self.note = f"The revision was refused: {event.detail}"
                else:
                    self.note, self.edited = "", None  # a new plan: an old edit is not its
                    self.revised = True
            yield event

    async def review(self, plan: Any) -> Any:
        """Run (the plan), Revise (a request for a new one), an edited plan, or None."""
        from ...core.agent.plan import PlanError
        from ...core.agent.plan_ask import Revise
        from ...core.agent.plan_edit import parse_edited_plan
        from ..modals.plan_review import PlanChoice, PlanReviewModal
        from ..modals.rules_draft import RulesDraftModal

        screen = self.screen
        if plan is not self.shown:
            if self.revised and self.shown is not None and \
                    plan.to_json() == self.shown.to_json():
                # a weak model hands the plan back as it was: the same dialog again read
                # as if the words had not been sent
                self.note = same_plan_note(self.revisions_left)
                screen.say(self.note, "warning")
            else:
                screen.say(plan.describe())
            self.shown = plan
        self.revised = False
        while True:
            with screen.waiting_for_the_person("Waiting for your review of the plan"):
                # asked in the turn: Ctrl+C there rejects the plan and cancels the turn
                choice = await screen.ask_in_turn(PlanReviewModal(
                    plan, revisions_left=self.revisions_left, note=self.note,
                    typed=screen.typed_under_dialog), PlanChoice("reject"))
            self.note = ""
            if choice.kind == "run":
                return plan
            if choice.kind == "revise":
                screen.status.phase("Revising the plan")
                return Revise(choice.feedback)
            if choice.kind != "edit":
                return None
            text = self.edited or json.dumps({"tasks": plan.to_json()["tasks"]},
                                              ensure_ascii=False, indent=2)
            edited = await screen.ask_in_turn(RulesDraftModal(
                "plan", text, title="Plan as JSON — edit the tasks, then Run (Ctrl+S); Esc "
                "goes back to the review", ok="Run (Ctrl+S)", cancel="Back (Esc)"), None)
            if edited is None:
                continue
            self.edited = edited
            try:
                chosen = parse_edited_plan(plan.goal, edited)
            except PlanError as exc:
                self.note = f"The edited plan cannot run: {exc}"
                screen.say(self.note, "warning")
                continue
            # the pane shows the plan as edited
            screen.post_message(AgentEventPosted(ev.PlanProposed(
                chosen.goal, tuple(chosen.to_json()["tasks"]))))
            return chosen


def same_plan_note(revisions_left: int) -> str:
    """The dialog's note when the model's revision is the plan before, word for word."""
    way_on = "Revise (r) with other words, or Edit (e) to change it yourself" \
        if revisions_left else "Edit (e) changes it by hand"
    return f"The model's revision is the same plan as before: {way_on}."
