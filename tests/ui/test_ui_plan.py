"""Plan mode and sub-agents in the TUI on the real core (AgentSession, ledger) with a scripted
model at the provider protocol: the plan is reviewed in an editable dialog, the plan pane
follows each task, every sub-agent gets a block with its tool calls inside as they happen,
the context inspector lists each sub-agent's own history, and resuming a session whose plan
was interrupted offers to continue only the unfinished tasks."""

from __future__ import annotations

import asyncio
import json

from pilot_helpers import wait_for_screen, wait_until
from test_ui_core_session import ScriptedClient, make_app, send
from textual.widgets import Button, Static

from paicli_tui.core.contracts.llm import StreamDone
from paicli_tui.core.messages import Message, Role, ToolCall
from paicli_tui.ui.modals.confirm import ConfirmModal
from paicli_tui.ui.modals.plan_review import PlanReviewModal
from paicli_tui.ui.modals.rules_draft import RulesDraftModal
from paicli_tui.ui.widgets.chat_log import ChatLog
from paicli_tui.ui.widgets.notice import ChatNotice
from paicli_tui.ui.widgets.plan_pane import PlanPane
from paicli_tui.ui.widgets.subagent_block import SubAgentBlock

PLAN = json.dumps({"tasks": [
    {"id": "look", "title": "Look around", "task": "List the files.", "depends_on": []},
    {"id": "sum", "title": "Summarise", "task": "Say what is there.", "depends_on": ["look"]}]})
SUBAGENT_MARK = "working as a sub-agent"


class PlanClient(ScriptedClient):
    """Plans on tool-less plan requests; every sub-agent answers from the script."""

    async def stream(self, messages, tools=(), *, model=None):
        if not tools and messages[0].content.startswith("You plan work"):
            yield StreamDone(Message.assistant(PLAN), "stop")
            return
        async for event in super().stream(messages, tools, model=model):
            yield event


class RoutedClient(ScriptedClient):
    """The parent's and the sub-agents' conversations, each from its own script; a sub-agent
    reply may wait for an event (so the test can look at the block while it runs)."""

    def __init__(self, parent, children, holds=None) -> None:
        super().__init__(parent)
        self.children = {key: ScriptedClient(script) for key, script in children.items()}
        self.holds = holds or {}
        self.task_requests: list[str] = []

    async def stream(self, messages, tools=(), *, model=None):
        if tools and SUBAGENT_MARK in messages[0].content:
            task = next(m.content for m in messages if m.role is Role.USER)
            key = next((k for k in self.children if f"Your task ({k}:" in task), None) or \
                next(k for k in self.children if k in task)
            self.task_requests.append(key)
            child = self.children[key]
            hold = self.holds.get((key, len(child.requests)))
            if hold is not None:
                await hold.wait()
            async for event in child.stream(messages, tools, model=model):
                yield event
            return
        if not tools and messages[0].content.startswith("You plan work"):
            yield StreamDone(Message.assistant(PLAN), "stop")
            return
        async for event in super().stream(messages, tools, model=model):
            yield event


async def plan_for_review(pilot, goal: str) -> None:
    """Once the session is up, ``/plan goal`` sent and its plan in the review dialog."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await send(pilot, f"/plan {goal}")
    await wait_for_screen(pilot, PlanReviewModal)


def notices(app) -> str:
    """The chat's notices (the chat screen under any dialog)."""
    from paicli_tui.ui.screens.chat import ChatScreen

    chat = next(s for s in app.screen_stack if isinstance(s, ChatScreen))
    return "\n".join(n.source for n in chat.query_one(ChatLog).query(ChatNotice))


async def test_plan_reviewed_run_with_pane_and_task_blocks(settings, project_dir) -> None:
    """What a person sees: the plan in the dialog; after Ctrl+S the pane 'Plan · 2 of 2 done
    · finished' with ✓ look and ✓ sum ← look; one block per task ('✓ task look: Look
    around · done'), folded, with its answer; the plan's result as the answer."""
    client = PlanClient([(["look: two files"], []), (["sum: a small project"], [])])
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=(100, 30)) as pilot:
        await plan_for_review(pilot, "describe this project")
        # the buttons say what they do to a plan, with their keys
        assert [str(b.label) for b in app.screen.query(Button)] == [
            "Run (Enter)", "Revise (r)", "Edit (e)", "Reject (Esc)"]
        # and the chat lists the tasks, one line each (ids are words, not list numbers)
        assert "- **look** · Look around — List the files." in notices(app)
        assert "- **sum** · Summarise (after look) — Say what is there." in notices(app)
        await pilot.press("ctrl+s")  # run the plan as proposed
        pane = app.screen.query_one(PlanPane)
        await wait_until(pilot, lambda: pane.outcome == "finished")
        assert pane.display and pane.header().startswith("Plan · 2 of 2 done · finished")
        assert [(r.id, r.status, r.depends_on) for r in pane.rows.values()] == [
            ("look", "done", ()), ("sum", "done", ("look",))]
        log = app.screen.query_one(ChatLog)
        blocks = list(log.query(SubAgentBlock))
        assert [(b.task_id, b.status, b.collapsed) for b in blocks] == [
            ("look", "done", True), ("sum", "done", True)]
        assert blocks[0].title.startswith("✓ task look: Look around · done")
        assert "look: two files" in str(blocks[0]._answer.render())
        await wait_until(pilot, lambda: "2 of 2 tasks done" in log.query("AssistantBlock")
                         .last().text)
        history = app.screen.session.history
        assert history[-1].role is Role.ASSISTANT and "2 of 2 tasks done" in history[-1].content
        assert history[-2].content.endswith("/plan describe this project")
        # the gauge shows the main history, which now holds the plan's turn
        await wait_until(pilot, lambda: not app.screen.turn_running)
        await wait_until(pilot, lambda: app.screen.gauge.tokens == app.screen.session.estimate())


async def test_plan_rejected_with_escape_runs_nothing(settings, project_dir) -> None:
    client = PlanClient([])
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=(100, 30)) as pilot:
        await plan_for_review(pilot, "do everything")
        await pilot.press("escape")
        await wait_until(pilot, lambda: "rejected" in notices(app))
        assert not [r for r in client.requests if SUBAGENT_MARK in r[0].content]
        assert not app.screen.query_one(PlanPane).display


async def test_subagent_block_shows_its_tool_calls_as_they_happen(settings,
                                                                  project_dir) -> None:
    """While the sub-agent runs: '◆ sub-agent explore · running … · 1 req · 1 tool · …
    tok', open, with '✓ read_file notes.txt' inside; the plain run_subagent tool block is
    hidden. Once it answered: '✓ sub-agent explore · done', folded, its answer inside; the
    gauge shows the main history only. The inspector lists the sub-agent's own numbers."""
    from paicli_tui.ui.format import fmt_tokens
    from paicli_tui.ui.screens.context_inspector import ContextInspector

    (project_dir / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    delegate = ToolCall("call_p1", "run_subagent",
                        json.dumps({"task": "explore notes.txt", "label": "explore"}))
    release = asyncio.Event()
    client = RoutedClient(
        [([""], [delegate]), (["It holds alpha and beta."], [])],
        {"explore": [([""], [ToolCall("call_c1", "read_file", '{"path": "notes.txt"}')]),
                     (["notes.txt lists alpha and beta."], [])]},
        holds={("explore", 1): release})
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await send(pilot, "what is in notes.txt? use a sub-agent")
        log = app.screen.query_one(ChatLog)
        await wait_until(pilot, lambda: any(
            b.status == "done" for blk in log.query(SubAgentBlock) for b in blk.tools.values()))
        block = log.query_one(SubAgentBlock)
        assert block.status == "running" and not block.collapsed
        assert block.title.startswith("◆ sub-agent explore · running")
        # its second request is on its way (held): 2 requests, 1 tool call so far
        assert "2 req" in block.title and "1 tool" in block.title
        [inner] = block.tools.values()
        assert inner.tool_name == "read_file" and "alpha" in str(inner._preview.render())
        parent_tool = log.tool_blocks["call_p1"]
        assert not parent_tool.display, "the sub-agent block stands for the call"
        assert inner not in log.tool_blocks.values(), "its tools are not the parent's"
        release.set()
        await wait_until(pilot, lambda: block.status == "done")
        await wait_until(pilot, lambda: not app.screen.turn_running)
        assert block.collapsed and block.title.startswith("✓ sub-agent explore · done")
        assert "2 req" in block.title
        assert "notes.txt lists alpha and beta" in str(block._answer.render())
        session = app.screen.session
        await wait_until(pilot, lambda: app.screen.gauge.tokens == session.estimate())
        [record] = session.subagent_records
        assert (record.status, record.messages, record.requests, record.tool_calls) == (
            "done", 5, 2, 1)
        await pilot.press("f4")
        await wait_for_screen(pilot, ContextInspector)
        await pilot.pause()
        table = app.screen.query_one("#subagents")
        row = [str(cell) for cell in table.get_row_at(0)]
        assert row == ["✓", "explore", "5", fmt_tokens(record.history_tokens), "0"]
        # the row opens the sub-agent's own messages (Tab reaches the table, Enter opens)
        from paicli_tui.ui.modals.subagent_history import SubAgentHistoryModal

        for _ in range(6):
            if app.focused is table:
                break
            await pilot.press("tab")
        assert app.focused is table
        await pilot.press("enter")
        await wait_for_screen(pilot, SubAgentHistoryModal)
        shown = str(app.screen.query_one(".help-text", Static).render())
        assert app.screen.query_one(".dialog-title", Static).render().plain.startswith(
            "✓ sub-agent explore · done · 5 messages")
        lines = [line.strip() for line in shown.splitlines() if line.strip()]
        assert lines[0].startswith("system prompt · ")
        assert lines[1:] == ["task", "explore notes.txt", "→ read_file path=notes.txt",
                             "notes.txt (2 lines)", "1\talpha", "2\tbeta", "answer",
                             "notes.txt lists alpha and beta."]
        await pilot.press("escape")
        await wait_for_screen(pilot, ContextInspector)


async def test_a_resumed_session_draws_a_past_subagent_call_as_its_block(settings,
                                                                        project_dir) -> None:
    """Resuming a session where the model delegated: in place of a plain 'run_subagent
    task=…' tool block the chat shows '✓ sub-agent explore · done · 2 req · 1 tool · … tok'
    (no seconds: they were not recorded), folded, with '✓ read_file path=notes.txt' and its
    result inside (read from the sub-agent's own stream) and the answer the parent got."""
    from paicli_tui.core.agent.session import AgentSession
    from paicli_tui.ui.format import fmt_tokens

    (project_dir / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    delegate = ToolCall("call_p1", "run_subagent",
                        json.dumps({"task": "explore notes.txt", "label": "explore"}))
    client = RoutedClient(
        [([""], [delegate]), (["It holds alpha and beta."], [])],
        {"explore": [([""], [ToolCall("call_c1", "read_file", '{"path": "notes.txt"}')]),
                     (["notes.txt lists alpha and beta."], [])]})
    session = await AgentSession.start(settings, project_dir, client=client)
    [_ async for _ in session.run_turn("what is in notes.txt? use a sub-agent")]
    await session.aclose()

    app = make_app(settings, project_dir, ScriptedClient([]))
    app.resume = session.session_id
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: bool(app.screen.query(SubAgentBlock))
                         and app.screen.query_one(SubAgentBlock).status != "running")
        log = app.screen.query_one(ChatLog)
        block = log.query_one(SubAgentBlock)
        [record] = app.screen.session.subagent_records  # as read back from its stream
        assert block.call_id == "call_p1" and block.collapsed
        assert block.title == (
            f"✓ sub-agent explore · done · 2 req · 1 tool · "
            f"{fmt_tokens(record.history_tokens)} tok")
        assert not log.tool_blocks["call_p1"].display, "the sub-agent block stands for it"
        [inner] = block.tools.values()
        assert (inner.tool_name, inner.status) == ("read_file", "done")
        # the result as the read returned it, without the history's untrusted-data tag
        assert str(inner._preview.render()).splitlines() == [
            "notes.txt (2 lines)", "     1\talpha", "     2\tbeta"]
        assert "notes.txt lists alpha and beta" in str(block._answer.render())


async def test_resume_offers_to_continue_an_interrupted_plan(settings, project_dir) -> None:
    """Resuming: a notice lists '✓ look: Look around (done)' and '· sum: Summarise (not
    finished)', a dialog asks to continue; Continue runs only 'sum', with look's result."""
    from paicli_tui.core.agent.session import AgentSession

    hold = asyncio.Event()
    first = RoutedClient([], {"look": [(["LOOK: two files"], [])],
                              "sum": [(["never"], [])]}, holds={("sum", 0): hold})
    session = await AgentSession.start(settings, project_dir, client=first)

    async def approve(plan):
        return plan

    async def consume() -> None:
        async for _ in session.run_plan("describe", review=approve):
            pass

    task = asyncio.ensure_future(consume())
    await wait_for(lambda: first.task_requests == ["look", "sum"])
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await session.aclose()

    second = RoutedClient([], {"sum": [(["SUM: a small project"], [])]})
    app = make_app(settings, project_dir, second)
    app.resume = session.session_id
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_screen(pilot, ConfirmModal)
        await wait_until(pilot, lambda: "1 of 2 tasks finished" in notices(app))
        assert "· sum: Summarise (not finished)" in notices(app)
        await pilot.press("y")
        pane = app.screen.query_one(PlanPane)
        await wait_until(pilot, lambda: pane.outcome == "finished")
        assert second.task_requests == ["sum"], "only the unfinished task ran"
        sum_input = next(m.content for m in second.children["sum"].requests[0]
                         if m.role is Role.USER)
        assert "LOOK: two files" in sum_input
        assert [(r.id, r.status) for r in pane.rows.values()] == [("look", "done"),
                                                                  ("sum", "done")]
        assert [b.task_id for b in app.screen.query_one(ChatLog).query(SubAgentBlock)] == [
            "sum"]


async def wait_for(check, seconds: float = 20.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if check():
            return
        await asyncio.sleep(0.02)
    assert check()


def test_block_titles_table() -> None:
    from paicli_tui.ui.widgets.subagent_block import subagent_title

    table = [
        (("sub-agent explore", "running", 12.4, 3, 5, 2_345),
         "◆ sub-agent explore · running 12 s · 3 req · 5 tools · 2.3k tok"),
        (("task look: Look around", "done", 4.25, 2, 1, 950),
         "✓ task look: Look around · done · 4.2 s · 2 req · 1 tool · 950 tok"),
        (("sub-agent x", "failed", 0.0, 0, 0, 0), "✗ sub-agent x · failed · 0.0 s"),
        (("sub-agent x", "cancelled", 1.0, 1, 0, 10), "⊘ sub-agent x · cancelled · 1.0 s · "
                                                      "1 req · 10 tok"),
        # a resumed session's sub-agent: its seconds were not recorded
        (("sub-agent explore", "done", None, 2, 1, 950),
         "✓ sub-agent explore · done · 2 req · 1 tool · 950 tok"),
    ]
    for args, expected in table:
        assert subagent_title(*args) == expected


async def test_escape_mid_plan_interrupts_it_and_leaves_it_resumable(settings,
                                                                     project_dir) -> None:
    """Esc while the second task runs: its block turns '⊘ … cancelled', the pane says
    'interrupted' with look done and sum cancelled (it read 'failed', as if the task had
    gone wrong), and the ledger holds a plan to continue."""
    hold = asyncio.Event()
    client = RoutedClient([], {"look": [(["LOOK: two files"], [])],
                               "sum": [(["never"], [])]}, holds={("sum", 0): hold})
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=(100, 30)) as pilot:
        await plan_for_review(pilot, "describe this project")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: client.task_requests == ["look", "sum"])
        await pilot.press("escape")
        pane = app.screen.query_one(PlanPane)
        await wait_until(pilot, lambda: pane.outcome == "interrupted")
        assert [(r.id, r.status) for r in pane.rows.values()] == [("look", "done"),
                                                                  ("sum", "cancelled")]
        assert pane.state_text(pane.rows["sum"]).startswith("cancelled")
        blocks = {b.task_id: b for b in app.screen.query_one(ChatLog).query(SubAgentBlock)}
        assert blocks["sum"].status == "cancelled" and blocks["look"].status == "done"
        found = app.screen.session.interrupted_plan()
        assert found is not None and found.remaining == ["sum"]
        assert found.finished["look"] == ("done", "LOOK: two files")
        # quitting says how to come back to it (nothing was in the history, so it said
        # nothing, and the session list left the session out)
        session_id = app.screen.session.session_id
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: bool(app.resume_hint))
    assert app.resume_hint == f"Continue the interrupted plan: paicli-tui --resume {session_id}"


async def test_the_status_line_follows_the_task_still_running(settings, project_dir) -> None:
    """Found in tmux: task look ran a tool and finished, task sum went on for a minute, and
    the line above the input still read 'task look: Look around: read_file' all along. Once
    a task's tool is done and once a task is done, the line says what still runs."""
    (project_dir / "notes.txt").write_text("alpha\n", encoding="utf-8")
    hold = asyncio.Event()
    client = RoutedClient([], {
        "look": [([""], [ToolCall("call_c1", "read_file", '{"path": "notes.txt"}')]),
                 (["LOOK: one file"], [])],
        "sum": [(["SUM: done"], [])]}, holds={("sum", 0): hold})
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=(100, 30)) as pilot:
        await plan_for_review(pilot, "describe this project")
        await pilot.press("ctrl+s")
        pane = app.screen.query_one(PlanPane)
        await wait_until(pilot, lambda: client.task_requests[-1:] == ["sum"]
                         and pane.rows["look"].status == "done")

        def says_what_still_runs() -> bool:
            label = app.screen.status.label
            return "task sum" in label and "look" not in label and "read_file" not in label

        # a label left at task look stays so while sum is held (that is what is checked)
        await wait_until(pilot, says_what_still_runs, 30, lambda: app.screen.status.label)
        hold.set()
        await wait_until(pilot, lambda: not app.screen.turn_running)


async def test_ctrl_c_in_the_plan_review_rejects_it_and_cancels_the_turn(settings,
                                                                       project_dir) -> None:
    """Ctrl+C in the review cancels the turn, as in every dialog the turn opens, and runs
    nothing."""
    client = PlanClient([])
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=(100, 30)) as pilot:
        await plan_for_review(pilot, "do everything")
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not isinstance(app.screen, PlanReviewModal))
        await wait_until(pilot, lambda: not app.screen.turn_running)
        assert not [r for r in client.requests if SUBAGENT_MARK in r[0].content]
        # said once the turn has ended: a moment later on a busy machine
        await wait_until(pilot, lambda: "Turn cancelled." in notices(app))


async def test_ctrl_c_in_the_plans_json_copies_a_choice_else_cancels_the_turn(
        settings, project_dir) -> None:
    """The JSON editor behind Edit: its text area took Ctrl+C for copy even with nothing
    chosen, so Ctrl+C did nothing there while it cancels the turn in every other dialog the
    turn opens. With text chosen it still copies and the editor stays; with nothing chosen
    the turn is cancelled (the review does not open again)."""
    from textual.widgets import TextArea

    client = PlanClient([])
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=(100, 30)) as pilot:
        await plan_for_review(pilot, "do everything")
        await pilot.press("e")
        await wait_for_screen(pilot, RulesDraftModal)
        area = app.screen.query_one(TextArea)
        area.select_all()
        copied: list[str] = []
        app.copy_to_clipboard = copied.append
        await pilot.press("ctrl+c")
        assert copied and '"tasks"' in copied[0]
        assert isinstance(app.screen, RulesDraftModal)
        area.select_line(0)
        area.move_cursor((0, 0))  # nothing chosen
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not app.screen.turn_running)
        assert not isinstance(app.screen, PlanReviewModal | RulesDraftModal)
        assert not [r for r in client.requests if SUBAGENT_MARK in r[0].content]
        await wait_until(pilot, lambda: "Turn cancelled." in notices(app))  # after the end
        assert any("Turn cancelled (Ctrl+C)" in n.message for n in app._notifications)
