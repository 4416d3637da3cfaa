"""Seeded scenes of sub-agents and Plan mode at 80×24 and 60×20: a sub-agent running with its
tool calls inside, two finished sub-agents (one done, one failed), and a plan running in the
pane. Events are scripted (the core's own event types); clocks are frozen so the pictures
are stable. Shared by the snapshot tests."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.screen import Screen
from ui_fakes import FakeClient, FakeSession
from ui_scenarios import Scene, _app, _backend, settle, type_and_send

from paicli_tui.app import PaicliApp
from paicli_tui.config import Settings
from paicli_tui.core.agent.plan import Plan, plan_from_json
from paicli_tui.core.agent.subagent_record import SubAgentRecord
from paicli_tui.core.contracts import events as ev
from paicli_tui.core.messages import Message, Role, ToolCall

PARENT = "s1"


def step(sub: str, event: ev.AgentEvent) -> ev.SubAgentStep:
    return ev.SubAgentStep(subagent=sub, parent=PARENT, event=event)


def request(n: int, tokens: int) -> ev.RequestStarted:
    return ev.RequestStarted(n, tokens, 128_000, 57_000, 95_000)


def explore_steps(sub: str) -> list[ev.AgentEvent]:
    """A sub-agent finding and reading the indexer, then grepping (still running)."""
    return [
        step(sub, request(1, 2_100)),
        step(sub, ev.ToolCallStarted("c1", "glob_files", '{"pattern": "**/indexer*.py"}')),
        step(sub, ev.ToolCallFinished("c1", "glob_files", "done",
                                      "paicli_tui/core/code/indexer.py", 32)),
        step(sub, ev.ToolCallStarted("c2", "read_file",
                                     '{"path": "paicli_tui/core/code/indexer.py"}')),
        step(sub, ev.ToolCallFinished("c2", "read_file", "done", '"""Incremental index."""',
                                      18_204)),
        step(sub, request(2, 6_400)),
        step(sub, ev.ToolCallStarted("c3", "grep_code", '{"pattern": "def build"}')),
    ]


def delegate(call_id: str, label: str) -> ev.ToolCallStarted:
    return ev.ToolCallStarted(call_id, "run_subagent", json.dumps(
        {"task": f"{label}: report how it works", "label": label}))


def started(sub: str, label: str, call_id: str = "", task_id: str = "") -> ev.SubAgentStarted:
    return ev.SubAgentStarted(subagent=sub, parent=PARENT, label=label, call_id=call_id,
                              task_id=task_id)


def finished(sub: str, status: str, requests: int, tools: int, tokens: int,
             seconds: float) -> ev.SubAgentFinished:
    return ev.SubAgentFinished(subagent=sub, parent=PARENT, status=status, requests=requests,
                               tool_calls=tools, history_tokens=tokens, elapsed_s=seconds)


class PlanFakeSession(FakeSession):
    """run_plan plays ``plan_script`` (events, an asyncio.Event to hold on, or a Plan to
    hand to the review)."""

    def __init__(self, plan_script: Sequence[Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.plan_script = list(plan_script)

    async def run_plan(self, goal: str, *, review: Any, on_failure: Any = None,
                       resume: Any = None) -> AsyncIterator[ev.AgentEvent]:
        for item in self.plan_script:
            if isinstance(item, asyncio.Event):
                await item.wait()
                continue
            if isinstance(item, Plan):
                await review(item)
                continue
            yield item
            await asyncio.sleep(0)


def freeze_plan_clocks(screen: Screen, running: float = 7.0) -> None:
    """Running sub-agents and plan tasks read ``running`` seconds since they started."""
    from paicli_tui.ui.widgets.plan_pane import PlanPane
    from paicli_tui.ui.widgets.subagent_block import SubAgentBlock

    for block in screen.query(SubAgentBlock):
        begun = block.started_at
        block.clock = lambda begun=begun: begun + running  # type: ignore[misc]
        block.title = block.title_text()
    for pane in screen.query(PlanPane):
        pane.clock = lambda: 1_000.0  # type: ignore[misc]
        for row in pane.rows.values():
            if row.started_at is not None:
                row.started_at = 1_000.0 - running
            if row.seconds is not None:
                row.seconds = 3.0
        pane.refresh()


async def frozen(pilot: Pilot) -> None:
    from paicli_tui.ui.widgets.chat_log import ChatLog

    await settle(pilot, 2)
    freeze_plan_clocks(pilot.app.screen)
    # on a loaded machine the anchored log had not yet scrolled to the blocks mounted last
    # (a full run once drew the welcome line instead): follow the end before the picture
    for log in pilot.app.screen.query(ChatLog):
        log.scroll_end(animate=False)
    await pilot.pause()


TASKS = (
    {"id": "scan", "title": "Scan the code", "task": "List the modules.", "depends_on": []},
    {"id": "docs", "title": "Read the docs", "task": "Read README.", "depends_on": []},
    {"id": "report", "title": "Write the report", "task": "Join both.",
     "depends_on": ["scan", "docs"]},
    {"id": "check", "title": "Check the links", "task": "Check links.",
     "depends_on": ["report"]},
)


async def send_plan(pilot: Pilot, goal: str) -> None:
    """Once the app settled, ``/plan goal`` sent, and what it opened settled."""
    await settle(pilot)
    await type_and_send(pilot, f"/plan {goal}")
    await settle(pilot)


def plan_scenes(settings: Settings, project: Path) -> list[Scene]:
    out: list[Scene] = []

    hold = asyncio.Event()
    running = _app(_backend(settings, project, client=FakeClient(), session=FakeSession(
        script=[request(1, 9_000), delegate("p1", "explore indexer"),
                started("s1.sub-1", "explore indexer", call_id="p1"),
                *explore_steps("s1.sub-1"), hold])))

    async def running_before(pilot: Pilot) -> None:
        await settle(pilot)
        await type_and_send(pilot, "how does the indexer work? use a sub-agent")
        await frozen(pilot)
    out.append(Scene(
        "subagent_running", running, running_before,
        "A sub-agent running: its block open under the question, title '◆ sub-agent explore "
        "indexer · running 7 s · 2 req · 2 tools · 6.4k tok' in the warning colour; inside, "
        "'✓ glob_files **/indexer*.py', '✓ read_file paicli_tui/core/code/indexer.py · 18k "
        "chars' and '… grep_code def build · running 4 s'; no plain run_subagent block; the "
        "gauge shows the main history (9k), not the sub-agent's."))

    answer = "The indexer walks the tree, chunks each file and embeds only changed chunks."
    done = _app(_backend(settings, project, client=FakeClient(), session=FakeSession(
        script=[request(1, 9_000), delegate("p1", "explore indexer"), delegate("p2", "tests"),
                started("s1.sub-1", "explore indexer", call_id="p1"),
                started("s1.sub-2", "tests", call_id="p2"),
                *explore_steps("s1.sub-1"),
                step("s1.sub-1", ev.ToolCallFinished("c3", "grep_code", "done", "2 hits", 80)),
                step("s1.sub-2", request(1, 1_900)),
                step("s1.sub-2", ev.ToolCallStarted("t1", "list_dir", '{"path": "tests"}')),
                step("s1.sub-2", ev.ToolCallFinished("t1", "list_dir", "failed",
                                                     "no such folder: tests", 21)),
                step("s1.sub-2", ev.AgentError("scripted: the model stopped answering")),
                finished("s1.sub-1", "done", 3, 3, 7_100, 9.4),
                finished("s1.sub-2", "failed", 1, 1, 1_950, 2.2),
                ev.ToolCallFinished("p1", "run_subagent", "done", answer, 420),
                ev.ToolCallFinished("p2", "run_subagent", "failed",
                                    "Sub-agent 'tests' did not finish: the model stopped.", 60),
                request(2, 9_600), ev.TextDelta("It chunks files and embeds what changed."),
                ev.AssistantMessage("It chunks files and embeds what changed."),
                ev.TurnFinished(PARENT, "done", "It chunks files and embeds what changed.")])))

    async def done_before(pilot: Pilot) -> None:
        await settle(pilot)
        await type_and_send(pilot, "map the indexer and its tests")
        await pilot.app.workers.wait_for_complete()
        await frozen(pilot)
    out.append(Scene(
        "subagent_done", done, done_before,
        "Two sub-agents after the turn: '✓ sub-agent explore indexer · done · 9.4 s · 3 req · "
        "3 tools · 7.1k tok' folded (green); '✗ sub-agent tests · failed · 2.2 s · 1 req · 1 "
        "tool · 1.9k tok' left open (red) with its failed list_dir and the error line, then "
        "the answer that came back; the reply after them."))

    plan_hold = asyncio.Event()
    plan = _app(_backend(settings, project, client=FakeClient(), session=PlanFakeSession([
        ev.TurnStarted(PARENT, "/plan write a project report"),
        ev.PlanProposed("write a project report", TASKS),
        ev.PlanTaskStarted("scan", "Scan the code", "s1.sub-1", PARENT),
        ev.PlanTaskStarted("docs", "Read the docs", "s1.sub-2", PARENT),
        started("s1.sub-1", "scan", task_id="scan"), started("s1.sub-2", "docs", task_id="docs"),
        step("s1.sub-1", request(1, 1_800)),
        step("s1.sub-1", ev.ToolCallStarted("a1", "list_dir", '{"path": "paicli_tui"}')),
        step("s1.sub-1", ev.ToolCallFinished("a1", "list_dir", "done", "core/ ui/", 40)),
        finished("s1.sub-1", "done", 2, 1, 2_300, 3.0),
        ev.PlanTaskFinished("scan", "done", "12 modules under paicli_tui/core", "s1.sub-1",
                            PARENT),
        finished("s1.sub-2", "failed", 1, 0, 1_700, 1.0),
        ev.PlanTaskFinished("docs", "failed", "HTTP 500", "s1.sub-2", PARENT),
        ev.PlanTaskStarted("docs", "Read the docs", "s1.sub-3", PARENT, attempt=2),
        started("s1.sub-3", "docs", task_id="docs"),
        step("s1.sub-3", request(1, 1_700)),
        step("s1.sub-3", ev.ToolCallStarted("b1", "read_file", '{"path": "README.md"}')),
        plan_hold])))

    async def plan_before(pilot: Pilot) -> None:
        await send_plan(pilot, "write a project report")
        await frozen(pilot)
    out.append(Scene(
        "plan_running", plan, plan_before,
        "A plan running: the pane above the input titled 'Plan · 1 of 4 done · write a project "
        "report' lists ✓ scan (done 3 s), ↻ docs (retrying (try 2) 7 s), · report ← scan, docs "
        "(pending), · check ← report (pending); in the chat, the folded '✓ task scan: Scan the "
        "code' block, the failed first docs attempt, and the open '◆ task docs: Read the docs "
        "· running' block with read_file running inside."))

    record = SubAgentRecord("s1.sub-1", "explore indexer", status="done", messages=7,
                            history_tokens=7_100, requests=3, tool_calls=2, call_id="p1")
    def with_subagent() -> PaicliApp:
        session = FakeSession()
        session.subagent_records = [record]
        session.subagent_histories = {"s1.sub-1": explore_history()}
        return _app(_backend(settings, project, client=FakeClient(), session=session))

    async def inspector_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("f4")
        await settle(pilot)
    out.append(Scene(
        "inspector_subagents", with_subagent(), inspector_before,
        "The context inspector of a session with one sub-agent: under the compaction history "
        "on the right (its one row cut, so the line under it reads 'no compaction in this "
        "session yet'), the title 'Sub-agents · Enter opens (Tab)' whole, then the columns "
        "sub-agent, msgs, tok, cmp and the row '✓ explore ind 7 7.1k 0'. At 60x20 the "
        "title reads 'Sub-agents · Enter opens' and the table drops cmp, so '7.1k' stays "
        "whole.", screen="ContextInspector"))

    async def history_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("f4")
        await settle(pilot)
        table = pilot.app.screen.query_one("#subagents")
        for _ in range(6):  # Tab to the sub-agents' table, as a person does
            if pilot.app.focused is table:
                break
            await pilot.press("tab")
        await pilot.press("enter")
        await settle(pilot)
    out.append(Scene(
        "subagent_history", with_subagent(), history_before,
        "A sub-agent's own history opened from the context inspector's sub-agent row: a "
        "dialog titled '✓ sub-agent explore indexer · done · 7 messages · 7.1k tok', the "
        "scroll keys under it, then 'system prompt · 214 tokens' (dim), 'task' (bold) and the "
        "task, '→ glob_files pattern=**/indexer*.py' (cyan) with its result indented and dim "
        "under it, '→ read_file path=…' with the first 6 lines of the file under it and '… "
        "(3 more lines)', and further down (scroll) 'answer' with the sub-agent's answer; at "
        "60x20 the text wraps inside the dialog and the scroll bar shows there is more.",
        screen="SubAgentHistoryModal"))
    goal = "write a project report"
    review = plan_from_json(goal, {"tasks": [dict(t) for t in REVIEW_TASKS]})

    def reviewing(refused: str = "") -> PaicliApp:
        script: list[Any] = [ev.TurnStarted(PARENT, f"/plan {goal}"),
                             ev.PlanProposed(goal, REVIEW_TASKS)]
        if refused:  # a revision was asked and refused: the review opens again, saying why
            script += [review, ev.PlanRevised("refused", 1, 3, 24, refused)]
        return _app(_backend(settings, project, client=FakeClient(), session=PlanFakeSession(
            [*script, review, asyncio.Event()])))

    out.append(Scene(
        "plan_review", reviewing(), partial(send_plan, goal=goal),
        "The plan review over the chat: the title 'Plan · 4 tasks · write a project report', "
        "then '1 and 2 run together' (accent), '1. Scan the code (scan)' in bold with its "
        "task text indented and dim under it, '2. Read the docs (docs)', '3. Write the "
        "report (report) · after 1, 2', '4. Check the links (check) · after 3' (at 60x20 "
        "the texts wrap and all still fit); under them 'Revise: your "
        "words, a new plan (3 revisions left)' and the buttons Run (Enter), Revise (r), Edit "
        "(e), Reject (Esc) on one row, inside the screen.", screen="PlanReviewModal"))

    async def revise_before(pilot: Pilot) -> None:
        await send_plan(pilot, goal)
        await pilot.press("r")  # the first review: ask for a revision, which is refused
        await pilot.press(*"split task 2", "enter")
        await settle(pilot)
        await pilot.press("r", *"drop the check")  # the second review: words being typed
        await settle(pilot)
    out.append(Scene(
        "plan_revise", reviewing("the plan is not valid JSON (the model's answer, also once "
                                 "asked to fix it). The plan before is offered again."),
        revise_before,
        "The review opened again after a refused revision: the warning line 'The revision "
        "was refused: the plan is not valid JSON … The plan before is offered again.' above "
        "the same four tasks, the hint '2 revisions left', and the words box open under the "
        "tasks: 'What should change? Enter sends it; Esc goes back.' (whole at 60x20) with "
        "'drop the check' typed; the buttons still on screen at 60x20.",
        screen="PlanReviewModal"))
    return out


REVIEW_TASKS = (
    {"id": "scan", "title": "Scan the code", "task": "List the modules under paicli_tui/ and "
     "say in one line what each one does.", "depends_on": []},
    {"id": "docs", "title": "Read the docs", "task": "Read README.md and docs/*.md; list the "
     "features they promise.", "depends_on": []},
    {"id": "report", "title": "Write the report", "task": "Join both results into "
     "REPORT.md: the modules, the features, and which features no module provides.",
     "depends_on": ["scan", "docs"]},
    {"id": "check", "title": "Check the links", "task": "Check every link in REPORT.md "
     "points to a file that exists.", "depends_on": ["report"]},
)


def explore_history() -> list[Message]:
    """What a sub-agent's stream holds after exploring the indexer."""
    glob = ToolCall("c1", "glob_files", '{"pattern": "**/indexer*.py"}')
    read = ToolCall("c2", "read_file", '{"path": "paicli_tui/core/code/indexer.py"}')
    return [
        Message.system("You are a sub-agent. " * 40),
        Message(Role.USER, "<turn_context>date</turn_context>\n\nexplore indexer: report how "
                "the incremental index decides what to embed again",
                meta={"user_input": "explore indexer: report how the incremental index "
                      "decides what to embed again"}),
        Message.assistant("", [glob]),
        Message.tool("c1", "glob_files", "paicli_tui/core/code/indexer.py"),
        Message.assistant("", [read]),
        Message.tool("c2", "read_file", '"""Incremental index: a file is parsed and embedded again only when '
                     'its hash changed."""\n\nfrom __future__ import annotations\n\nimport '
                     'hashlib\nimport os\nimport time\nfrom pathlib import Path\n'),
        Message.assistant("It hashes each file; only files whose hash changed are chunked and "
                          "embedded again, and chunks of deleted files are dropped."),
    ]
