"""The TUI on the real core: AgentSession, ledger, memory and code services, with a scripted
ChatClient at the provider protocol (StreamDelta / StreamDone)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from pilot_helpers import wait_for_screen, wait_until

from paicli_tui.app import PaicliApp
from paicli_tui.config import Settings
from paicli_tui.core.context.pairing import pairing_problems
from paicli_tui.core.contracts.llm import StreamDelta, StreamDone, UsageReport
from paicli_tui.core.messages import Message, Role, ToolCall
from paicli_tui.ui.core_backend import CoreBackend
from paicli_tui.ui.widgets.chat_log import ChatLog
from paicli_tui.ui.widgets.compaction_notice import CompactionNotice
from paicli_tui.ui.widgets.context_gauge import ContextGauge
from paicli_tui.ui.widgets.prompt_input import PromptInput
from paicli_tui.ui.widgets.tool_block import ToolBlock

SIZE = (100, 30)


class ScriptedClient:
    """Replies from a list: each reply is (text pieces, tool calls). ``hold`` pauses a reply
    after its first piece until set (to cancel mid-stream)."""

    provider = "scripted"
    model = "scripted-1"

    def __init__(self, replies: list[tuple[list[str], list[ToolCall]]], window: int = 128_000,
                 hold: asyncio.Event | None = None) -> None:
        self.replies = list(replies)
        self.window = window
        self.hold = hold
        self.requests: list[list[Message]] = []

    async def stream(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]] = (),
                     *, model: str | None = None) -> AsyncIterator[Any]:
        self.requests.append(list(messages))
        pieces, calls = self.replies.pop(0) if self.replies else (["Done."], [])
        for index, piece in enumerate(pieces):
            yield StreamDelta(text=piece)
            if index == 0 and self.hold is not None:
                await self.hold.wait()
        message = Message.assistant("".join(pieces), calls)
        yield StreamDone(message, "tool_calls" if calls else "stop",
                         UsageReport(prompt_tokens=900 + 100 * len(self.requests),
                                     completion_tokens=20, cached_tokens=512),
                         tuple(calls))

    async def aclose(self) -> None:
        return None


class ScriptedBackend(CoreBackend):
    def __init__(self, settings: Settings, root: Path, client: ScriptedClient) -> None:
        super().__init__(settings, root)
        self.client = client

    def build_client(self, settings: Settings) -> Any:
        return self.client


def make_app(settings: Settings, project: Path, client: ScriptedClient) -> PaicliApp:
    return PaicliApp(settings, project, backend=ScriptedBackend(settings, project, client))


async def send(pilot, text: str) -> None:
    """Type and send once the session is there (it starts in a worker)."""
    await wait_until(pilot, lambda: getattr(pilot.app.screen, "session", None) is not None)
    prompt = pilot.app.screen.query_one(PromptInput)
    prompt.load_text(text)
    await pilot.press("enter")


async def test_full_turn_with_a_tool_against_the_real_session(settings, project_dir):
    (project_dir / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    call = ToolCall("call_1", "read_file", '{"path": "notes.txt"}')
    client = ScriptedClient([(["Reading ", "the file."], [call]),
                             (["It says **alpha** ", "and beta."], [])])
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await wait_until(pilot, lambda: app.screen.session is not None)
        gauge = app.screen.query_one(ContextGauge)
        start_tokens = gauge.tokens
        assert start_tokens > 0  # the system prompt counts from the start
        await send(pilot, "what is in notes.txt?")
        await app.workers.wait_for_complete()
        await pilot.pause()
        log = app.screen.query_one(ChatLog)
        blocks = list(log.query(ToolBlock))
        assert len(blocks) == 1 and blocks[0].status == "done"
        assert "alpha" in str(blocks[0]._preview.render())
        # the gauge moved and shows the session's (calibrated) estimate after the turn
        assert gauge.tokens != start_tokens
        assert gauge.tokens == app.screen.session.estimate()
        assert gauge.last_prompt == 1_100 and gauge.cached == 512
        assert len(gauge.per_request) == 2
        assert "alpha" in log.query("AssistantBlock").last().text
        session = app.screen.session
        assert [m.role for m in session.history[-4:]] == [
            Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]


async def test_compaction_notice_appears_in_a_small_window(settings, project_dir):
    big = "x" * 3_000
    (project_dir / "big.txt").write_text("\n".join([big] * 12), encoding="utf-8")
    replies = []
    for n in range(4):
        replies.append(([f"step {n}"], [ToolCall(f"c{n}", "read_file", '{"path": "big.txt"}')]))
    replies.append((["finished"], []))
    client = ScriptedClient(replies, window=8_000)
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await send(pilot, "read big.txt several times")
        await app.workers.wait_for_complete()
        await pilot.pause()
        notices = list(app.screen.query(CompactionNotice))
        assert notices, "a small window must trigger a compaction tier"
        assert app.screen.query_one(ContextGauge).window == 8_000


async def test_escape_mid_stream_leaves_a_valid_history(settings, project_dir):
    hold = asyncio.Event()
    client = ScriptedClient([(["Partial ", "rest"], [])], hold=hold)
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await send(pilot, "start something long")
        await wait_until(pilot, lambda: app.screen.turn_running)  # held until Esc
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        await pilot.pause()
        session = app.screen.session
        assert not app.screen.turn_running
        assert pairing_problems(session.history) == []
        assert any(m.role is Role.USER and "start something long" in m.content
                   for m in session.history)


async def pause(pilot, rounds: int = 6) -> None:
    """Let workers run without waiting on ones that await a dialog."""
    for _ in range(rounds):
        await pilot.pause(0.05)


async def test_inspector_of_a_new_session_says_no_compaction_yet(settings, project_dir):
    """Found in tmux: F4 before the first message showed a compaction row reading
    "ledger unavailable: no session '2026…' in …" (a new session's ledger is written with
    its first message). A person now sees "no compaction in this session yet", and r
    (restore the view before the last compaction) says there is none."""
    from paicli_tui.ui.screens.context_inspector import NO_COMPACTION, ContextInspector

    app = make_app(settings, project_dir, ScriptedClient([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        session_id = app.screen.session.session_id
        assert not settings.home.session_ledger(session_id).exists()
        await pilot.press("f4")
        await wait_for_screen(pilot, ContextInspector)
        history = app.screen.query_one("#history")
        await wait_until(pilot, lambda: history.row_count == 1)
        await pause(pilot)
        assert [str(c) for c in history.get_row_at(0)][-1] == NO_COMPACTION
        assert app.backend.view_before_last_compaction(session_id) is None


async def test_inspector_shows_ledger_history_and_restores_the_view(settings, project_dir):
    from paicli_tui.ui.modals.confirm import ConfirmModal
    from paicli_tui.ui.screens.context_inspector import ContextInspector

    big = "y" * 3_000
    (project_dir / "big.txt").write_text("\n".join([big] * 12), encoding="utf-8")
    replies = [([f"step {n}"], [ToolCall(f"c{n}", "read_file", '{"path": "big.txt"}')])
               for n in range(4)] + [(["finished"], [])]
    app = make_app(settings, project_dir, ScriptedClient(replies, window=8_000))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await send(pilot, "read big.txt several times")
        await app.workers.wait_for_complete()
        session = app.screen.session
        await pilot.press("f4")
        await wait_for_screen(pilot, ContextInspector)
        await pause(pilot)
        inspector = app.screen
        history = inspector.query_one("#history")
        tiers = {str(history.get_row_at(i)[0]) for i in range(history.row_count)}
        assert tiers & {"clearing", "summary", "offload"}
        categories = inspector.query_one("#categories")
        names = [str(categories.get_row_at(i)[0]) for i in range(categories.row_count)]
        assert names[:3] == ["system prompt", "tool schemas", "project rules"]
        # one total: the rows above it add up to it, and it is the session's estimate
        cells = [str(categories.get_row_at(i)[1]).replace(",", "")
                 for i in range(categories.row_count)]
        assert names[-1] == "total (estimate)" and int(cells[-1]) == session.estimate()
        assert sum(int(c) for c in cells[:-1]) == int(cells[-1])
        expected = app.backend.view_before_last_compaction(session.session_id)
        assert expected
        # the turn went on after its last compaction: those steps stay in the view
        since = [m.id for m in session.history if m.id not in {e.id for e in expected}
                 and m.internal is None and m.role.value != "system"]
        assert since and session.history[-1].content == "finished"
        await pilot.press("r")
        await wait_for_screen(pilot, ConfirmModal)
        many = "message" if len(since) == 1 else "messages"
        assert app.screen.body == (f"The model will see the {len(expected)} messages from "
                                   f"before it and the {len(since)} {many} since; the ledger "
                                   "keeps both views.")
        await pilot.press("y")
        await pause(pilot)
        assert [m.id for m in session.history][:len(expected)] == [m.id for m in expected]
        assert [m.id for m in session.history][len(expected):] == since
        assert session.history[-1].content == "finished"
        assert pairing_problems(session.history) == []
        await pilot.press("escape")
        await pause(pilot)
        notices = [n for n in app.screen.query("ChatNotice") if "restored" in n.source]
        assert notices


def one_command_app(settings, project_dir, command: str) -> PaicliApp:
    """The model runs ``command`` once, then answers."""
    call = ToolCall("cmd1", "execute_command", json.dumps({"command": command}))
    return make_app(settings, project_dir,
                    ScriptedClient([(["Running it."], [call]), (["Done."], [])]))


async def test_command_needs_approval_and_deny_marks_the_block(settings, project_dir):
    from paicli_tui.ui.modals.approval import ApprovalModal

    # a command that writes (a read-only one such as `echo hi` runs without asking)
    app = one_command_app(settings, project_dir, "touch made.txt")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "make a file")
        await wait_for_screen(pilot, ApprovalModal)
        assert "touch made.txt" in app.screen.request.summary + app.screen.request.detail
        await pilot.press("n")
        await app.workers.wait_for_complete()
        await pilot.pause()
        block = app.screen.query_one(ToolBlock)
        assert block.status == "denied" and not (project_dir / "made.txt").exists()


async def test_a_read_only_command_runs_unasked_and_says_so(settings, project_dir):
    """`ls | wc -l` needs no dialog; its block reads `… · done · read-only, no approval`."""
    app = one_command_app(settings, project_dir, "ls | wc -l")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "how many files?")
        await app.workers.wait_for_complete()
        await pilot.pause()
        block = app.screen.query_one(ToolBlock)
        assert block.status == "done"
        assert "· done · read-only, no approval" in str(block.title), block.title


async def test_resume_shows_the_persons_words(settings, project_dir):
    client = ScriptedClient([(["Hello back."], [])])
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await send(pilot, "hello there")
        await app.workers.wait_for_complete()
        session_id = app.screen.session.session_id
    again = PaicliApp(settings, project_dir, resume=session_id,
                      backend=ScriptedBackend(settings, project_dir, ScriptedClient([])))
    async with again.run_test(size=SIZE) as pilot:
        for _ in range(10):
            await pilot.pause(0.05)
        await again.workers.wait_for_complete()
        await pilot.pause()
        users = [str(u.render()) for u in again.screen.query("UserMessage")]
        assert users == ["hello there"]
        assert "Hello back." in again.screen.query("AssistantBlock").last().text


async def test_the_picker_leaves_out_the_session_open_now(settings, project_dir):
    """/resume (F5) lists the sessions to go back to. After a first session and a second one
    with a message each, the picker opened in the second shows the first only: the session
    on the screen is not one to resume (choosing it reopened it over itself)."""
    from paicli_tui.ui.modals.session_picker import SessionPicker

    first = make_app(settings, project_dir, ScriptedClient([(["One."], [])]))
    async with first.run_test(size=SIZE) as pilot:
        await send(pilot, "first session")
        await first.workers.wait_for_complete()
        earlier = first.screen.session.session_id
    app = make_app(settings, project_dir, ScriptedClient([(["Two."], [])]))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "second session")
        await app.workers.wait_for_complete()
        current = app.screen.session.session_id
        listed = {row.session_id for row in app.screen.backend.sessions()}
        assert {earlier, current} <= listed  # both are saved
        await pilot.press("f5")
        await wait_for_screen(pilot, SessionPicker)
        assert [row.session_id for row in app.screen.sessions] == [earlier]
        await pilot.press("escape")


async def test_scrolling_up_while_streaming_stays_put(settings, project_dir):
    hold = asyncio.Event()
    long_text = [f"line {n}\n\n" for n in range(60)]
    client = ScriptedClient([(long_text[:40] + long_text[40:], [])], hold=None)
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await send(pilot, "first")
        await app.workers.wait_for_complete()
        await pilot.pause()
        log = app.screen.query_one(ChatLog)
        assert log.max_scroll_y > 0 and log.scroll_y == log.max_scroll_y
        client.replies = [(["more ", "text ", "arrives"], [])]
        client.hold = hold
        await send(pilot, "second")
        await pause(pilot)
        log.scroll_home(animate=False)
        await pilot.pause()
        hold.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert log.scroll_y == 0  # the person's position wins over the stream


async def test_unknown_resume_id_falls_back_to_a_new_session(settings, project_dir):
    """A session that cannot be reopened (the command line checks the id first; this is the
    path for one that went or cannot be read): the chat says so and opens a new session with
    its welcome line. Found in tmux: it also said "Resumed session no-such-session · 0
    messages from you." above the error."""
    from paicli_tui.ui.widgets.setup_notice import WelcomeLine

    app = PaicliApp(settings, project_dir, resume="no-such-session",
                    backend=ScriptedBackend(settings, project_dir, ScriptedClient([])))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None
                         and bool(app.screen.query("ChatNotice")))
        await app.workers.wait_for_complete()
        await pilot.pause()
        notices = [(n.kind, n.source) for n in app.screen.query("ChatNotice")]
        assert len(notices) == 1 and notices[0][0] == "error", notices
        assert "Cannot reopen session no-such-session" in notices[0][1]
        assert len(app.screen.query(WelcomeLine)) == 1


async def test_resume_without_id_opens_the_picker(settings, project_dir):
    from paicli_tui.ui.modals.session_picker import SessionPicker

    app = PaicliApp(settings, project_dir, resume="",
                    backend=ScriptedBackend(settings, project_dir, ScriptedClient([])))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(pilot, SessionPicker)
        await pilot.press("escape")


async def test_agent_save_memory_conflict_waits_for_the_person(settings, project_dir):
    from paicli_tui.core.memory.book import MemoryBook
    from paicli_tui.ui.modals.conflict import ConflictModal

    MemoryBook(settings, project_dir).save("The project uses Java 17", scope="project")
    call = ToolCall("m1", "save_memory", '{"content": "The project uses Java 21"}')
    app = make_app(settings, project_dir,
                   ScriptedClient([(["Saving."], [call]), (["Saved."], [])]))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await send(pilot, "remember: the project uses Java 21")
        await wait_for_screen(pilot, ConflictModal)
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        contents = [e.content for e in MemoryBook(settings, project_dir).list_visible()]
        assert contents == ["The project uses Java 21"]
        assert app.screen.query_one(ToolBlock).status == "done"


async def test_a_new_real_session_opens_with_the_welcome_line(settings, project_dir):
    """A person launching on a project sees the welcome line first: folder, model, memories,
    index state (the real session's history holds its system prompt already)."""
    from paicli_tui.ui.widgets.setup_notice import WelcomeLine

    app = make_app(settings, project_dir, ScriptedClient([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: bool(app.screen.query(WelcomeLine)))
        welcome = str(app.screen.query_one(WelcomeLine).render())
        assert welcome.splitlines()[0] == (
            f"{project_dir.name} · scripted:scripted-1 · 0 memories · "
            "no code index yet (/index builds it)")


async def test_the_welcome_line_keeps_the_memory_count_of_now(settings, project_dir):
    """The welcome line stays at the top of the chat all day: a memory saved in a turn, or
    deleted in the browser, changes its count (it said "0 memories" after the first save)."""
    from paicli_tui.ui.screens.memory import MemoryScreen
    from paicli_tui.ui.widgets.setup_notice import WelcomeLine

    call = ToolCall("m1", "save_memory", '{"content": "The project uses Java 21"}')
    app = make_app(settings, project_dir,
                   ScriptedClient([(["Saving."], [call]), (["Saved."], [])]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: bool(app.screen.query(WelcomeLine)))
        welcome = app.screen.query_one(WelcomeLine)

        def first_line() -> str:
            return str(welcome.render()).splitlines()[0]

        assert " · 0 memories · " in first_line()
        await send(pilot, "remember: the project uses Java 21")
        await wait_until(pilot, lambda: " · 1 memory · " in first_line())
        await app.workers.wait_for_complete()
        await pilot.press("f2")
        await wait_for_screen(pilot, MemoryScreen)
        browser = app.screen
        await wait_until(pilot, lambda: len(browser.panel.rows) == 1)
        browser.panel.operate("delete", browser.panel.rows[0].id)
        await wait_until(pilot, lambda: " · 0 memories · " in first_line())
        assert first_line().startswith(f"{project_dir.name} · scripted:scripted-1 · ")
        # /save in the chat too (the line kept "0 memories" until the browser was opened)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, MemoryScreen))
        await send(pilot, "/save Tests run with pytest -q")
        await wait_until(pilot, lambda: " · 1 memory · " in first_line())


async def test_an_unreadable_memory_store_says_why_until_it_is_read(settings, project_dir):
    """Found in tmux: with the memory file unreadable at start (a folder in its place) the
    welcome line said "memory unavailable", with no why and no what to do, and kept saying
    it after the file was fixed and the browser had read it. It now says "memory unreadable
    (see below)" with a line naming the file and the remedy; once F2 reads the store, the
    count takes its place and the line goes."""
    from paicli_tui.ui.screens.memory import MemoryScreen
    from paicli_tui.ui.widgets.setup_notice import WelcomeLine

    store = settings.home.memory_file
    store.mkdir(parents=True)  # a folder where the file should be
    app = make_app(settings, project_dir, ScriptedClient([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: bool(app.screen.query(WelcomeLine)))
        welcome = app.screen.query_one(WelcomeLine)

        def lines() -> list[str]:
            return str(welcome.render()).splitlines()

        assert lines()[0] == (f"{project_dir.name} · scripted:scripted-1 · memory unreadable "
                              "(see below) · no code index yet (/index builds it)")
        assert lines()[1] == (f"Memory unreadable: {store} is not a regular file; memories "
                              "are not read from it (replace it with a file or remove it). "
                              "Until then no memory is recalled or saved; F2 reads it again.")
        store.rmdir()  # the person removed it
        await pilot.press("f2")
        await wait_for_screen(pilot, MemoryScreen)
        await wait_until(pilot, lambda: " · 0 memories · " in lines()[0])
        assert not any(line.startswith("Memory unreadable") for line in lines())
        assert lines()[1].startswith("F1 help")


async def test_a_bang_command_runs_now_and_its_output_goes_with_the_next_message(
        settings, project_dir):
    """!command as in Claude Code: no model request, no approval dialog; a command block
    says it was typed; the next message carries its output."""
    client = ScriptedClient([(["It printed hello."], [])])
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "!echo hello")
        await wait_until(pilot, lambda: any(b.status == "done"
                                            for b in app.screen.query(ToolBlock)))
        block = app.screen.query_one(ToolBlock)
        assert "typed by you" in block.note and not block.collapsed  # its output shown
        assert client.requests == []
        await app.workers.wait_for_complete()
        await send(pilot, "what did it say?")
        await wait_until(pilot, lambda: bool(client.requests))
        assert "<shell_output command=\"echo hello\"" in client.requests[0][-1].content


async def test_undo_puts_back_the_agents_last_change(settings, project_dir):
    """/undo after the agent edited a file: the file is as before, the chat says so, and
    the next request tells the model."""
    from paicli_tui.ui.modals.approval import ApprovalModal
    from paicli_tui.ui.widgets.notice import ChatNotice

    (project_dir / "app.py").write_text("x = 1\n", encoding="utf-8")
    edit = ToolCall("e1", "write_file", '{"path": "app.py", "content": "x = 2\\n"}')
    client = ScriptedClient([(["Editing."], [edit]), (["Done."], []), (["Noted."], [])])
    app = make_app(settings, project_dir, client)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "set x to 2")
        await wait_for_screen(pilot, ApprovalModal)
        await pilot.press("y")
        await wait_until(pilot, lambda: (project_dir / "app.py").read_text() == "x = 2\n")
        await app.workers.wait_for_complete()
        await send(pilot, "/undo")
        await wait_until(pilot, lambda: any(
            "Undid the agent's file changes of turn 1: put back app.py." in str(n.source)
            for n in app.screen.query(ChatNotice)))
        assert (project_dir / "app.py").read_text() == "x = 1\n"
        await send(pilot, "why?")
        await wait_until(pilot, lambda: len(client.requests) == 3)
        assert "[paicli-tui] Undid the agent's file changes of turn 1" in \
            client.requests[2][-1].content


async def test_a_call_cut_short_shows_cancelled_after_resume(settings, project_dir):
    """A turn cancelled while its command ran: on resume that call's block says it was
    cancelled, not ✓ done, and not '✗ failed' either (it read cancelled when it happened,
    and the exported conversation says so)."""
    from paicli_tui.core.agent.session import AgentSession

    session = await AgentSession.start(settings, project_dir, client=ScriptedClient([]))
    session.append(Message.user("wait a while"))
    session.append(Message.assistant("", [ToolCall("c1", "execute_command",
                                                   '{"command": "sleep 20"}')]))
    session.repair("cancelled")  # what a cancel does: the call gets its stand-in result
    await session.aclose()
    again = PaicliApp(settings, project_dir, resume=session.session_id,
                      backend=ScriptedBackend(settings, project_dir, ScriptedClient([])))
    async with again.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: len(again.screen.query(ToolBlock)) == 1
                         and again.screen.query_one(ToolBlock).status != "running")
        block = again.screen.query_one(ToolBlock)
        assert block.status == "cancelled"
        assert block.title.startswith("⊘ execute_command command=sleep 20 · cancelled")


async def test_the_status_line_says_when_the_turn_waits_for_an_approval(settings,
                                                                        project_dir):
    """While the approval dialog is open the line reads "Waiting for your approval of
    execute_command", not "Running execute_command"; after the answer it is back."""
    from paicli_tui.ui.modals.approval import ApprovalModal
    from paicli_tui.ui.widgets.turn_status import TurnStatus

    app = one_command_app(settings, project_dir, "touch made.txt")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "make a file")
        await wait_for_screen(pilot, ApprovalModal)
        status = app.screen_stack[0].query_one(TurnStatus)
        assert "Waiting for your approval of execute_command · " in str(status.line())
        await pilot.press("y")
        await wait_until(pilot, lambda: "approval" not in str(status.line()))
        await app.workers.wait_for_complete()
        assert (project_dir / "made.txt").exists()


async def test_a_tool_blocks_seconds_leave_out_the_wait_for_approval(settings, project_dir,
                                                                     monkeypatch):
    """Found in tmux: a write approved after 10 s read '✓ write_file … · done · 10.9 s'
    though it took milliseconds. While its dialog is open the block reads '… · waiting for
    your approval'; after 30 s of reading the dialog and a quick write, no seconds show (the
    wait is not the tool's time)."""
    from paicli_tui.ui.modals.approval import ApprovalModal

    now = [100.0]
    monkeypatch.setattr(ToolBlock, "clock", staticmethod(lambda: now[0]))
    app = one_command_app(settings, project_dir, "touch made.txt")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "make a file")
        await wait_for_screen(pilot, ApprovalModal)
        block = app.screen_stack[0].query_one(ToolBlock)
        assert str(block.title).endswith("· waiting for your approval"), block.title
        now[0] += 30.0  # the person reads the command
        await pilot.press("y")
        await wait_until(pilot, lambda: block.status == "done")
        assert (block.waited, block.seconds) == (30.0, 0.0)
        assert str(block.title).startswith("✓ execute_command command=touch made.txt · done")
        assert " s" not in str(block.title).split("· done")[1], block.title


async def test_the_write_approval_diff_has_no_empty_last_row(settings, project_dir):
    """Found in tmux: the write_file dialog's diff ended with an empty row under its last
    line (`+第三行`, then a blank row before the box closed). A person now sees the box close
    right under the diff's last line: as many rows as the diff has lines (6 here)."""
    from textual.widgets import Static

    from paicli_tui.ui.modals.approval import ApprovalModal

    call = ToolCall("w1", "write_file", json.dumps({"path": "notes.txt",
                                                    "content": "line one\nline two\n第三行\n"}))
    app = make_app(settings, project_dir, ScriptedClient([(["Writing."], [call]),
                                                          (["Done."], [])]))
    async with app.run_test(size=(80, 24)) as pilot:
        await send(pilot, "write the notes")
        await wait_for_screen(pilot, ApprovalModal)
        diff = app.screen.request.detail
        shown = app.screen.query_one(".approval-detail Static", Static)
        assert diff.endswith("\n") and diff.count("\n") == 6
        await wait_until(pilot, lambda: shown.size.height == 6, 30, lambda: shown.size)
        await pilot.press("n")
