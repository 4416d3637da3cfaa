"""``paicli-tui exec PROMPT``: run one agent task headless (like ``codex exec``).

Plain mode streams the answer to stdout and tool activity to stderr; ``--json`` prints one
JSON event per line, each carrying the session id (so the first and the last do); a task
that cannot start prints one ``error`` event with a null session instead. Exit codes:
0 done, 1 error (no model, provider failure, iteration limit), 2 usage error, 3 a memory
conflict needs the person's decision.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..config import Settings
from ..core.plural import counted
from ..surrogates import without_surrogates
from .conventions import (
    EXIT_CONFLICT,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    add_accept_edits_flag,
    add_project_flag,
    add_provider_flags,
    foreign_session,
    read_standard_input,
    resolve_session,
)
from .printable import printable

if TYPE_CHECKING:  # the core loads inside run(): --help stays light
    from ..core.agent.port import SessionPort
    from ..core.contracts.asks import ApprovalDecision, ApprovalRequest
    from ..core.contracts.events import AgentEvent, PlanFinished, ToolCallFinished
    from ..core.contracts.services import CodeService, MemoryService

HELP = ("Run one agent task without the TUI and print the answer (or, with --json, one JSON "
        "event per line). Writes and commands are refused unless --yes is given.")



def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("prompt", metavar="PROMPT", nargs="?",
                        help="the task; '-' reads it from standard input")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON event per line (each with 'type' and 'session')")
    parser.add_argument("--yes", action="store_true",
                        help="approve every file change and command without asking")
    add_accept_edits_flag(parser)
    parser.add_argument("--max-turns", dest="max_turns", type=int, metavar="N",
                        help="at most N model requests for this task (default 40)")
    parser.add_argument("--plan", action="store_true",
                        help="plan mode: PROMPT is a goal; the model proposes a task graph, "
                             "--yes runs it (each task a sub-agent), without --yes it is only "
                             "shown")
    parser.add_argument("--resume", metavar="SESSION",
                        help="continue a session (its id is printed by every run)")
    parser.add_argument("--plan-continue", dest="plan_continue", action="store_true",
                        help="with --resume and no PROMPT: continue the session's interrupted "
                             "plan (its finished tasks are not run again, their results are "
                             "the inputs of the rest)")
    add_project_flag(parser)
    add_provider_flags(parser)


EMPTY_PROMPT = ('the prompt is empty: pass the task as an argument, paicli-tui exec "your '
                'task", or - to read it from standard input')
"""A first run without a task says how to give one (the usage line alone does not)."""


def run(args: argparse.Namespace, settings: Settings) -> int:
    import asyncio

    if args.plan_continue:
        problem = ("--plan-continue needs --resume SESSION" if not args.resume
                   else "--plan-continue takes no PROMPT (the plan says what to do)"
                   if args.prompt else "--plan-continue cannot be used with --plan"
                   if args.plan else "")
        if problem:
            return refuse(args, problem, EXIT_USAGE)
        prompt = ""
    else:
        from_stdin = args.prompt == "-"
        # bytes that are not UTF-8 (a Latin-1 file piped in) as U+FFFD: a lone surrogate
        # cannot be sent to the model (the command line's words are read so in cli.py)
        prompt = read_standard_input() if from_stdin else without_surrogates(args.prompt or "")
        if not prompt.strip():
            return refuse(args, "the prompt is empty (nothing on standard input)" if from_stdin
                          else EMPTY_PROMPT, EXIT_USAGE)
    if args.max_turns is not None:
        if args.max_turns < 1:
            return refuse(args, "--max-turns must be at least 1", EXIT_USAGE)
        settings = settings.with_overrides(max_iterations=args.max_turns)
    project = Path(args.project or ".").expanduser()
    if not project.is_dir():
        return refuse(args, f"project folder {str(project)!r} does not exist", EXIT_USAGE)
    unknown = None
    if args.resume:  # a unique start of an id names that session
        args.resume, unknown = resolve_session(settings.home.history_raw_dir, args.resume)
    if unknown:  # before the model is built: a mistyped id is the person's to fix first
        return refuse(args, unknown, EXIT_USAGE)
    foreign = args.resume and foreign_session(settings.home, args.resume, project,
                                              "paicli-tui exec")
    if foreign:  # its tools would act on this folder's files, not the session's own
        return refuse(args, foreign, EXIT_USAGE)
    try:
        return asyncio.run(_run(prompt, args, settings, project))
    except KeyboardInterrupt:  # before the session started, nothing said it yet
        if not getattr(args, "interrupted_said", False):
            refuse(args, "interrupted (Ctrl+C)", EXIT_INTERRUPTED)
        return EXIT_INTERRUPTED


def refuse(args: argparse.Namespace, problem: str, code: int, *, detail: str = "",
            out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Say why the task did not start, and return its exit code.

    The person reads it on stderr (``detail`` replaces the one-line form there when given,
    e.g. how to connect a model). A script reading ``--json`` from stdout would otherwise get
    no line at all, so it also gets one ``error`` event; there is no session yet, so its
    ``session`` is null."""
    print(detail or f"paicli-tui exec: {problem}", file=err or sys.stderr)
    if getattr(args, "json", False):
        record = {"type": "error", "message": problem, "recoverable": False,
                  "session": None, "exit_code": code}
        print(json.dumps(record, ensure_ascii=False), file=out or sys.stdout, flush=True)
    return code



NO_MODEL_FIX = ("set a provider's key, e.g. export DEEPSEEK_API_KEY=sk-..., or pass "
                "--provider ollama for a local model")


def missing_model_lines(problem: str) -> str:
    """stderr when exec has no usable model: what is missing and the one thing to set, not
    the chat's whole provider guide (its "then start paicli-tui again" is not for a script)."""
    fix = f": {NO_MODEL_FIX}" if problem == "no model is configured" else ""
    return (f"paicli-tui exec: {problem}{fix}\n"
            "Every provider and setting: paicli-tui --help, docs/providers.md")


def plan_finished_line(event: PlanFinished) -> str:
    """stderr's last plan line. A plan refused before it ran has no tasks to count: it read
    '[plan] invalid: 0 of 0 tasks done the plan must be …', the reason glued to the count."""
    if not event.total:
        return f"[plan] {event.status}" + (f": {event.detail}" if event.detail else "")
    return (f"[plan] {event.status}: {event.done} of {event.total} tasks done"
            + (f" ({event.detail})" if event.detail else ""))

class _Printer:
    """Turns agent events into output lines (JSON or human text)."""

    def __init__(self, as_json: bool, out: TextIO, err: TextIO) -> None:
        self.as_json = as_json
        self.out = out
        self.err = err
        self.session = ""
        self.open_line = False
        self.conflict = False
        self.final_text = False
        """Print the turn's final text (a plan's result is not streamed)."""
        self.auto_approve = False
        self.accept_edits = False
        """``--yes`` was given (a denial then has another cause)."""
        self.asked_every_time: dict[str, str] = {}
        """Why a call was for the person alone to approve, by call id (see :meth:`deny`)."""
        self.running: dict[str, str] = {}
        """Tool calls started and not finished, by call id: Ctrl+C names them cancelled."""

    async def deny(self, request: ApprovalRequest) -> ApprovalDecision:
        """exec asks nobody: every question is answered no, and why it was asked at all
        under --yes is kept for the denial's hint."""
        from ..core.contracts.asks import ApprovalDecision

        if request.asked_every_time and request.call_id:
            self.asked_every_time[request.call_id] = request.asked_every_time
        return ApprovalDecision.DENY

    def _text(self, text: str) -> None:
        self.out.write(printable(text))
        self.out.flush()
        self.open_line = not text.endswith("\n")

    def _note(self, text: str) -> None:
        if self.open_line:
            self._text("\n")
        print(printable(text), file=self.err, flush=True)

    def _denial_hint(self, event: ToolCallFinished) -> str:
        """A change or command refused because nobody was asked: say how to allow it."""
        if event.status != "denied":
            return ""
        from ..core.agent.text_call_rules import WRITTEN_UNASKED

        why = self.asked_every_time.get(event.call_id, WRITTEN_UNASKED)
        if self.auto_approve and why != WRITTEN_UNASKED:  # a quote, a sub-agent it started
            return f" ({why}: asked every time, which --yes does not cover)"
        if self.auto_approve:  # --yes covers everything but a call written as text
            return (" (the model wrote this call as text, which --yes does not cover; for a "
                    "model that cannot call tools set tool_protocol = \"prompt\")")
        if self.accept_edits:
            from ..core.contracts.approval import EDIT_TOOLS

            return (" (a file asked about every time, which --accept-edits does not cover; "
                    "--yes does)" if event.name in EDIT_TOOLS else
                    " (--accept-edits approves file changes only; add --yes to allow "
                    "commands and the other tools that ask)")
        return (" (exec asks nobody and denies every file change and command; "
                "add --yes to allow them, or --accept-edits for file changes only)")

    def emit(self, event: AgentEvent) -> None:
        from ..core.contracts import events as ev
        from ..core.contracts.tools import ToolStatus
        from ..core.text.arguments import readable_arguments

        if isinstance(event, ev.ToolCallFinished) and event.name == "save_memory":
            # the last save_memory call decides: a conflict left standing exits with code 3
            self.conflict = event.status == ToolStatus.CONFLICT
        if isinstance(event, ev.ToolCallFinished):
            self.running.pop(event.call_id, None)
        if self.as_json:
            record = {**event.to_json(), "session": self.session}
            print(json.dumps(record, ensure_ascii=False), file=self.out, flush=True)
            return
        if isinstance(event, ev.TextDelta):
            self._text(event.text)
        elif isinstance(event, ev.ToolCallStarted):
            self.running[event.call_id] = event.name
            self._note(f"→ {event.name} {readable_arguments(event.arguments)[:200]}")
        elif isinstance(event, ev.ToolCallFinished) and event.status != "done":
            self._note(f"  {event.name}: {event.status}{self._denial_hint(event)}")
        elif isinstance(event, ev.RequestRetrying):
            self._note(f"[retry] {event.reason} — retry {event.attempt} of "
                       f"{event.max_retries} in {event.delay_s:.0f} s")
        elif isinstance(event, ev.ContextCompacting):
            why = "the provider refused the request as too long" if event.forced else \
                f"{event.tokens:,} of {event.compaction_trigger:,} tokens"
            self._note(f"[context] compacting ({why})…")
        elif isinstance(event, ev.SummaryAhead):
            self._note(f"[context] summary ahead: {event.detail}")
        elif isinstance(event, ev.SummaryConsentDecided):
            self._note(f"[context] summary {event.answer.replace('_', ' ')}: {event.detail}")
        elif isinstance(event, ev.CompactionFailed):
            calls = f", {counted(event.model_calls, 'model call')}" if event.model_calls else ""
            self._note(f"[context] {event.tier} failed at {event.tokens_before:,} tokens"
                       f"{calls}: {event.detail}")
        elif isinstance(event, ev.ContextCompacted):
            self._note(f"[context] {event.tier}: {event.tokens_before:,} → "
                       f"{event.tokens_after:,} tokens {event.detail}".rstrip())
        elif isinstance(event, ev.AgentError):
            self._note(f"error: {event.message}")
        elif isinstance(event, ev.SubAgentStarted):
            self._note(f"[sub-agent {_short_id(event.subagent)}] started: {event.label}")
        elif isinstance(event, ev.SubAgentStep) and isinstance(event.event, ev.ToolCallStarted):
            self._note(f"  [sub-agent {_short_id(event.subagent)}] → {event.event.name} "
                       f"{readable_arguments(event.event.arguments)[:160]}")
        elif isinstance(event, ev.SubAgentFinished):
            self._note(f"[sub-agent {_short_id(event.subagent)}] {event.status}: "
                       f"{counted(event.requests, 'request')}, "
                       f"{counted(event.tool_calls, 'tool call')}, its history "
                       f"{event.history_tokens:,} tokens, {event.elapsed_s:.1f} s")
        elif isinstance(event, ev.PlanInterrupted):
            self._note(f"[plan] this session's plan was interrupted: {len(event.done)} of "
                       f"{len(event.done) + len(event.remaining)} tasks finished; continue "
                       f"the rest with: paicli-tui exec --resume {self.session} "
                       "--plan-continue")
        elif isinstance(event, ev.PlanContinued):
            self._note(f"[plan] continuing: {', '.join(event.done) or 'no task'} finished, "
                       f"running {', '.join(event.remaining) or 'nothing'}")
        elif isinstance(event, ev.PlanTaskStarted):
            again = f" (attempt {event.attempt})" if event.attempt > 1 else ""
            self._note(f"[plan] {event.task_id} started{again}: {event.title}")
        elif isinstance(event, ev.PlanTaskFinished):
            self._note(f"[plan] {event.task_id} {event.status}: {event.preview[:120]}")
        elif isinstance(event, ev.PlanFinished):
            self._note(plan_finished_line(event))
        elif isinstance(event, ev.ToolCallsFromText) and not event.asked:
            self._note(f"[tools] {ev.text_calls_notice(event)}")
        elif type(event) in _tagged_notices():
            tag, notice = _tagged_notices()[type(event)]
            self._note(f"[{tag}] {notice(event)}")
        elif isinstance(event, ev.MemoryNotice):
            self._note(f"[memory] {event.detail}")
        elif isinstance(event, ev.McpServerChanged):
            from ..core.mcp.status import change_notice

            self._note(f"[mcp] {change_notice(event, markdown=False)}")
        elif isinstance(event, ev.MemorySelected):
            who = (f"offline choice kept (the light model's choice: {event.fallback})"
                   if event.fallback else "chosen by the light model")
            self._note(f"[memory] {len(event.chosen)} of {event.candidates} memories: {who}")
        elif isinstance(event, ev.AssistantMessage) and self.open_line:
            self._text("\n")
        elif isinstance(event, ev.TurnFinished) and self.final_text and event.final_text:
            self._text(event.final_text.rstrip("\n") + "\n")

    def cancel_running(self) -> None:
        """Ctrl+C stopped the calls still running: each reads "cancelled" (the person stopped
        it), as in the chat, instead of being left without an outcome."""
        for name in self.running.values():
            self._note(f"  {name}: cancelled (stopped before it finished; it may have run "
                       "in part)")
        self.running.clear()

    def finish(self) -> None:
        if self.open_line:
            self._text("\n")
        if not self.as_json:
            print(f"session: {self.session} (continue with: paicli-tui exec --resume "
                  f"{self.session} ...)", file=self.err, flush=True)


@cache
def _tagged_notices() -> dict[type, tuple[str, Callable[[Any], str]]]:
    """Events exec reports as ``[tag]`` and the notice the chat shows for them too (built on
    first use: the core's events load inside run(), so --help stays light)."""
    from ..core.contracts import events as ev

    return {ev.StreamLinesSkipped: ("stream", ev.skipped_lines_notice),
            ev.TextCallUnread: ("tools", ev.text_call_unread_notice),
            ev.ReplyAtOutputLimit: ("reply", ev.output_limit_notice),
            ev.ReplyFiltered: ("reply", ev.filtered_notice),
            ev.FilesAttached: ("files", ev.attached_notice)}


def _short_id(subagent: str) -> str:
    """``sub-2`` from ``<parent>.sub-2``."""
    return subagent.rsplit(".", 1)[-1]


def _plan_review(approved: bool, printer: _Printer) -> Any:
    """Headless review: --yes runs the plan as proposed; without it the plan is only shown."""

    async def review(plan: Any) -> Any:
        if not printer.as_json:
            printer._note(plan.describe())
        if approved:
            return plan
        printer._note("[plan] not run: add --yes to run it (headless cannot review a plan)")
        return None

    return review


def _services(settings: Settings, project: Path, err: TextIO
              ) -> tuple[MemoryService | None, CodeService | None]:
    """Memory and code services; a broken one is reported and left out, not fatal."""
    memory: MemoryService | None = None
    code: CodeService | None = None
    try:
        from ..core.memory.service import LocalMemoryService

        # A headless task has no screen to keep responsive: its one turn waits for the
        # embedder (and embeds a cold store, a batch at most) rather than going on by
        # keywords alone while the model loads.
        memory = LocalMemoryService(settings, project, background_vectors=False)
    except Exception as exc:  # noqa: BLE001 - a memory problem must not stop the task
        print(f"paicli-tui exec: long-term memory unavailable ({exc})", file=err)
    try:
        from ..core.code.service import LocalCodeService

        code = LocalCodeService(settings, project)
    except Exception as exc:  # noqa: BLE001
        print(f"paicli-tui exec: code tools unavailable ({exc})", file=err)
    return memory, code


async def _run(prompt: str, args: argparse.Namespace, settings: Settings, project: Path,
               out: TextIO | None = None, err: TextIO | None = None) -> int:
    import asyncio

    from ..core.agent.session import AgentSession
    from ..core.context.ledger import LedgerError
    from ..core.contracts.events import AgentError, PlanInterrupted, TurnFinished
    from ..core.llm.registry import (
        ProviderConfigError,
        build_client,
        configuration_problem,
        provider_spec,
    )

    out = out or sys.stdout
    err = err or sys.stderr
    try:
        if settings.provider:
            provider_spec(settings.provider)  # a misspelt --provider is a usage error
        client = build_client(settings)
    except ProviderConfigError as exc:
        return refuse(args, str(exc), EXIT_USAGE, out=out, err=err)
    if client is None:  # the JSON line names what is missing, as the first stderr line does
        problem = configuration_problem(settings) or "no model is configured"
        return refuse(args, problem, EXIT_ERROR, detail=missing_model_lines(problem),
                      out=out, err=err)
    memory, code = _services(settings, project, err)
    printer = _Printer(args.json, out, err)
    try:
        session: SessionPort = await AgentSession.start(
            settings, project, client=client, memory=memory, code=code, approve=printer.deny,
            resume=args.resume, mode="headless")
    except LedgerError as exc:
        await client.aclose()
        return refuse(args, str(exc), EXIT_USAGE, out=out, err=err)
    printer.session = session.session_id
    printer.final_text = bool(args.plan or args.plan_continue)
    printer.auto_approve = settings.auto_approve
    printer.accept_edits = settings.accept_edits
    finished: TurnFinished | None = None
    unwritable = False  # said once: closing the session meets the same error again
    try:
        interrupted = session.interrupted_plan() if args.resume else None
        if args.plan_continue:
            if interrupted is None:
                problem = f"session {session.session_id} has no interrupted plan to continue"
                if args.json:  # the session exists: its id rides on the event
                    printer.emit(AgentError(message=problem, recoverable=False))
                print(f"paicli-tui exec: {problem}", file=err)
                return EXIT_USAGE
            events = session.run_plan("", review=_plan_review(True, printer),
                                      resume=interrupted)
        else:
            if interrupted is not None:
                printer.emit(PlanInterrupted(goal=interrupted.plan.goal,
                                             done=tuple(interrupted.finished),
                                             remaining=tuple(interrupted.remaining)))
            events = (session.run_plan(prompt, review=_plan_review(args.yes, printer))
                      if args.plan else session.run_turn(prompt))
        async for event in events:
            if isinstance(event, TurnFinished):
                finished = event  # printed last, after background work
                continue
            printer.emit(event)
        await session.wait_background()
        for notice in session.take_notices():
            printer.emit(notice)
        if finished is not None:
            printer.emit(finished)
        printer.finish()
    except asyncio.CancelledError:
        # Ctrl+C (exit 130): the last line says the task was cancelled, so a script tells
        # it from a cut stream, and the session to go on with is named
        if not args.json:
            printer.cancel_running()
            printer._note("interrupted (Ctrl+C)")
        printer.emit(finished or TurnFinished(session=session.session_id, reason="cancelled"))
        printer.finish()
        args.interrupted_said = True
        raise
    except BrokenPipeError:
        raise  # the reader of stdout went away: the command ends quietly (141)
    except OSError as exc:
        # a PAICLI_HOME it cannot write (read-only, another user's, a full disk): the ledger
        # write failed; one error line, not a traceback
        history = settings.home.history_raw_dir
        where = str(getattr(exc, "filename", "") or "")
        problem = (f"cannot write this session's history under {history}: {exc}"
                   if where.startswith(str(settings.home.home)) else str(exc))
        printer.emit(AgentError(message=problem, recoverable=False))
        printer.finish()
        unwritable = True
        return EXIT_ERROR
    finally:
        try:
            await session.aclose()
        except OSError:
            if not unwritable:
                raise
    if finished is None or finished.reason != "done":
        return EXIT_ERROR
    return EXIT_CONFLICT if printer.conflict else EXIT_OK
