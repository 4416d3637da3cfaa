"""The plan review dialog on the real core with a scripted model: the plan to read (numbered
in the order the tasks run, which run together, "after 1"), and each choice by key and by
button — Run, Revise (the person's words, a new plan, the review again; a revision invalid
twice refused with the reason while the plan before stays offered; bounded), Edit (the JSON,
its refusal of an invalid edit) and Reject."""

from __future__ import annotations

import json

import pytest
from pilot_helpers import wait_until
from test_ui_core_session import ScriptedClient, make_app, send
from test_ui_plan import SUBAGENT_MARK, notices
from textual.widgets import Button, Input, Label, TextArea

from paicli_tui.core.agent.plan import parse_plan
from paicli_tui.core.agent.plan_ask import MAX_REVISIONS
from paicli_tui.core.contracts.llm import StreamDone
from paicli_tui.core.messages import Message, Role
from paicli_tui.ui.modals.plan_review import PlanReviewModal, plan_lines
from paicli_tui.ui.modals.rules_draft import RulesDraftModal
from paicli_tui.ui.widgets.plan_pane import PlanPane


def tasks_json(*tasks: tuple[str, str, list[str]]) -> str:
    return json.dumps({"tasks": [{"id": i, "title": t, "task": f"Do {t.lower()}.",
                                  "depends_on": d} for i, t, d in tasks]})


FIRST = tasks_json(("look", "Look around", []), ("sum", "Summarise", ["look"]))
REVISED = tasks_json(("scan", "Scan the code", []), ("docs", "Read the docs", []),
                     ("sum", "Summarise", ["scan", "docs"]))


class ReviewClient(ScriptedClient):
    """Answers each planning request from ``plans`` in order (keeping what it was sent);
    every task's sub-agent answers 'done: <task>'."""

    def __init__(self, plans: list[str]) -> None:
        super().__init__([])
        self.plans = list(plans)
        self.plan_requests: list[tuple[str, str]] = []
        self.tasks_run: list[str] = []

    async def stream(self, messages, tools=(), *, model=None):
        if not tools and messages[0].content.startswith("You plan work"):
            self.plan_requests.append((messages[0].content, messages[1].content))
            yield StreamDone(Message.assistant(self.plans.pop(0)), "stop")
            return
        if tools and SUBAGENT_MARK in messages[0].content:
            task = next(m.content for m in messages if m.role is Role.USER)
            task_id = task.split("Your task (", 1)[1].split(":", 1)[0]
            self.tasks_run.append(task_id)
            yield StreamDone(Message.assistant(f"done: {task_id}"), "stop")
            return
        async for event in super().stream(messages, tools, model=model):
            yield event


async def review_opens(pilot, after=None) -> PlanReviewModal:
    """Until a review dialog other than ``after`` is on top and has taken the focus."""
    def opened() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, PlanReviewModal) and screen is not after and screen.armed
    await wait_until(pilot, opened)
    await pilot.pause()
    return pilot.app.screen


def shown(dialog: PlanReviewModal) -> list[str]:
    """The dialog's text, one entry a row of the plan (the note first, when there is one)."""
    return [str(w.render()) for w in dialog.query(".plan-review-tasks Static")]


def hint(dialog: PlanReviewModal) -> str:
    return str(dialog.query_one(".plan-review-hint", Label).render())


async def send_plan(pilot, goal: str = "describe this project") -> None:
    """Once the session is up, ``/plan goal`` sent."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await send(pilot, f"/plan {goal}")


async def start(pilot, goal: str = "describe this project") -> PlanReviewModal:
    await send_plan(pilot, goal)
    return await review_opens(pilot)


async def ran(pilot, client: ReviewClient) -> PlanPane:
    pane = pilot.app.screen.query_one(PlanPane)
    await wait_until(pilot, lambda: pane.outcome == "finished")
    await wait_until(pilot, lambda: not pilot.app.screen.turn_running)
    return pane


def test_the_plan_reads_in_the_order_it_runs() -> None:
    """Numbers follow the run, not the JSON's order: 'sum' listed first waits for the
    other two, which run together, so it is 3."""
    plan = parse_plan("g", tasks_json(("sum", "Summarise", ["scan", "docs"]),
                                      ("scan", "Scan the code", []),
                                      ("docs", "Read the docs", []),
                                      ("check", "Check links", ["sum"])))
    assert [(kind, str(text)) for kind, text in plan_lines(plan)] == [
        ("group", "1 and 2 run together"),
        ("head", "1. Scan the code (scan)"), ("task", "Do scan the code."),
        ("head", "2. Read the docs (docs)"), ("task", "Do read the docs."),
        ("head", "3. Summarise (sum) · after 1, 2"), ("task", "Do summarise."),
        ("head", "4. Check links (check) · after 3"), ("task", "Do check links."),
    ]
    three = parse_plan("g", tasks_json(("a", "A", []), ("b", "B", []), ("c", "C", [])))
    assert str(plan_lines(three)[0][1]) == "1, 2 and 3 run together"


async def test_revise_then_run_the_new_plan(settings, project_dir) -> None:
    """r opens a line for the person's words; Enter sends them. The model is asked with the
    goal, the plan before and the words; the review opens again on the new plan, saying
    one revision fewer is left; Enter runs the new plan."""
    client = ReviewClient([FIRST, REVISED])
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=(100, 30)) as pilot:
        first = await start(pilot)
        assert shown(first) == ["1. Look around (look)", "Do look around.",
                                "2. Summarise (sum) · after 1", "Do summarise."]
        assert hint(first) == f"Revise: your words, a new plan ({MAX_REVISIONS} revisions left)"
        assert not first.query_one(".plan-review-feedback").display
        await pilot.press("r")
        assert first.query_one(".plan-review-feedback").display
        assert app.focused is first.query_one("#plan-feedback", Input)
        # letters typed are words, not choices: 'e' does not open the editor
        await pilot.press(*"split look; keep sum")
        assert isinstance(app.screen, PlanReviewModal)
        await pilot.press("enter")
        second = await review_opens(pilot, after=first)
        assert shown(second) == [
            "1 and 2 run together",
            "1. Scan the code (scan)", "Do scan the code.",
            "2. Read the docs (docs)", "Do read the docs.",
            "3. Summarise (sum) · after 1, 2", "Do summarise."]
        assert hint(second) == (f"Revise: your words, a new plan ({MAX_REVISIONS - 1} "
                                "revisions left)")
        system, request = client.plan_requests[1]
        assert system.startswith("You plan work for a coding agent, and the person has")
        assert "Goal: describe this project" in request
        assert '<previous_plan trust="untrusted-data">' in request and '"id": "look"' in request
        assert request.endswith("The person's feedback on it:\nsplit look; keep sum")
        assert "The plan was revised from your words (revision 1 of 3)." in notices(app)
        await pilot.press("enter")
        pane = await ran(pilot, client)
        assert sorted(client.tasks_run) == ["docs", "scan", "sum"]
        assert list(pane.rows) == ["scan", "docs", "sum"]


async def test_a_revision_that_changed_nothing_says_so(settings, project_dir) -> None:
    """A weak model handed the plan back word for word: the review opened again on the same
    tasks with nothing said, as if the words had not been sent. It now says the revision is
    the plan before, in the dialog and the chat."""
    client = ReviewClient([FIRST, FIRST])
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=(100, 30)) as pilot:
        first = await start(pilot)
        offered = shown(first)
        await pilot.press("r", *"不要运行测试", "enter")
        again = await review_opens(pilot, after=first)
        note = ("The model's revision is the same plan as before: Revise (r) with other "
                "words, or Edit (e) to change it yourself.")
        assert shown(again) == [note, *offered]
        assert note in notices(app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: "rejected" in notices(app))


async def test_a_revision_invalid_twice_is_refused_and_the_plan_before_offered(
        settings, project_dir) -> None:
    """The model's revision is no plan, and still none once asked to fix it: the review
    opens again on the plan before, saying why, and it runs when chosen."""
    cycle = tasks_json(("a", "A", ["b"]), ("b", "B", ["a"]))
    client = ReviewClient([FIRST, "no json here", cycle])
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=(100, 30)) as pilot:
        first = await start(pilot)
        offered = shown(first)
        await pilot.click("#revise")  # by button: it opens the line for the words
        await pilot.press(*"merge them")
        await pilot.click("#revise")  # and pressed again, sends them
        again = await review_opens(pilot, after=first)
        note = ("The revision was refused: the tasks depend on each other in a cycle: a -> b "
                "-> a (the model's answer, also once asked to fix it). The plan before is "
                "offered again.")
        assert shown(again)[0] == note
        assert shown(again)[1:] == offered
        assert hint(again) == (f"Revise: your words, a new plan ({MAX_REVISIONS - 1} "
                               "revisions left)")
        assert len(client.plan_requests) == 3
        assert note in notices(app)
        await pilot.click("#run")
        await ran(pilot, client)
        assert client.tasks_run == ["look", "sum"]


async def test_revisions_run_out(settings, project_dir) -> None:
    """After the last revision Revise is off and says so; r tells what is left to do."""
    client = ReviewClient([FIRST] * (MAX_REVISIONS + 1))
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await start(pilot)
        for n in range(MAX_REVISIONS):
            await pilot.press("r", *f"again {n}", "enter")
            dialog = await review_opens(pilot, after=dialog)
        assert hint(dialog) == "No revisions left: Edit (e) changes the plan by hand"
        assert dialog.query_one("#revise", Button).disabled
        await pilot.press("r")
        assert not dialog.query_one(".plan-review-feedback").display
        assert any(n.message.startswith("No revisions left") for n in app._notifications)
        assert len(client.plan_requests) == MAX_REVISIONS + 1
        await pilot.press("escape")
        await wait_until(pilot, lambda: "rejected" in notices(app))


async def test_empty_words_are_not_sent_and_escape_closes_only_the_line(settings,
                                                                        project_dir) -> None:
    """Enter on an empty line asks for words (nothing is sent); Esc in the line closes it and
    leaves the plan offered; the next Esc rejects."""
    client = ReviewClient([FIRST])
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await start(pilot)
        await pilot.press("r", "enter")
        await pilot.pause()
        assert app.screen is dialog and dialog.query_one(".plan-review-feedback").display
        assert any(n.message.startswith("Type what should change first")
                   for n in app._notifications)
        await pilot.press("x", "escape")
        assert app.screen is dialog and not dialog.query_one(".plan-review-feedback").display
        await pilot.press("escape")
        await wait_until(pilot, lambda: "rejected" in notices(app))
        assert client.tasks_run == [] and len(client.plan_requests) == 1


async def test_words_longer_than_sent_are_cut_with_a_notice(settings, project_dir) -> None:
    """A paste longer than the request carries: the notice says how much goes, and the
    model gets exactly that much."""
    from paicli_tui.core.agent.plan_ask import FEEDBACK_CHARS

    client = ReviewClient([FIRST, FIRST])
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await start(pilot)
        await pilot.press("r")
        dialog.query_one("#plan-feedback", Input).value = "w" * (FEEDBACK_CHARS + 10)
        await pilot.press("enter")
        await review_opens(pilot, after=dialog)
        assert any(n.message == f"The model is sent the first {FEEDBACK_CHARS:,} characters "
                   f"of your {FEEDBACK_CHARS + 10:,}." for n in app._notifications)
        assert client.plan_requests[1][1].endswith("\n" + "w" * FEEDBACK_CHARS)


async def test_keys_typed_as_the_review_opens_answer_nothing(settings, project_dir,
                                                             monkeypatch) -> None:
    """The plan arrives while the person types: the Enter that sends their line and the 'e'
    of a word neither run the plan nor open the editor; the keys go to the chat input."""
    import asyncio

    from paicli_tui.ui.modals.quiet_start import QuietStart
    from paicli_tui.ui.widgets.prompt_input import PromptInput

    # Longer than the real 0.5 s: a loaded machine can stall that long between the dialog
    # opening and the next key, which the dialog reads as a person who stopped to read.
    monkeypatch.setattr(QuietStart, "ARM_AFTER_S", 3.0)
    arrives = asyncio.Event()

    class HeldClient(ReviewClient):
        async def stream(self, messages, tools=(), *, model=None):
            await arrives.wait()
            async for event in super().stream(messages, tools, model=model):
                yield event

    client = HeldClient([FIRST])
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=(100, 30)) as pilot:
        await send_plan(pilot)
        prompt = app.screen.query_one(PromptInput)
        await pilot.press(*"the ")
        arrives.set()
        await wait_until(pilot, lambda: isinstance(app.screen, PlanReviewModal))
        await pilot.press(*"next step", "enter", "e")
        await pilot.pause(0.2)
        assert isinstance(app.screen, PlanReviewModal) and client.tasks_run == []
        assert prompt.text == "the next stepe"
        await wait_until(pilot, lambda: app.screen.armed)  # the person stops and reads
        await pilot.press("escape")
        await wait_until(pilot, lambda: "rejected" in notices(app))
        assert client.tasks_run == []


@pytest.mark.parametrize("how", ["key", "button"])
async def test_reject_runs_nothing(settings, project_dir, how: str) -> None:
    client = ReviewClient([FIRST])
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=(100, 30)) as pilot:
        await start(pilot)
        if how == "key":
            await pilot.press("escape")
        else:
            await pilot.click("#reject")
        await wait_until(pilot, lambda: "rejected" in notices(app))
        assert client.tasks_run == []


async def edit_refused(pilot, dialog: PlanReviewModal, text: str) -> PlanReviewModal:
    """e on ``dialog``, ``text`` in the JSON editor, Ctrl+S: the review that comes back."""
    await pilot.press("e")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, RulesDraftModal))
    pilot.app.screen.query_one(TextArea).load_text(text)
    await pilot.press("ctrl+s")
    return await review_opens(pilot, after=dialog)


async def test_edit_refuses_an_invalid_plan_then_runs_the_fixed_one(settings,
                                                                    project_dir) -> None:
    """e opens the JSON; an edit that breaks the rules brings the review back with the
    reason (nothing ran), the next Edit starts from what was typed, Esc there goes back to
    the review, and a valid edit runs."""
    client = ReviewClient([FIRST])
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await start(pilot)
        broken = tasks_json(("look", "Look around", ["look"]))
        again = await edit_refused(pilot, dialog, broken)
        assert shown(again)[0] == "The edited plan cannot run: task 'look' depends on itself"
        assert client.tasks_run == []
        await pilot.click("#edit")
        await wait_until(pilot, lambda: isinstance(app.screen, RulesDraftModal))
        assert app.screen.query_one(TextArea).text.strip() == broken
        await pilot.press("escape")  # nothing changed in the editor: straight back
        third = await review_opens(pilot, after=again)
        assert shown(third)[0] == "1. Look around (look)"
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, RulesDraftModal))
        app.screen.query_one(TextArea).load_text(tasks_json(("look", "Look around", [])))
        await pilot.press("ctrl+s")
        pane = await ran(pilot, client)
        assert client.tasks_run == ["look"] and list(pane.rows) == ["look"]


async def test_words_typed_outside_the_json_are_refused_not_dropped(settings,
                                                                   project_dir) -> None:
    """A sentence typed under the edited JSON was dropped without a word and the plan ran:
    now the review comes back saying what was extra and on which line, nothing ran, and the
    next Edit holds every character typed."""
    client = ReviewClient([FIRST])
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await start(pilot)
        typed = tasks_json(("look", "Look around", [])) + "\nand skip the tests\n"
        again = await edit_refused(pilot, dialog, typed)
        assert shown(again)[0].startswith(
            "The edited plan cannot run: there is text after the JSON object, on line 2: "
            "'and skip the tests'")
        assert client.tasks_run == []
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, RulesDraftModal))
        assert app.screen.query_one(TextArea).text == typed


@pytest.mark.parametrize(("size", "rows"), [((50, 16), 2), ((60, 20), 1), ((80, 24), 1),
                                            ((100, 30), 1)])
async def test_a_long_plan_scrolls_and_the_buttons_stay(settings, project_dir, size,
                                                        rows) -> None:
    """Eight tasks with long texts do not fit: the tasks scroll, and every button is whole
    inside the dialog, on one row where they fit. At 50 columns Reject was cut at the
    dialog's border: the four now take two rows of two."""
    long = json.dumps({"tasks": [
        {"id": f"t{n}", "title": f"Task number {n}", "task": "Read the module and report "
         "every public function with its callers. " * 3, "depends_on": []}
        for n in range(8)]})
    client = ReviewClient([long])
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=size) as pilot:
        dialog = await start(pilot)
        tasks = dialog.query_one(".plan-review-tasks")
        assert tasks.max_scroll_y > 0
        buttons = list(dialog.query(Button))

        def whole() -> list[str]:
            """The buttons not whole inside the dialog ([]: all are)."""
            inside = dialog.query_one(".plan-review-dialog").content_region
            return [f"{b.id} at {b.region}, the dialog's inside {inside}" for b in buttons
                    if not b.region.height or not inside.contains_region(b.region)
                    or any(b.region.overlaps(o.region) for o in buttons if o is not b)]

        assert whole() == []
        assert len({b.region.y for b in buttons}) == rows
        # the words box opened: the tasks give up rows, the buttons stay
        await pilot.press("r")
        await wait_until(pilot, lambda: dialog.feedback_open and not whole(), explain=whole)
