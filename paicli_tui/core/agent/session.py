"""One agent session: the history the model sees, its ledger, tools, services and model.

The TUI and ``paicli-tui exec`` both drive an :class:`AgentSession`: ``run_turn`` yields typed
events (see :mod:`.events`); everything that changes the history goes through this class so
that every message reaches the ledger and every change of the view is checkpointed.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

from ...config import Settings
from ...paths import ProjectPaths
from ..context.ledger import SessionLedger
from ..context.manager import ContextManager, Prepared
from ..context.offload import output_saver
from ..context.pairing import pairing_problems, repair_pairing
from ..context.profile import ContextProfile
from ..context.report import CompactionReport
from ..contracts.asks import (
    ApprovalCallback,
    ConflictCallback,
    SummaryConsentCallback,
    deny_all,
)
from ..contracts.events import (
    AgentEvent,
    ContextCompacted,
    MemoryNotice,
    compaction_event,
    context_note_event,
)
from ..contracts.llm import ChatClient, TextCompleter
from ..contracts.services import CodeService, MemoryService, ProjectRules
from ..contracts.session_state import SessionState
from ..contracts.tools import ToolContext
from ..llm.complete import completer_for
from ..llm.redact import redact_known
from ..llm.registry import light_completer
from ..mcp import McpManager, approve_and_start_project_servers, start_mcp
from ..mcp.status import mcp_change_note
from ..messages import Message, Role
from ..plural import counted
from ..skills import LoadSkillTool, SkillCatalog
from ..tokens import TokenCalibrator
from ..web import WebFetchTool, WebSearchTool
from .checkpoints import FileCheckpoints, UndoResult
from .diff_view import DiffView
from .ledger_events import ledger_events
from .plan_resume import InterruptedPlan
from .port import ManualCompaction
from .prompt import Mode, SkillInfo, build_system_prompt, person_text
from .shell_notes import (
    COMMAND_TITLE_MARK,
    DROPPED,
    ShellNote,
    titled_by_command,
    waiting_notes,
)
from .subagent import SubAgentTool
from .subagent_record import SubAgentRecord, restored_subagents
from .tool_registry import MAX_OFFERED, ToolRegistry
from .tools import builtin_tools

log = logging.getLogger(__name__)
TOOLS_LEFT_OUT = "are not offered to the model"
TITLE_CHARS = 80


class AgentSession:
    """A running conversation with tools; create it with :meth:`start`."""

    session_id: str
    history: list[Message]
    client: ChatClient | None

    def __init__(self, *, settings: Settings, project: ProjectPaths, ledger: SessionLedger,
                 history: list[Message], client: ChatClient | None,
                 memory: MemoryService | None, code: CodeService | None,
                 approve: ApprovalCallback, resolve_conflict: ConflictCallback | None,
                 mode: Mode, skills: SkillCatalog | None = None,
                 mcp: McpManager | None = None,
                 ask_summary: SummaryConsentCallback | None = None) -> None:
        self.settings = settings
        self.project = project
        self.ledger = ledger
        self.session_id = ledger.session_id
        self.history = history
        self.client = client
        self.memory = memory
        self.code = code
        self.mode = mode
        self.state = SessionState(ledger.session_id)
        self.state.checkpoints = FileCheckpoints(
            settings.home.session_checkpoints(ledger.session_id), project.root)
        self.tool_context = ToolContext(project_root=project.root, settings=settings,
                                        session=self.state, approve=approve,
                                        resolve_conflict=resolve_conflict)
        self._first_provider = client.provider if client else None
        self.tool_context.light_complete = self.light_completer()
        self.calibrator = TokenCalibrator()
        self.manager = ContextManager(
            settings, ContextProfile.for_window(client.window if client else None),
            summarise=completer_for(client, settings.secrets()) if client else None,
            calibrator=self.calibrator, save_output=output_saver(project, self.state), project_root=project.root,
            ask_consent=ask_summary,
            redact=lambda text: redact_known(text, self.settings.secrets()))
        self.tools = ToolRegistry(builtin_tools())
        self.tools.add(WebFetchTool())
        if settings.web_search_url:
            self.tools.add(WebSearchTool(settings.web_search_url))
        self.skills = skills if skills is not None else SkillCatalog()
        if self.skills.skills:
            self.tools.add(LoadSkillTool(self.skills))
        self.mcp = mcp
        for tool in mcp.tools() if mcp is not None else ():
            self.tools.add(tool)
        for service in (code, memory):
            if service is not None:
                for tool in service.tools():
                    self.tools.add(tool)
        self.pending_notices: list[AgentEvent] = []
        self._mcp_watcher: Callable[[], None] | None = None
        self._said_paused = False
        """The notice that automatic extraction stopped (outside content) was given."""
        self.pending_notes: list[str] = []
        """What the program did at the person's word between turns (/undo), for the model
        with their next message."""
        self.pending_shell: list[ShellNote] = []
        """``!command`` output waiting for the person's next message (core.agent.shell_line)."""
        self.is_subagent = False
        self.parent_id: str | None = None
        self.subagent_record: SubAgentRecord | None = None
        """A sub-agent's own numbers, kept by its parent in ``subagent_records``."""
        self.subagent_records: list[SubAgentRecord] = []
        self._subagents = 0
        self._background: set[asyncio.Task[Any]] = set()
        self.turns = 0

    @property
    def profile(self) -> ContextProfile:
        """The thresholds in force (they follow the model's window)."""
        return self.manager.profile

    # -- construction ------------------------------------------------------------------------
    @classmethod
    async def start(cls, settings: Settings, project_root: Path, *,
                    client: ChatClient | None = None, memory: MemoryService | None = None,
                    code: CodeService | None = None, approve: ApprovalCallback = deny_all,
                    resolve_conflict: ConflictCallback | None = None,
                    resume: str | None = None, mode: Mode = "interactive",
                    ask_summary: SummaryConsentCallback | None = None) -> AgentSession:
        """A new session (or ``resume`` an existing one by id), ready for ``run_turn``.
        ``ask_summary`` answers "summarise now?" when ``ask_before_summary`` is on (None:
        nobody can answer, the summary is made without asking and a note says so).

        Raises LedgerError for an unknown or invalid session id, LedgerBusy (a LedgerError)
        when another process has that session open.
        """
        project = ProjectPaths.for_dir(project_root)
        rules = await asyncio.to_thread(_project_rules, memory)
        skills = await asyncio.to_thread(SkillCatalog.discover, project, settings.home)
        for problem in skills.problems:
            log.warning("skill %s left out: %s", problem.path, problem.reason)
        system = Message.system(build_system_prompt(
            project_root=project.root, mode=mode, rules=rules,
            skills=[SkillInfo(name, text) for name, text in skills.index_entries()]))
        if resume:
            # claimed: a session open in another process is refused (LedgerBusy), never
            # written by two processes at once
            ledger = await asyncio.to_thread(
                functools.partial(SessionLedger.open, settings.home, resume, claim=True))
            restored = ledger.restore()
            history = list(restored.messages)
            for warning in restored.warnings:
                log.warning("session %s: %s", resume, warning)
        else:
            # deferred: a launch that never gets a message leaves no session file behind
            ledger = await asyncio.to_thread(functools.partial(
                SessionLedger.create, settings.home, project.root, deferred=True))
            history = []
        session = cls(settings=settings, project=project, ledger=ledger, history=history,
                      client=client, memory=memory, code=code, approve=approve,
                      resolve_conflict=resolve_conflict, mode=mode, skills=skills,
                      mcp=await start_mcp(settings, project.root), ask_summary=ask_summary)
        session.tools.add(SubAgentTool(session))  # top-level sessions only: depth 1
        session.state.approval_mode.accept_edits = settings.accept_edits
        session._note_tools_left_out()
        session._install_system_prompt(system)
        if resume:
            session.state.external_content_used = restored.external_content_used
            from .text_call_rules import restore_text_call_rules

            restore_text_call_rules(session.state, session.history)
            session.repair("resume")  # a crash mid-turn can leave calls without results
            session._subagents, session.subagent_records = await asyncio.to_thread(
                restored_subagents, settings.home, ledger)
            # commands run before quitting, not yet sent: they go with the next message
            session.pending_shell = waiting_notes(await asyncio.to_thread(
                ledger_events, ledger.path, "shell_"))
        if client is not None:
            ledger.event("model", provider=client.provider, model=client.model,
                         window=client.window)
        return session

    def _install_system_prompt(self, system: Message) -> None:
        """Put this session's system prompt first (a resumed session gets today's rules;
        an unchanged prompt is left alone so the provider's cached prefix survives)."""
        if self.history and self.history[0].role is Role.SYSTEM and \
                self.history[0].content == system.content:
            return
        self.ledger.append(system)
        rest = [m for m in self.history if m.role is not Role.SYSTEM]
        self.replace_view([system, *rest], "system_prompt")

    # -- history changes (every one reaches the ledger) ------------------------------------------
    def append(self, message: Message) -> None:
        """Add a message to the view and the ledger, then checkpoint the new view.

        behaviour §7 asks for a checkpoint after every change of the history, appends included.
        It is free: in the ledger an append implies its checkpoint, nothing more is written.
        """
        if message.is_real_user_turn:
            # Title from the person's words, not the program's turn context.
            self.name_if_untitled(person_text(message))
        self.history.append(message)
        self.ledger.append(message)
        self.ledger.checkpoint(self.history, "append")

    def name_if_untitled(self, text: str) -> None:
        """Give the session its title (what the session list shows) from ``text``, unless it
        has one other than a command's (the person's first words name it better)."""
        title = " ".join(text.split())[:TITLE_CHARS]
        if title and (self.ledger.title is None or titled_by_command(self.ledger.title)):
            self.ledger.title = title
            self.ledger.event("title", title=title)

    def name_after_command(self, command: str) -> None:
        """A session that is only ``!commands`` so far takes the first as its title: without
        one the session list left it out, though the quit line said how to resume it."""
        if self.ledger.title is None:
            self.name_if_untitled(f"{COMMAND_TITLE_MARK}{command}")

    def replace_view(self, messages: Sequence[Message], reason: str) -> None:
        """The model now sees ``messages``; record the new view."""
        self.history = list(messages)
        self.ledger.checkpoint(self.history, reason)

    def repair(self, reason: str = "repair") -> list[str]:
        """Make the history valid for any provider (answer dangling calls); returns what was
        fixed. Messages added by the repair are written to the ledger."""
        if not pairing_problems(self.history):
            return []
        before = {m.id for m in self.history}
        repaired, fixes = repair_pairing(self.history, self.state.not_run)
        for message in repaired:
            if message.id not in before:  # stand-in results; rewrites keep their id
                self.ledger.append(message)
        self.replace_view(repaired, reason)
        return fixes

    def record_reports(self, reports: Sequence[CompactionReport]) -> list[ContextCompacted]:
        """Ledger events for the tiers that changed something or failed; the matching UI
        events (a failure is a :class:`CompactionFailed`)."""
        events = []
        for report in reports:
            if not report.notable:
                continue
            self.ledger.event("compaction", **report.to_json())
            events.append(compaction_event(report))
        return events

    def apply_prepared(self, prepared: Prepared) -> list[AgentEvent]:
        """Adopt the manager's history (events first, then the checkpoint, so 'the view
        before the last compaction' stays findable in the ledger). The events: how a
        summary was consented to, the tiers' reports, the warning that a summary is
        coming."""
        notes = [self._record_note(n) for n in prepared.notes if n.kind == "summary_consent"]
        compactions = self.record_reports(prepared.reports)
        events: list[AgentEvent] = [*notes, *compactions]
        events += [self._record_note(n) for n in prepared.notes if n.kind != "summary_consent"]
        if len(prepared.messages) != len(self.history) or any(
                a is not b for a, b in zip(prepared.messages, self.history, strict=True)):
            # New messages (the summary and its acknowledgement, stand-in results) are sent
            # from now on, so they join the raw stream (behaviour §7); rewrites of messages already
            # there (placeholders keep their id) are recorded by the checkpoint alone. Written
            # after the compaction events, so the view before the compaction stays findable.
            known = {m.id for m in self.history}
            for message in prepared.messages:
                if message.id not in known:
                    self.ledger.append(message)
            changed = any(e.outcome == "compacted" for e in compactions)
            self.replace_view(prepared.messages, "compaction" if changed else "prepare")
        return events

    def _record_note(self, note: Any) -> AgentEvent:
        data = note.to_json()
        self.ledger.event(str(data.pop("kind")), **data)
        return context_note_event(note)

    # -- the public API --------------------------------------------------------------------------
    def run_turn(self, user_input: str) -> AsyncIterator[AgentEvent]:
        """Run one user turn; yields events ending with TurnFinished (or stops early when
        cancelled, leaving a valid history)."""
        from .loop import run_turn

        return run_turn(self, user_input)

    def run_shell_line(self, command: str) -> AsyncIterator[AgentEvent]:
        """``!command``: run what the person typed now; its output goes to the model with
        their next message."""
        from .shell_line import run_shell_line

        return run_shell_line(self, command)

    @property
    def accept_edits(self) -> bool:
        return self.state.approval_mode.accept_edits

    def set_accept_edits(self, on: bool) -> None:
        """Switch the accept-edits mode (sub-agents and plan tasks running follow at once);
        the ledger records each switch, so a later reader knows why a write went unasked."""
        if on != self.state.approval_mode.accept_edits:
            self.state.approval_mode.accept_edits = on
            self.ledger.event("approval_mode", accept_edits=on)

    async def last_turn_diff(self) -> DiffView | None:
        """/diff turn: the files the agent changed in its newest turn with changes, from
        before to now, keys masked; None when it changed none (core.agent.turn_diff)."""
        from .turn_diff import last_turn_diff

        assert self.state.checkpoints is not None
        return await asyncio.to_thread(last_turn_diff, self.state.checkpoints,
                                       lambda text: redact_known(text, self.settings.secrets()))

    async def undo_last_turn(self) -> UndoResult:
        """/undo: put back the files the agent changed in its newest turn with changes
        (core.agent.checkpoints); the model hears of it with the person's next message."""
        assert self.state.checkpoints is not None
        result = await asyncio.to_thread(self.state.checkpoints.undo_last_turn)
        if result.turn is not None:
            self.pending_notes.append(result.summary())
            self.ledger.event("undo", turn=result.turn, restored=result.restored,
                              removed=result.removed, kept=[path for path, _ in result.kept])
        return result

    def tool_schemas(self) -> list[dict[str, Any]]:
        return self.tools.schemas()

    def estimate(self) -> int:
        """Estimated (calibrated) tokens of the next request as the history stands."""
        return self.manager.estimate(self.history, self.tool_schemas())

    async def compact_now(self, focus: str = "") -> ManualCompaction:
        """Manual /compact [focus]: summarise all but the last user turn (the digest when no
        summary can be had; clearing when there is nothing to summarise). ``focus``: the
        person's instructions for the summary (at most 2,000 characters are used)."""
        prepared = await self.manager.compact_now(self.history, self.tool_schemas(),
                                                  focus=focus)
        events = [e for e in self.apply_prepared(prepared) if isinstance(e, ContextCompacted)]
        reports = prepared.reports
        return ManualCompaction(tuple(events), compacted=any(r.changed for r in reports),
                                why_not="; ".join(r.detail for r in reports
                                                  if r.detail and not r.changed))

    def clear_history(self) -> None:
        """/clear: the model starts fresh (system prompt kept); the ledger keeps everything."""
        self.replace_view([m for m in self.history[:1] if m.role is Role.SYSTEM], "clear")
        if self.pending_shell:
            self.pending_shell.clear()
            self.ledger.event(DROPPED)
        self.manager.gate.reset()  # a coming summary is warned about (and asked) afresh
        # the outside content left the history with it, so the guard's mark goes too (as in
        # the reference); recorded so a resumed session does not bring the mark back
        if self.state.external_content_used:
            self.state.external_content_used = False
            self.state.external_sources.clear()
            self.ledger.clear_external_mark()
            self._said_paused = False

    def switch_model(self, client: ChatClient) -> None:
        """Use another model from the next request on; thresholds follow its window.

        The previous client is closed in the background (its connections are not reused).
        """
        old, self.client = self.client, client
        if old is not None and old is not client:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                pass  # no loop: nothing was opened asynchronously yet
            else:
                self.start_background(old.aclose())
        self.manager.set_window(client.window)
        self.manager.summarise = completer_for(client, self.settings.secrets())
        self.tool_context.light_complete = self.light_completer()
        self.ledger.event("model", provider=client.provider, model=client.model,
                          window=client.window)

    def light_completer(self) -> TextCompleter | None:
        """The completer for background jobs; ``light_model`` names a model of the provider
        the session started with, so after /model switched provider the main model is used."""
        if self.client is None:
            return None
        if self.client.provider != self._first_provider:
            return completer_for(self.client, self.settings.secrets())
        return light_completer(self.settings, self.client)

    def memory_selector(self) -> TextCompleter | None:
        """The light model that chooses a turn's memories, or None (the offline choice): only
        a ``light_model`` set explicitly, on the provider it names a model of, with
        ``memory_selection`` not ``offline`` — never the main model, whose first request of a
        turn stays the turn's own."""
        settings = self.settings
        if (not settings.light_model or settings.memory_selection == "offline"
                or self.client is None or self.client.provider != self._first_provider):
            return None
        return light_completer(settings, self.client)

    def start_background(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def wait_background(self) -> None:
        """Wait for background work (fact extraction) to finish; failures are logged."""
        while self._background:
            await asyncio.gather(*list(self._background), return_exceptions=True)

    def take_notices(self) -> list[AgentEvent]:
        """Events produced in the background since the last call (memory saves, and what went
        wrong with the memory file: a file moved aside or entries set aside is never
        silent)."""
        if self.memory is not None:
            try:
                for problem in self.memory.store_problems():
                    self.note_memory("file", problem)
            except Exception:  # a memory service without the file (a test double)
                log.debug("memory store problems unavailable", exc_info=True)
        notices, self.pending_notices = self.pending_notices, []
        return notices + self.take_mcp_changes()

    # -- sub-agents ----------------------------------------------------------------------------
    async def spawn_subagent(self, label: str, *, read_only: bool = True,
                             task_id: str = "", call_id: str = "") -> AgentSession:
        """A sub-agent session: its own history, ledger stream and context manager; this
        session's client, code service, skills, approvals and external-content mark.
        ``task_id``: the plan task it runs; ``call_id``: the run_subagent call it answers
        (recorded, so a resumed chat draws that call as this sub-agent)."""
        from ..context.ledger import SUBAGENT_MARK
        from .subagent import NEVER_IN_SUBAGENTS, READ_ONLY_TOOLS, named_approvals
        from .subagent import subagent_system_prompt as child_prompt

        self._subagents += 1
        child_id = f"{self.session_id}{SUBAGENT_MARK}{self._subagents}"
        ledger = await asyncio.to_thread(
            SessionLedger.create, self.settings.home, self.project.root,
            f"sub-agent: {label}", parent=self.session_id, session_id=child_id)
        self.ledger.event("subagent", child=child_id, label=label, read_only=read_only,
                          **({"task_id": task_id} if task_id else {}),
                          **({"call_id": call_id} if call_id else {}))
        child = AgentSession(
            settings=self.settings, project=self.project, ledger=ledger, history=[],
            client=self.client, memory=None, code=self.code,
            approve=named_approvals(self.tool_context.approve, label), resolve_conflict=None,
            mode="headless", skills=self.skills)
        child.is_subagent = True
        child.parent_id = self.session_id
        child.subagent_record = SubAgentRecord(child_id, label, task_id, call_id)
        self.subagent_records.append(child.subagent_record)
        child.state.external_content_used = self.state.external_content_used
        child.state.always_approved = self.state.always_approved  # "Always" holds for both
        child.state.approval_mode = self.state.approval_mode  # and a switch of the mode
        # its file changes are the parent's turn's: /undo puts them back with the turn's
        child.state.checkpoints = self.state.checkpoints
        child.state.turn_id, child.state.turn_number = self.state.turn_id, \
            self.state.turn_number
        # started by a call the model wrote as text unasked: all it does is asked, as that was
        child.state.every_call_asked = self.state.every_call_asked or \
            call_id in self.state.unasked_text_calls
        allowed = [t for t in self.tools.names() if t not in NEVER_IN_SUBAGENTS
                   and (not read_only or t in READ_ONLY_TOOLS)]
        child.tools = ToolRegistry(tool for name in allowed
                                   if (tool := self.tools.get(name)) is not None)
        system = self.history[0].content if self.history else ""
        child._install_system_prompt(Message.system(child_prompt(system)))
        return child

    def run_plan(self, goal: str, *, review: Any, on_failure: Any = None,
                 resume: InterruptedPlan | None = None) -> AsyncIterator[AgentEvent]:
        """Plan mode: propose a plan for ``goal``, have it reviewed, run its tasks as
        sub-agents in dependency order (see :mod:`.plan_run`); ``resume`` continues an
        interrupted plan (``goal`` and ``review`` are then not used)."""
        from .plan_run import run_plan, stop_on_failure

        return run_plan(self, goal, review=review, on_failure=on_failure or stop_on_failure,
                        resume=resume)

    def subagent_history(self, subagent: str) -> list[Message]:
        """The own history of one of this session's sub-agents, read from its stream."""
        from .subagent_record import subagent_messages

        if all(r.subagent != subagent for r in self.subagent_records):
            raise KeyError(f"{subagent!r} is not a sub-agent of this session")
        return subagent_messages(self.settings.home, subagent)

    def interrupted_plan(self) -> InterruptedPlan | None:
        """This session's last plan when it never finished (read from the ledger)."""
        from .plan_resume import interrupted_plan

        return interrupted_plan(self.ledger.path)

    async def close_subagent(self) -> None:
        """Release what a sub-agent holds — never the client, which its parent shares."""
        for task in list(self._background):
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.gather(*list(self._background), return_exceptions=True)
        await self.manager.aclose()
        self.ledger.close()

    def _note_tools_left_out(self) -> None:
        """Say in the MCP notices (the chat's opening warning, /mcp) how many MCP tools no
        request offers: a request may offer at most MAX_OFFERED tools."""
        if self.mcp is None:
            return
        self.mcp.problems = [p for p in self.mcp.problems if TOOLS_LEFT_OUT not in p]
        left_out = self.tools.left_out()
        if left_out:
            self.mcp.problems.append(
                f"{len(left_out):,} MCP tools {TOOLS_LEFT_OUT}: a request may offer at most "
                f"{MAX_OFFERED} tools (OpenAI refuses more), the program's own come first. "
                f"Disable a server you do not need in config.toml (first left out: "
                f"`{left_out[0]}`).")

    async def approve_project_mcp(self) -> str:
        """/mcp approve: trust this project's .mcp.json and start its servers now."""
        self.mcp, started = await approve_and_start_project_servers(
            self.mcp, self.settings, self.project.root)
        self.watch_mcp(self._mcp_watcher)
        for status in started:
            for tool in status.tools:
                self.tools.add(tool)
        self._note_tools_left_out()
        if not started:
            return "No unapproved MCP servers in this project's .mcp.json."
        return self.mcp.report() if self.mcp is not None else ""

    async def restart_mcp(self, name: str = "") -> str:
        """``/mcp restart [NAME]``: start NAME's server again (every failed one without a
        name); its tools are offered from the next request on (a request already sent keeps
        the list it went with), each outcome comes as a change (:meth:`take_mcp_changes`).
        '' when restarts ran, else why none did."""
        if self.mcp is None:
            return "No MCP servers are configured."
        mcp = self.mcp
        try:
            names = mcp.restart_targets(name)
        except ValueError as exc:
            return str(exc)
        before = {n: [t.name for t in mcp.status_of(n).tools] for n in names}
        for status in await asyncio.gather(*(mcp.restart(n) for n in names)):
            if status.state == "running":
                self.tools.replace(before[status.config.name], status.tools)
        self._note_tools_left_out()
        return ""

    def watch_mcp(self, listener: Callable[[], None] | None) -> None:
        """``listener()`` is called whenever an MCP server changes by itself (its process
        ended) or a restart ends; the face then takes the changes."""
        self._mcp_watcher = listener
        if self.mcp is not None:
            self.mcp.on_change = listener

    def take_mcp_changes(self) -> list[AgentEvent]:
        """MCP servers that failed or were restarted since the last call, each recorded in
        the ledger as it is taken."""
        changes = self.mcp.take_changes() if self.mcp is not None else []
        for change in changes:
            self.ledger.event("mcp_server", server=change.server, state=change.state,
                              cause=change.cause, detail=change.detail, tools=change.tools)
            if change.cause != "start":  # the model saw its tools offered, then not
                self.pending_notes.append(mcp_change_note(change))
        return list(changes)

    async def aclose(self) -> None:
        """Stop background work, the MCP servers and the client's connections."""
        if self.mcp is not None:
            with contextlib.suppress(Exception):
                await self.mcp.aclose()
        for task in list(self._background):
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.gather(*list(self._background), return_exceptions=True)
        await self.manager.aclose()
        self.ledger.close()
        if self.client is not None:
            with contextlib.suppress(Exception):
                await self.client.aclose()

    def note_memory(self, action: str, detail: str, ids: Sequence[str] = ()) -> None:
        self.pending_notices.append(MemoryNotice(action=action, detail=detail, ids=tuple(ids)))

    def extract_facts_later(self, user_input: str) -> None:
        """After a finished turn or plan: automatic fact extraction in the background (when
        ``auto_extract`` is on and there is a memory service); what it saves comes back as a
        notice (:meth:`take_notices`)."""
        if self.settings.auto_extract and self.memory is not None:
            self._say_extraction_paused()
            self.start_background(self._extract_facts(user_input))

    def _say_extraction_paused(self) -> None:
        """Once the session read outside content, automatic extraction stops (behaviour §16):
        say so once, or facts the person wrote ("We format with black") were quietly not
        remembered, when every earlier turn's had been."""
        if not self.state.external_content_used or self._said_paused:
            return
        self._said_paused = True
        sources = ", ".join(self.state.external_sources[:2]) or "a tool's result"
        self.note_memory("paused", "Automatic memory is paused for this session: it read "
                         f"content from outside ({sources}). Ask in words to remember "
                         "something (\"remember …\"), or /clear to start afresh.")

    async def _extract_facts(self, user_input: str) -> None:
        memory = self.memory
        if memory is None:
            return
        try:
            ids = await memory.after_turn(user_input, self.state, self.light_completer())
        except Exception:
            log.exception("fact extraction failed")
            return
        if ids:
            self.note_memory("extracted", f"remembered {counted(len(ids), 'fact')} from this turn", ids)


def _project_rules(memory: MemoryService | None) -> ProjectRules | None:
    if memory is None:
        return None
    try:
        return memory.project_rules()
    except Exception:  # unreadable rules must not stop the session
        log.exception("could not load project rules")
        return None
