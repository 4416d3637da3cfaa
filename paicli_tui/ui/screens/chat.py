"""The main screen: conversation, input, context gauge. It owns the agent session and the
turn worker; workers post events, handlers here render them."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from textual import events, on, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header, Static
from textual.worker import Worker

from ...core.context.boundary import unwrap_tool_result
from ...core.contracts import events as ev
from ...core.contracts.asks import (
    ApprovalDecision,
    ApprovalRequest,
    ConflictDecision,
    ConflictRequest,
    SummaryConsent,
    SummaryConsentRequest,
)
from ...core.messages import Message, Role
from ..backend import Backend
from ..format import context_state
from ..input_history import InputHistory
from ..last_search import LastSearch
from ..messages import AgentEventPosted, InsertIntoInput, SessionReady, TurnEnded
from ..resume_hint import resumed_line, waiting_commands_line
from ..skill_commands import skill_commands, skill_request
from ..slash import BY_NAME, parse_slash
from ..widgets.app_footer import AppFooter
from ..widgets.chat_log import ChatLog
from ..widgets.context_gauge import ContextGauge
from ..widgets.mention_words import ProjectFiles
from ..widgets.mode_line import ModeLine
from ..widgets.plan_pane import PlanPane
from ..widgets.prompt_input import PromptInput
from ..widgets.setup_notice import (
    CODE_INDEX_READY,
    FACT_SEPARATOR,
    MEMORY_UNREADABLE,
    NO_CODE_INDEX,
    WelcomeLine,
    memory_count_text,
    memory_unreadable_line,
)
from ..widgets.slash_menu import SlashMenu
from ..widgets.tool_block import PERMISSION_NOTES, ToolBlock, recorded_status
from ..widgets.turn_status import TurnStatus
from .chat_commands import SlashCommandsMixin
from .chat_outputs import ConversationOutputsMixin
from .chat_plan import PlanViewMixin
from .panel_dock import PanelDockMixin

if TYPE_CHECKING:
    from ...config import Settings
    from ...core.agent.port import SessionPort
    from ...core.agent.subagent_record import SubAgentRecord
    from ...core.contracts.llm import ChatClient
    from ..index_job import IndexState

log = logging.getLogger(__name__)
T = TypeVar("T")

NO_ANSWER = "No reply: that turn was cancelled or failed."
"""Under a restored message of the person's that got no reply, when the session file does
not say why (older sessions, or a turn stopped with the app)."""


def no_answer(reason: str | None) -> str:
    """The line under a restored message that got no reply: why, when the ledger says."""
    if not reason:
        return NO_ANSWER
    if reason == "cancelled":
        return "No reply: that turn was cancelled."
    return f"No reply: that turn failed: {reason}"

KEY_HINTS = "F1 help · / commands · Ctrl+P palette · Esc interrupts"


class ChatScreen(SlashCommandsMixin, ConversationOutputsMixin, PlanViewMixin, PanelDockMixin,
                 Screen[None]):
    BINDINGS = [
        Binding("escape", "escape", "Cancel turn / back to the input", show=False),
        # after the input's copy (a selection), before the app's quit hint
        Binding("ctrl+c", "interrupt", "Copy / cancel turn / clear the input", show=False),
        Binding("f1", "slash('/help')", "Help"),
        Binding("f2", "slash('/memory')", "Memory"),
        Binding("f3", "slash('/search')", "Search"),
        Binding("f4", "slash('/context')", "Context"),
        Binding("f5", "slash('/resume')", "Resume", show=False),
        Binding("f8", "slash('/model')", "Model", show=False),
        Binding("ctrl+t", "slash('/theme')", "Theme", show=False),
        Binding("ctrl+r", "history_search", "Search typed", show=False),
    ]

    def __init__(self, backend: Backend, resume: str | None = None) -> None:
        super().__init__(classes="chat-screen")
        self.backend = backend
        self.resume = resume
        self.session: SessionPort | None = None
        self.client: ChatClient | None = None
        self.model_settings: Settings | None = None
        """The settings of the model /model chose (None: the ones the app started with);
        a session reopened later talks to it too."""
        self.turn_worker: Worker[None] | None = None
        self.turn_ends_unshown = 0
        """Turn ends posted and not yet shown (turn_ended): the turn still counts as running."""
        self._asking = asyncio.Lock()
        """One question to the person at a time: plan tasks and sub-agents run in parallel,
        and a second dialog pushed over the first took the key meant for the first."""
        self.turn_dialogs: dict[Screen[Any], Any] = {}
        """The dialogs the running turn opened, each with its refusing answer (deny, cancel,
        not yet): Ctrl+C in one cancels the turn, as it does in the chat."""
        self.last_search = LastSearch()
        """The code search's last query and mode: F3 opens on them again."""

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        yield ChatLog(id="chat-log")
        yield PlanPane(id="plan-pane")
        yield SlashMenu(id="slash-menu")
        yield Static("", id="queued", markup=False)
        yield TurnStatus(id="turn-status")
        yield PromptInput(id="prompt")
        yield ModeLine(id="mode-line")
        yield ContextGauge(id="gauge")
        yield AppFooter()

    @property
    def chat(self) -> ChatLog:
        return self.query_one(ChatLog)

    @property
    def gauge(self) -> ContextGauge:
        return self.query_one(ContextGauge)

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def status(self) -> TurnStatus:
        return self.query_one(TurnStatus)

    @property
    def turn_running(self) -> bool:
        # until its end is shown: an Enter handled between the worker's last step and
        # turn_ended started the next turn, whose status line and reply that end then closed
        return self.turn_ends_unshown > 0 or (self.turn_worker is not None
                                              and self.turn_worker.is_running)

    def post_turn_end(self, ended: TurnEnded) -> None:
        """How the turn ended, for turn_ended to show; it runs until then."""
        self.turn_ends_unshown += 1
        self.post_message(ended)

    def on_mount(self) -> None:
        for widget in (self.query_one(SlashMenu), self.query_one("#queued"), self.status,
                       self.plan_pane):
            widget.display = False
        self.input_history = InputHistory(self.backend.settings.home.input_history_file)
        self.prompt.inputs = self.input_history.load()
        self.prompt.project_files = ProjectFiles(self.app, self.backend.project_root,
                                                 self.prompt)
        self.prompt.focus()
        self.switch_accept_edits(self.backend.settings.accept_edits)
        self.index_running = False
        self.app.index_job.changed.subscribe(  # type: ignore[attr-defined]
            self, self.index_changed)
        inbox = getattr(self.app, "memory_inbox", None)
        if inbox is not None:
            inbox.stored.subscribe(self, self.memories_counted)
        # paint first, then connect: the session start reads files and builds the prompt
        self.call_after_refresh(self.start_session, self.resume)

    def index_changed(self, state: IndexState) -> None:
        """An index build ended (started here or in code search): the chat keeps a line of
        it (the toast goes after a few seconds; the welcome line may say "no index yet")."""
        built = self.index_running and not state.running and state.summary
        if built:
            self.call_later(self.chat.add_notice,
                            f"Code index: {state.summary}" if not state.failed
                            else f"Code index build failed: {state.summary}",
                            "error" if state.failed else "info")
        for welcome in self.chat.query(WelcomeLine):
            if built and not state.failed:
                welcome.index_built()
            elif state.running != self.index_running:
                welcome.index_building(state.running)
        self.index_running = state.running

    def memories_counted(self, count: int) -> None:
        for welcome in self.chat.query(WelcomeLine):
            welcome.memories_counted(count)

    # -- session -------------------------------------------------------------------------------
    @work(exclusive=True, group="session", exit_on_error=False)
    async def start_session(self, resume: str | None) -> None:
        """Build the client and start (or resume) the agent session off the UI's back."""
        # imports and service construction in a thread: the screen keeps painting
        await asyncio.to_thread(self.backend.prepare)
        problems: list[str] = []
        try:
            client = self.backend.build_client(self.model_settings or self.backend.settings)
        except Exception as exc:  # a bad provider setting must not stop the app opening
            problems.append(f"Cannot connect the model: {exc}")
            client = None
        try:
            session = await self.backend.start_session(
                client, self.approve, self.resolve_conflict, resume, self.ask_summary)
        except Exception as exc:
            if not resume:
                self.post_message(SessionReady(None, f"Cannot start the session: {exc}"))
                return
            # an unknown or unreadable session must not leave the person without a chat
            problems.append(f"Cannot reopen session {resume}: {exc}. Started a new one.")
            resume = None  # the new one is not the session asked for: welcome, no "Resumed"
            try:
                session = await self.backend.start_session(
                    client, self.approve, self.resolve_conflict, None, self.ask_summary)
            except Exception as again:
                self.post_message(SessionReady(None, f"Cannot start the session: {again}"))
                return
        self.client = client
        resumed = resume if resume and session.history else None
        welcome = "" if resumed else await asyncio.to_thread(self.welcome_line, session)
        self.post_message(SessionReady(session, "\n\n".join(problems) or None,
                                       resumed=resumed, welcome=welcome))

    def welcome_line(self, session: SessionPort) -> str:
        """Folder, model, memories, index state and the keys to start with (reads disk:
        called in a thread)."""
        facts = [self.backend.project_root.name]
        client = session.client
        facts.append(f"{client.provider}:{client.model}" if client is not None
                     else "no model yet")
        lines = []
        try:
            facts.append(memory_count_text(len(self.backend.memory().rows())))
        except Exception as exc:  # why, and what to do, until a count succeeds
            facts.append(MEMORY_UNREADABLE)
            lines.append(memory_unreadable_line(str(exc)))
        try:
            facts.append(CODE_INDEX_READY if self.backend.has_code_index() else NO_CODE_INDEX)
        except Exception:
            pass
        return "\n".join([FACT_SEPARATOR.join(facts), *lines, KEY_HINTS])

    @on(SessionReady)
    async def session_ready(self, message: SessionReady) -> None:
        if message.session is None:
            await self.chat.add_notice(message.error or "The session did not start.", "error")
            return
        old = self.session
        self.session = message.session
        if old is not None and old is not self.session:
            self.close_session(old)
        if old is not None:
            # another session replaces this one's conversation; on the first start, what
            # was shown while it started (a command's answer) stays
            await self.chat.reset()
        self.session.set_accept_edits(self.query_one(ModeLine).on)  # /resume keeps the mode
        self.gauge.reset_session()
        self.refresh_gauge()
        self.sub_title = self.title_line()
        self.prompt.skill_commands = skill_commands(self.session.skills)
        if self.session.history:
            await self.render_history(self.session.history)
        if message.resumed:
            await self.chat.add_notice(resumed_line(message.resumed, self.session.history))
            waiting = waiting_commands_line(getattr(self.session, "pending_shell", ()))
            if waiting:
                await self.chat.add_notice(waiting)
        elif message.welcome and all(m.role is Role.SYSTEM for m in self.session.history):
            await self.chat.add_notice(message.welcome, "welcome")
        if message.error:
            await self.chat.add_notice(message.error, "error")
        mcp = getattr(self.session, "mcp", None)
        if mcp is not None and mcp.startup_warning():
            await self.chat.add_notice(mcp.startup_warning(), "warning")
        # a server whose process ends mid-session is said at once, not at its next call
        self.session.watch_mcp(lambda: self.post_message(self.McpChanged()))
        if self.session.client is None:
            await self.chat.add_notice(self.backend.how_to_configure(), "setup")
        if message.resumed:
            self.offer_plan_continue()
        if self.resume == "":  # `--resume` without an id: let the person pick
            self.resume = None
            self.pick_session()

    @work(group="close", exit_on_error=False)
    async def close_session(self, session: SessionPort) -> None:
        await session.aclose()

    def title_line(self) -> str:
        return f"{self.backend.project_root.name} · {self.model_label()}"

    def model_label(self) -> str:
        client = self.session.client if self.session is not None else None
        if client is None:
            return "no model"
        return f"{client.provider}:{client.model}"

    def refresh_gauge(self, tokens: int | None = None) -> None:
        """Thresholds from the session's profile; the estimate from the session unless given."""
        if self.session is None:
            return
        profile = self.session.profile
        self.gauge.show(
            tokens=self.session.estimate() if tokens is None else tokens,
            window=profile.window, clearing_trigger=profile.clearing_trigger,
            compaction_trigger=profile.compaction_trigger, model_label=self.model_label())

    async def render_history(self, history: list[Message]) -> None:
        """Show a restored conversation: user turns, replies, finished tool blocks, and a
        run_subagent call as its sub-agent's block (drawn from the sub-agent's stream)."""
        from ...core.context.summary import without_acknowledgements

        history = without_acknowledgements(history)
        session = self.session
        subagents = {r.call_id: r for r in (session.subagent_records if session else ())
                     if r.call_id}
        if self.chat.live_blocks is not None:  # the older part: text, no widgets to build
            from ..widgets.chat_archive import split_restored

            older, history = split_restored(history, self.chat.live_blocks)
            await self.chat.add_restored(older, NO_ANSWER)
        reasons = {} if session is None else await asyncio.to_thread(
            self._unanswered_reasons, session.session_id)
        unanswered: Message | None = None  # a message of the person's with no reply yet
        for message in history:
            if message.role is Role.USER:
                if message.internal is not None and message.internal.value == "summary":
                    await self.chat.add_compaction(str(message.meta.get("tier", "summary")),
                                                   None, None, summary=message.content)
                elif message.internal is None:
                    if unanswered is not None:
                        await self.chat.add_notice(no_answer(reasons.get(unanswered.id)))
                    unanswered = message
                    # the model also sees a date/memories block; show the person's words
                    words = message.meta.get("user_input")
                    await self.chat.add_user(words if isinstance(words, str)
                                             else message.content)
                    attached = message.meta.get("attached")
                    if isinstance(attached, list) and attached:
                        await self.chat.add_notice(
                            f"Attached {', '.join(map(str, attached))}.", "dim")
            elif message.role is Role.ASSISTANT:
                unanswered = None
                if message.content or message.reasoning:
                    block = await self.chat.assistant()
                    if message.reasoning:
                        block.append_reasoning(message.reasoning)
                    await block.set_text(message.content)
                    await self.chat.end_assistant()
                for call in message.tool_calls:
                    tool = await self.chat.add_tool(call.id, call.name, call.arguments)
                    record = subagents.get(call.id)
                    if record is not None and session is not None:
                        await self.restore_subagent(session, record, tool)
            elif message.role is Role.TOOL and message.tool_call_id:
                block = self.chat.tool_blocks.get(message.tool_call_id)
                if block is not None:
                    # the status it ended with (a call cut short by a cancel says so)
                    block.finish(recorded_status(message),
                                 unwrap_tool_result(message.content),
                                 offload_path=message.meta.get("offload_path"))
                for sub in self.chat.subagents.values():
                    if sub.call_id == message.tool_call_id:
                        sub.show_answer(unwrap_tool_result(message.content))
        if unanswered is not None:
            await self.chat.add_notice(no_answer(reasons.get(unanswered.id)))

    def _unanswered_reasons(self, session_id: str) -> dict[str, str]:
        """The ledger's reasons, or none when it cannot be read (the lines stay generic)."""
        try:
            return self.backend.unanswered_reasons(session_id)
        except Exception:  # noqa: BLE001 — a restore never fails for want of a reason
            log.warning("cannot read why turns got no reply", exc_info=True)
            return {}

    async def restore_subagent(self, session: SessionPort, record: SubAgentRecord,
                               tool: ToolBlock) -> None:
        """A past run_subagent call drawn as its sub-agent, in place of the tool block."""
        started = ev.SubAgentStarted(subagent=record.subagent, parent=session.session_id,
                                     label=record.label, call_id=record.call_id)
        block = await self.chat.add_subagent(started, after=tool)
        try:
            messages = await asyncio.to_thread(session.subagent_history, record.subagent)
        except Exception as exc:  # a stream gone or unreadable: the numbers still show
            log.warning("sub-agent %s not redrawn: %s", record.subagent, exc)
            messages = []
        await block.restore(record, messages)

    # -- asking the person (called by the core from inside the turn worker) --------------------
    async def approve(self, request: ApprovalRequest) -> ApprovalDecision:
        from ..modals.approval import ApprovalModal

        async with self._asking:
            chat = self.chat  # the tool's seconds stop while the person reads the dialog
            chat.approval_asked(request.call_id, True)
            try:
                with self.waiting_for_the_person(f"Waiting for your approval of "
                                                 f"{request.tool}"):
                    return await self.ask_in_turn(
                        ApprovalModal(request, typed=self.typed_under_dialog),
                        ApprovalDecision.DENY)
            except asyncio.CancelledError:
                # cancelled at its question (Ctrl+C in the dialog): never run, not "failed"
                block = chat.tool_blocks.get(request.call_id)
                if block is not None:
                    block.finish("denied", "not run: the turn was cancelled at its approval")
                raise
            finally:
                chat.approval_asked(request.call_id, False)

    async def resolve_conflict(self, request: ConflictRequest
                               ) -> tuple[ConflictDecision, str | None]:
        from ..modals.conflict import ConflictModal

        async with self._asking:
            with self.waiting_for_the_person("Waiting for your choice on the memory conflict"):
                return await self.ask_in_turn(
                    ConflictModal(request, typed=self.typed_under_dialog),
                    (ConflictDecision.CANCEL, None))

    @contextlib.contextmanager
    def waiting_for_the_person(self, label: str) -> Iterator[None]:
        """The status line says the turn waits for the person, not for a tool, while a
        dialog is open; then it shows what the turn does again."""
        self.status.wait_for_person(label)
        try:
            yield
        finally:
            self.status.wait_for_person("")

    async def ask_summary(self, request: SummaryConsentRequest) -> SummaryConsent:
        """``ask_before_summary``: summarise the older turns now, or not yet."""
        from ..modals.summary_consent import SummaryConsentModal

        async with self._asking:
            if self.status.running:
                self.status.phase("Waiting for your answer: summarise now?")
            return await self.ask_in_turn(
                SummaryConsentModal(request, typed=self.typed_under_dialog),
                SummaryConsent("not_yet"))

    async def ask_in_turn(self, dialog: Screen[T], refusal: T) -> T:
        """Open a dialog for the running turn and wait for the answer; Ctrl+C in it answers
        ``refusal`` and cancels the turn (:meth:`interrupt_from_dialog`)."""
        self.turn_dialogs[dialog] = refusal
        self.status.stopped_by("Ctrl+C")  # Esc in the dialog answers it; the turn goes on
        try:
            return await self.app.push_screen_wait(dialog)
        finally:
            self.turn_dialogs.pop(dialog, None)
            if not self.turn_dialogs:
                self.status.stopped_by("Esc")

    def interrupt_from_dialog(self, dialog: Screen[Any]) -> bool:
        """Ctrl+C (nothing selected) in a dialog the turn opened: the pending question gets
        its refusing answer, so nothing it asked about runs, and the turn is cancelled, as
        Ctrl+C cancels it from the chat. False for any other screen (the app's quit hint)."""
        if dialog not in self.turn_dialogs or not self.turn_running:
            return False
        dialog.dismiss(self.turn_dialogs.pop(dialog))
        self.action_cancel_turn()  # before the turn reads the answer: it stops right there
        self.notify("Turn cancelled (Ctrl+C): the question was answered no.",
                    severity="warning")
        return True

    # -- input ---------------------------------------------------------------------------------
    @on(PromptInput.MenuChanged)
    def show_menu(self, event: PromptInput.MenuChanged) -> None:
        self.query_one(SlashMenu).show_matches(event.matches, event.highlighted)

    @on(PromptInput.ScrollChat)
    def scroll_chat(self, event: PromptInput.ScrollChat) -> None:
        # at once, from where the last press left the view: Textual's page scroll waits for
        # the next refresh and starts from the position before it, so PgUp held down (or
        # pressed fast in a long chat, where a refresh takes a while) moved one page for many
        chat = self.chat
        page = chat.scrollable_content_region.height
        chat.scroll_to(y=chat.scroll_y + event.pages * page, animate=False, immediate=True)

    @on(PromptInput.SwitchMode)
    def switch_mode(self) -> None:
        self.switch_accept_edits(not self.query_one(ModeLine).on)

    def switch_accept_edits(self, on: bool) -> None:
        """The accept-edits mode on or off: the session (and its running sub-agents) at
        once, the line under the input saying so while it is on."""
        if self.session is not None:
            self.session.set_accept_edits(on)
        self.query_one(ModeLine).show_mode(on)

    @on(PromptInput.QueueChanged)
    def show_queue(self, event: PromptInput.QueueChanged) -> None:
        view = self.query_one("#queued", Static)
        view.display = bool(event.queued)
        if event.queued:
            lines = [f"↳ queued: {_one_line(text)}" for text in event.queued]
            lines.append("  sent when this turn ends · ↑ edits (clear to cancel) · "
                         "Esc stops the turn")
            view.update("\n".join(lines))

    def in_conversation(self) -> bool:
        """The focus is nowhere, or in the conversation (not the input, not a docked panel
        with keys of its own)."""
        focused = self.focused
        return focused is None or self.chat in focused.ancestors_with_self

    def on_key(self, event: events.Key) -> None:
        """Typing always reaches the input, wherever the focus was in the conversation."""
        prompt = self.prompt
        if event.is_printable and event.character and self.in_conversation():
            event.stop()
            event.prevent_default()
            prompt.type_character(event.character)

    def typed_under_dialog(self, event: events.Key | events.Paste) -> None:
        """A key typed as a dialog of the agent's opened, or a paste none of its fields took:
        it was meant for the message being written, so it goes there (a dialog takes keys
        once the keyboard rests)."""
        if isinstance(event, events.Paste):
            self.prompt.paste_text(event.text)
        elif event.is_printable and event.character:
            self.prompt.type_character(event.character)
        elif event.key == "backspace":
            self.prompt.action_delete_left()

    def on_paste(self, event: events.Paste) -> None:
        """A paste with the focus elsewhere in the conversation goes into the input too."""
        if self.in_conversation():
            event.stop()
            self.prompt.paste_text(event.text)

    @on(PromptInput.Submitted)
    async def submitted(self, event: PromptInput.Submitted) -> None:
        self.input_history.append(event.text)
        text = event.text.strip()
        if text == "/":  # the slash menu closed with nothing chosen: not a message
            self.prompt.put_back(event.text)
            self.notify("A lone / is not sent: type a command's name after it (the menu "
                        "lists them; F1 shows them all).", title="commands")
            return
        parsed = parse_slash(text)
        skill = self.skill_named(parsed[0]) if parsed is not None else ""
        if skill:  # /release v1.4: a message asking for the skill
            text = skill_request(skill, parsed[1])
        elif parsed is not None:
            if parsed[0] not in BY_NAME:  # a typo: the text comes back to be corrected
                self.prompt.put_back(event.text)
            # what a command says lands at the end: after PgUp to read back, /compact's
            # notice (or any command's) stayed below the screen, as if nothing happened
            self.chat.scroll_end(animate=False)
            await self.run_slash(*parsed)
            return
        if self.session is None:
            self.notify("The session is still starting…", severity="warning")
            self.prompt.load_text(event.text)
            return
        if text.startswith("!") and text[1:].strip():  # a command of the person's own
            if self.turn_running:
                self.prompt.put_back(event.text)
                self.notify("A !command runs between turns: wait for this one to finish "
                            "(or Esc to stop it).", severity="warning")
                return
            await self.chat.add_user(event.shown.strip())
            self.status.start("Running your command")
            self.turn_worker = self.run_shell_line(text[1:].strip())
            return
        if self.session.client is None:
            await self.chat.add_notice(self.backend.how_to_configure(), "setup")
            return
        if self.turn_running:
            self.prompt.enqueue(text)
            return
        await self.send(text, event.shown.strip())

    def skill_named(self, command: str) -> str:
        """The session's skill a typed ``/name`` runs ('' when none: a program command
        keeps its name)."""
        name = command[1:]
        if self.session is None or command in BY_NAME or self.session.skills.get(name) is None:
            return ""
        return name

    async def send(self, text: str, shown: str | None = None) -> None:
        await self.chat.add_user(shown or text)
        self.status.start("Sending the request")
        self.turn_worker = self.run_turn(text)

    @on(InsertIntoInput)
    def insert_into_input(self, message: InsertIntoInput) -> None:
        self.prompt.insert_reference(message.text)
        self.prompt.focus()

    @work(group="history-search", exclusive=True, exit_on_error=False)
    async def action_history_search(self) -> None:
        """Ctrl+R: pick an earlier prompt (what is in the input filters it first)."""
        from ..modals.history_search import HistorySearch

        chosen = await self.app.push_screen_wait(
            HistorySearch(self.prompt.inputs, self.prompt.text.strip(),
                          type_after=self.prompt.insert))  # Esc and a letter at once
        if chosen is not None:
            self.prompt.put_back(chosen)
        self.prompt.focus()

    def action_slash(self, command: str) -> None:
        self.post_message(self.Requested(command))

    def action_escape(self) -> None:
        """Esc: stop the running turn, and in any case bring the focus back to the input."""
        self.action_cancel_turn()
        self.prompt.focus()

    def action_interrupt(self) -> None:
        """Ctrl+C as people who use Claude Code or Codex press it: copy what is selected;
        else stop the running turn; else clear the input; else the app's quit hint."""
        selected = self.get_selected_text()
        if selected:
            self.app.copy_to_clipboard(selected)
        elif self.turn_running:
            self.action_escape()
        elif self.prompt.text:
            self.prompt.clear()
            self.prompt.focus()
        else:
            raise SkipAction()

    def action_cancel_turn(self) -> None:
        if self.turn_running and self.turn_worker is not None:
            self.turn_worker.cancel()

    # -- the turn ------------------------------------------------------------------------------
    @work(exclusive=True, group="turn", exit_on_error=False)
    async def run_turn(self, text: str) -> None:
        """Iterate the core's events; every event goes to the handler as a message."""
        await self.relay_events(self.session.run_turn(text))

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def run_shell_line(self, command: str) -> None:
        """``!command``: the core runs it; its block shows like the agent's commands."""
        await self.relay_events(self.session.run_shell_line(command), what="Command")

    async def relay_events(self, events: AsyncIterator[ev.AgentEvent],
                           what: str = "Turn") -> None:
        """Post each of a turn's (or a plan's) events to the handler, then how it ended."""
        try:
            async for event in events:
                self.post_message(AgentEventPosted(event))
        except asyncio.CancelledError:
            self.post_turn_end(TurnEnded("cancelled", what=what))
            raise
        except Exception as exc:
            self.post_turn_end(TurnEnded("error", str(exc), what=what))
            return
        self.post_turn_end(TurnEnded("done", what=what))

    @on(TurnEnded)
    async def turn_ended(self, message: TurnEnded) -> None:
        self.turn_ends_unshown = max(0, self.turn_ends_unshown - 1)
        self.status.stop()
        if self.app._exit:  # quitting cancelled the turn: nothing left to show it in
            return
        await self.chat.end_assistant()
        for block in self.chat.tool_blocks.values():
            if message.reason == "cancelled":
                block.cancel()
            elif block.status == "running":
                block.finish("failed", "the turn ended before it finished")
        self.plan_turn_ended()
        if message.reason == "cancelled":
            await self.chat.add_notice(f"{message.what} cancelled.", "warning")
        elif message.reason == "error":
            await self.chat.add_notice(f"The turn failed: {message.error}", "error")
        if message.note:
            await self.chat.add_notice(message.note)
        self.refresh_gauge()
        self.collect_notices()
        await self.after_turn(message.reason)

    async def after_turn(self, reason: str) -> None:
        """Queued messages go out as one message once a turn ends normally; after a cancel
        or a failure they come back to the input instead (nothing sent the person did not
        see coming, nothing lost)."""
        queued = self.prompt.take_queued()
        if not queued:
            return
        text = "\n\n".join(queued)
        if reason == "done" and self.session is not None:
            await self.send(text)
            return
        draft = self.prompt.text
        self.prompt.load_text(text + ("\n" + draft if draft.strip() else ""))
        self.prompt.move_cursor(self.prompt.document.end)
        await self.chat.add_notice("Your queued message is back in the input: the turn "
                                   "did not finish. Press Enter to send it.", "warning")

    @work(group="background", exit_on_error=False)
    async def collect_notices(self) -> None:
        """Memory saves from background extraction arrive after the turn: show them."""
        session = self.session
        if session is None:
            return
        await session.wait_background()
        for notice in session.take_notices():
            self.post_message(AgentEventPosted(notice))

    @on(AgentEventPosted)
    async def agent_event(self, message: AgentEventPosted) -> None:
        event = message.event
        chat = self.chat
        self.show_phase(event)
        if await self.plan_event(event):
            return
        if isinstance(event, ev.TextDelta):
            await (await chat.assistant()).append_text(event.text)
        elif isinstance(event, ev.ReasoningDelta):
            (await chat.assistant()).append_reasoning(event.text)
        elif isinstance(event, ev.RequestStarted):
            self.gauge.show(tokens=event.estimated_tokens, window=event.window,
                            clearing_trigger=event.clearing_trigger,
                            compaction_trigger=event.compaction_trigger,
                            state=context_state(event, self.gauge.state))
        elif isinstance(event, ev.AssistantMessage):
            if chat.current is None and event.content:
                block = await chat.assistant()
                await block.set_text(event.content)
            elif chat.current is not None and not event.content and event.tool_call_ids:
                # tool calls the model wrote as text, read out of it: what streamed was
                # the calls' JSON, shown next as tool blocks, so the text goes
                await chat.current.remove()
                chat.current = None
            elif chat.current is not None and event.content \
                    and event.content != chat.current.text:
                # the reply as kept differs from what streamed: a note the client put after
                # the stream ("[reply cut: …]", the text before it cut at the limit)
                shown = chat.current.text
                if shown and event.content.startswith(shown):
                    await chat.current.append_text(event.content[len(shown):])
                else:
                    await chat.current.set_text(event.content)
            await chat.end_assistant()
        elif isinstance(event, ev.ToolCallStarted):
            await chat.add_tool(event.call_id, event.name, event.arguments)
        elif isinstance(event, ev.ToolCallFinished):
            block = chat.tool_blocks.get(event.call_id)
            if block is None:
                block = await chat.add_tool(event.call_id, event.name, "{}")
            block.finish(event.status, event.preview, event.chars, event.offload_path)
            if event.permission:
                block.mark(PERMISSION_NOTES.get(event.permission, event.permission))
            if event.permission == "typed":  # the person's own !command: they want to see it
                block.set_collapsed(False)
        elif isinstance(event, ev.ContextCompacted):
            failed = isinstance(event, ev.CompactionFailed)
            await chat.add_compaction(event.tier, event.tokens_before, event.tokens_after,
                                      event.detail, event.summary, failed)
            self.gauge.show(tokens=event.tokens_after,
                            state=context_state(event, self.gauge.state))
        elif isinstance(event, ev.SummaryAhead):
            await chat.add_notice(f"Summary ahead: {event.detail} /compact [focus] "
                                  "summarises now, with your instructions.", "warning")
            self.gauge.show(tokens=event.tokens, state=context_state(event, self.gauge.state))
        elif isinstance(event, ev.SummaryConsentDecided):
            if event.answer != "now":  # the person's own "now" needs no echo
                await chat.add_notice(event.detail, "warning")
            self.gauge.show(state=context_state(event, self.gauge.state))
        elif isinstance(event, ev.ContextCompacting):
            self.gauge.show(tokens=event.tokens, state=context_state(event, self.gauge.state))
        elif isinstance(event, ev.Usage):
            self.gauge.record_usage(event.prompt_tokens, event.cached_tokens)
        elif isinstance(event, ev.MemoryNotice):
            self.notify(event.detail, title=f"memory {event.action}")
        elif isinstance(event, ev.MemorySelected) and event.fallback:
            # the light model was asked and did not answer usably: the turn went on with the
            # offline choice, and the person should know their light model is not helping
            self.notify(f"The light model did not choose this turn's memories "
                        f"({event.fallback}); the offline choice was used.",
                        title="memory", severity="warning", timeout=6)
        elif isinstance(event, ev.ToolCallsFromText) and not event.asked:
            await chat.add_notice(ev.text_calls_notice(event), "warning")
        elif isinstance(event, ev.StreamLinesSkipped):
            await chat.add_notice(ev.skipped_lines_notice(event), "dim")
        elif isinstance(event, ev.TextCallUnread):
            await chat.add_notice(ev.text_call_unread_notice(event), "warning")
        elif isinstance(event, ev.ReplyAtOutputLimit):
            await chat.add_notice(ev.output_limit_notice(event), "warning")
        elif isinstance(event, ev.ReplyFiltered):
            await chat.add_notice(ev.filtered_notice(event), "warning")
        elif isinstance(event, ev.FilesAttached):
            await chat.add_notice(ev.attached_notice(event),
                                  "warning" if event.refused or event.cut else "dim")
        elif isinstance(event, ev.RequestRetrying):
            await chat.add_notice(f"{event.reason} — retry {event.attempt} of "
                                  f"{event.max_retries} in {event.delay_s:.0f} s", "retry")
        elif isinstance(event, ev.AgentError):
            await chat.add_notice(event.message, "error")
        elif isinstance(event, ev.McpServerChanged):
            await self.show_mcp_change(event)
        elif isinstance(event, ev.TurnFinished):
            await chat.end_assistant()
            if event.reason == "max_iterations":
                await chat.add_notice("Stopped: the turn used its allowed model requests.",
                                      "warning")

    def show_phase(self, event: ev.AgentEvent) -> None:
        """The status line follows the turn: waiting, thinking, writing, running a tool."""
        status = self.status
        if not status.running:
            return
        if isinstance(event, ev.TurnStarted):
            # the core looks up long-term memory before the first request: seconds on a
            # first run (the dictionary and the embedder load), which read as a slow model.
            # A plan starts with a planning request, not a recall: its line stays "Planning"
            if status.label == "Sending the request":
                status.phase("Recalling memories")
        elif isinstance(event, ev.RequestStarted):
            status.phase(f"Waiting for {self.model_label()}")
        elif isinstance(event, ev.TextDelta) and status.label != "Writing":
            status.phase("Writing")
        elif isinstance(event, ev.ReasoningDelta) and status.label != "Thinking":
            status.phase("Thinking")
        elif isinstance(event, ev.ToolCallStarted):
            status.phase(f"Running {event.name}")
        elif isinstance(event, ev.ContextCompacting):
            status.phase("Compacting the context")
        elif isinstance(event, ev.RequestRetrying):
            status.phase(f"Waiting for {self.model_label()}",
                         warning=f"{_short_reason(event.reason)}, retry {event.attempt} of "
                                 f"{event.max_retries}",
                         until=status.clock() + event.delay_s)

    @on(ContextGauge.NearClearing)
    def near_clearing(self, message: ContextGauge.NearClearing) -> None:
        if self.gauge.zone == "compaction":
            return  # past both triggers at once: the summary's own notices say what happens
        self.notify(clearing_warning(message.tokens, message.clearing_trigger),
                    title="context", severity="warning", timeout=8)


def clearing_warning(tokens: int, trigger: int) -> str:
    """The toast as the context nears or passes the clearing trigger ("9,014 of 4,500
    tokens" read as if there were room left)."""
    where = (f"near the clearing threshold ({tokens:,} of {trigger:,} tokens)"
             if tokens < trigger else
             f"past the clearing threshold ({tokens:,} tokens, the threshold is {trigger:,})")
    return (f"The context is {where}: old tool results will be cleared before the next "
            "requests.")


def _one_line(text: str, width: int = 70) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[:width - 1] + "…"


def _short_reason(reason: str) -> str:
    """``HTTP 500`` from ``HTTP 500: upstream overloaded``; other reasons cut to fit."""
    head = reason.split(":", 1)[0] if reason.startswith("HTTP ") else reason
    return head if len(head) <= 40 else head[:39] + "…"
