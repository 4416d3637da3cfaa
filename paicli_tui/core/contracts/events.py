"""Typed events the agent loop yields; the UI and headless runner only consume these.

Every event has a ``type`` string used in ``paicli-tui exec --json`` output.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar, Literal

from ..plural import counted

ToolStatus = Literal["running", "done", "denied", "failed"]


@dataclass(frozen=True)
class AgentEvent:
    type: ClassVar[str] = "event"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, **asdict(self)}


@dataclass(frozen=True)
class TurnStarted(AgentEvent):
    type: ClassVar[str] = "turn_started"
    session: str
    user_input: str


@dataclass(frozen=True)
class RequestStarted(AgentEvent):
    """A model request is about to be sent (after compaction)."""

    type: ClassVar[str] = "request_started"
    iteration: int
    estimated_tokens: int
    window: int
    clearing_trigger: int
    compaction_trigger: int


@dataclass(frozen=True)
class RequestRetrying(AgentEvent):
    """The model request failed before any reply (HTTP 5xx/429, timeout, no connection)
    and is sent again after ``delay_s`` seconds."""

    type: ClassVar[str] = "request_retrying"
    reason: str
    attempt: int
    """1 for the first retry."""
    max_retries: int
    delay_s: float


@dataclass(frozen=True)
class TextDelta(AgentEvent):
    type: ClassVar[str] = "text_delta"
    text: str


@dataclass(frozen=True)
class ReasoningDelta(AgentEvent):
    type: ClassVar[str] = "reasoning_delta"
    text: str


@dataclass(frozen=True)
class AssistantMessage(AgentEvent):
    """The complete assistant message once its stream ended."""

    type: ClassVar[str] = "assistant_message"
    content: str
    reasoning: str | None = None
    tool_call_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolCallStarted(AgentEvent):
    type: ClassVar[str] = "tool_call_started"
    call_id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ToolCallFinished(AgentEvent):
    type: ClassVar[str] = "tool_call_finished"
    call_id: str
    name: str
    status: ToolStatus
    preview: str
    """The first lines of what entered the history (after the boundary wrapper)."""
    chars: int = 0
    offload_path: str | None = None
    permission: str = ""
    """How a call needing approval went ahead without asking: ``always`` (an earlier
    "Always"), ``auto`` (--yes), ``accept-edits`` (a file write in the accept-edits mode),
    ``read-only`` (a read-only command); empty otherwise."""


@dataclass(frozen=True)
class ContextCompacted(AgentEvent):
    """A compaction tier changed the history (``outcome`` compacted), or tried and failed
    (then the event is a :class:`CompactionFailed`)."""

    type: ClassVar[str] = "context_compacted"
    tier: str
    """``offload``, ``clearing``, ``summary`` or ``digest`` (the model-free fallback)."""
    tokens_before: int
    tokens_after: int
    detail: str = ""
    summary: str | None = None
    outcome: str = "compacted"
    model_calls: int = 0
    path: str | None = None
    """A file the tier wrote (the digest's transcript)."""


@dataclass(frozen=True)
class CompactionFailed(ContextCompacted):
    """A tier tried and could not compact (a summary the model did not write, an error, a
    timeout, the circuit breaker opening); ``detail`` says why."""

    type: ClassVar[str] = "context_compaction_failed"
    outcome: str = "failed"


@dataclass(frozen=True)
class ContextCompacting(AgentEvent):
    """The compaction tiers run before the next request (a summary can take a while): the
    request is at the compaction trigger, or the provider refused it as too long."""

    type: ClassVar[str] = "context_compacting"
    tokens: int
    compaction_trigger: int
    forced: bool = False


@dataclass(frozen=True)
class SummaryAhead(AgentEvent):
    """Said once per approach to the trigger: one of the next requests will summarise."""

    type: ClassVar[str] = "context_summary_ahead"
    tokens: int
    compaction_trigger: int
    hard_limit: int
    detail: str


@dataclass(frozen=True)
class SummaryConsentDecided(AgentEvent):
    """How an automatic summary was consented to (setting ``ask_before_summary``):
    ``answer`` is ``now`` or ``not_yet`` (the person's), ``not_asked`` (nobody can answer:
    headless, a sub-agent), ``hard_limit`` ("not yet" ran out) or ``forced`` (the provider
    refused the request as too long)."""

    type: ClassVar[str] = "context_summary_consent"
    answer: str
    tokens: int
    compaction_trigger: int
    hard_limit: int
    detail: str


def context_note_event(note: Any) -> SummaryAhead | SummaryConsentDecided:
    """The event for a context note (a ``core.context.consent.ContextNote``)."""
    if note.kind == "summary_ahead":
        return SummaryAhead(tokens=note.tokens, compaction_trigger=note.compaction_trigger,
                            hard_limit=note.hard_limit, detail=note.detail)
    return SummaryConsentDecided(answer=note.answer or "", tokens=note.tokens,
                                 compaction_trigger=note.compaction_trigger,
                                 hard_limit=note.hard_limit, detail=note.detail)


@dataclass(frozen=True)
class Usage(AgentEvent):
    type: ClassVar[str] = "usage"
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0
    estimated_prompt_tokens: int = 0


@dataclass(frozen=True)
class MemoryNotice(AgentEvent):
    """A memory was saved, refused, or extracted in the background."""

    type: ClassVar[str] = "memory"
    action: str
    detail: str
    ids: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class MemorySelected(AgentEvent):
    """The light model was asked which memories a turn needs (``memory_selection``):
    ``chosen`` the ids shown (texts never ride here), ``by`` who chose them, ``fallback``
    why the offline choice was kept (``timeout``, ``unusable answer``, ``error``; '' when
    the model chose)."""

    type: ClassVar[str] = "memory_selection"
    candidates: int
    chosen: tuple[str, ...] = field(default_factory=tuple)
    by: Literal["light_model", "offline"] = "light_model"
    fallback: str = ""


@dataclass(frozen=True)
class ToolCallsFromText(AgentEvent):
    """The model wrote its tool calls as text (``form``: ``<tool_call> tags``, ``a JSON
    block`` …) instead of through the function-calling interface; they were read from the
    reply and run as calls. The reply's text as recorded is what was left around them."""

    type: ClassVar[str] = "tool_calls_from_text"
    form: str
    names: tuple[str, ...] = field(default_factory=tuple)
    asked: bool = False
    """The tools were described in the prompt (``tool_protocol``), so text is the form the
    model was asked for: nothing to warn about."""


def text_calls_notice(event: ToolCallsFromText) -> str:
    """What the person is told, in the TUI and by ``exec``."""
    count = len(event.names)
    calls = "a tool call" if count == 1 else f"{count} tool calls"
    return (f"The model wrote {calls} as text ({event.form}) instead of using the tool "
            f"interface; read and run as {'a call' if count == 1 else 'calls'}: "
            f"{', '.join(dict.fromkeys(event.names))}. Writes and commands asked for this "
            "way need your approval each time; for a model that cannot call tools, set "
            "tool_protocol = \"prompt\".")


@dataclass(frozen=True)
class ReplyFiltered(AgentEvent):
    """The provider's content filter stopped the reply (finish reason ``content_filter``,
    GLM's ``sensitive``): what arrived is kept, and may stop mid-sentence."""

    type: ClassVar[str] = "reply_filtered"
    provider: str
    finish_reason: str


def filtered_notice(event: ReplyFiltered) -> str:
    """What the person is told, in the TUI and by ``exec``."""
    return (f"{event.provider} stopped the reply with finish reason {event.finish_reason!r} "
            "(its content filter), so it may be incomplete; rewording the request, or the "
            "file it quotes, may get past it.")


@dataclass(frozen=True)
class TextCallUnread(AgentEvent):
    """The reply held ``<tool_call>`` tags that could not be run (``why``: no such tool,
    not JSON); nothing ran. The model is told and asked once more in the turn
    (``asked_again``); a second such reply stands as the answer."""

    type: ClassVar[str] = "tool_call_text_unread"
    why: str
    asked_again: bool = True


def text_call_unread_notice(event: TextCallUnread) -> str:
    """What the person is told, in the TUI and by ``exec``."""
    said = f"The model wrote a tool call as text that could not be run ({event.why}); nothing ran"
    if event.asked_again:
        return f"{said}, and the model is told so and asked again."
    return f"{said} again; its reply stands as the answer."


@dataclass(frozen=True)
class StreamLinesSkipped(AgentEvent):
    """The provider's stream for this reply held lines that could not be read (garbled
    JSON); they were dropped and the reply kept what did arrive. One per reply, after it."""

    type: ClassVar[str] = "stream_lines_skipped"
    provider: str
    count: int


def skipped_lines_notice(event: StreamLinesSkipped) -> str:
    """What the person is told, in the TUI and by ``exec``."""
    lines = "1 line" if event.count == 1 else f"{event.count:,} lines"
    return (f"{event.provider} sent {lines} of this reply's stream that could not be read; "
            f"skipped, so the reply may be missing words or a tool call.")


@dataclass(frozen=True)
class ReplyAtOutputLimit(AgentEvent):
    """The provider ended the reply at the model's output limit (finish reason ``length``):
    its text may stop mid-sentence, and ``cut_calls`` names the tool calls whose arguments
    were cut off (they do not run; the model is told to write less in one reply)."""

    type: ClassVar[str] = "reply_at_output_limit"
    provider: str
    cut_calls: tuple[str, ...] = ()
    other_calls: int = 0
    """Calls of the reply that arrived whole (they run as usual)."""


def output_limit_notice(event: ReplyAtOutputLimit) -> str:
    """What the person is told, in the TUI and by ``exec``."""
    text = f"The reply stopped at {event.provider}'s output limit (finish reason \"length\")"
    if event.cut_calls:
        names = ", ".join(dict.fromkeys(event.cut_calls))
        calls = "call" if len(event.cut_calls) == 1 else "calls"
        return (f"{text}: the {calls} to {names} {'was' if calls == 'call' else 'were'} cut "
                f"off in the arguments and did not run; the model is told to write less "
                "in one reply.")
    if event.other_calls:
        return f"{text}; its tool calls arrived whole and run."
    return f"{text}, so it may end mid-sentence. Say 'continue' to have the model go on."


@dataclass(frozen=True)
class FilesAttached(AgentEvent):
    """The person's message named files with ``@``: ``files`` were attached to it (path,
    lines attached, lines in the file), ``refused`` were named but not attached (the word
    as typed, why), ``cut`` attached files whose last attached line was cut in the middle
    (path, characters attached, characters of that line)."""

    type: ClassVar[str] = "files_attached"
    files: tuple[tuple[str, int, int], ...] = field(default_factory=tuple)
    refused: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    cut: tuple[tuple[str, int, int], ...] = field(default_factory=tuple)


def attached_notice(event: FilesAttached) -> str:
    """What the person is told, in the TUI and by ``exec``."""
    parts = []
    cut = {path: (chars, line_chars) for path, chars, line_chars in event.cut}
    for path, shown, total in event.files:
        if path.endswith("/"):
            parts.append(f"{path} (its listing)")
            continue
        lines = counted(total, "line")
        said = lines if shown >= total else f"first {shown:,} of {lines}"
        if path in cut:  # a minified file's one line: all lines attached, not all of it
            chars, line_chars = cut[path]
            said += f"; line {shown:,} cut after {chars:,} of its {line_chars:,} characters"
        parts.append(f"{path} ({said})")
    text = f"Attached {', '.join(parts)}." if parts else ""
    if event.refused:
        left = "; ".join(f"@{typed}: {why}" for typed, why in event.refused)
        text = f"{text} Not attached: {left}.".strip()
    return text


@dataclass(frozen=True)
class TurnFinished(AgentEvent):
    type: ClassVar[str] = "turn_finished"
    session: str
    reason: Literal["done", "cancelled", "max_iterations", "runaway", "error"]
    final_text: str = ""


@dataclass(frozen=True)
class AgentError(AgentEvent):
    type: ClassVar[str] = "error"
    message: str
    recoverable: bool = True


@dataclass(frozen=True)
class McpServerChanged(AgentEvent):
    """An MCP server changed state without a turn asking: it did not start, its process
    ended mid-session, or the person restarted it (``cause`` says which)."""

    type: ClassVar[str] = "mcp_server"
    server: str
    state: Literal["running", "failed"]
    cause: Literal["start", "exited", "restart"]
    detail: str = ""
    """Why it failed (its stderr's last line, masked), or '' when it runs."""
    tools: int = 0
    """The tools it offers now (running)."""


def compaction_event(report: Any) -> ContextCompacted:
    """The event for a notable compaction report (a ``CompactionReport``): a
    :class:`CompactionFailed` when the tier tried and failed."""
    kind = ContextCompacted if report.changed else CompactionFailed
    return kind(tier=report.tier, tokens_before=report.tokens_before,
                tokens_after=report.tokens_after, detail=report.detail, summary=report.summary,
                outcome=report.result, model_calls=report.model_calls, path=report.path)


# -- plan mode (each event names its task and the sub-agent stream that ran it) ---------------
@dataclass(frozen=True)
class PlanProposed(AgentEvent):
    type: ClassVar[str] = "plan_proposed"
    goal: str
    tasks: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class PlanRevised(AgentEvent):
    """The person asked for a changed plan during the review. ``revised``: the model's new
    plan follows (a PlanProposed); ``refused``: it could not be used (``detail`` says why)
    and the plan before is offered again. ``feedback_chars``: how long the person's words
    were (the words themselves are not repeated)."""

    type: ClassVar[str] = "plan_revised"
    status: str
    revision: int
    """Which revision this was (1 for the first)."""
    allowed: int
    """How many revisions a review allows."""
    feedback_chars: int
    detail: str = ""


@dataclass(frozen=True)
class PlanTaskStarted(AgentEvent):
    type: ClassVar[str] = "plan_task_started"
    task_id: str
    title: str
    subagent: str
    """The sub-agent's ledger stream (``<parent>.sub-N``)."""
    parent: str
    attempt: int = 1


@dataclass(frozen=True)
class PlanTaskFinished(AgentEvent):
    type: ClassVar[str] = "plan_task_finished"
    task_id: str
    status: str
    """``done``, ``failed`` (will be retried or decided), ``skipped``."""
    preview: str
    subagent: str
    parent: str
    attempt: int = 1


@dataclass(frozen=True)
class PlanFinished(AgentEvent):
    type: ClassVar[str] = "plan_finished"
    status: str
    """``done``, ``stopped`` (a task failed and the run stopped), ``rejected``, ``invalid``."""
    done: int
    total: int
    detail: str = ""


# -- sub-agents (a run_subagent call or a plan task): its steps, named by its stream -----------
@dataclass(frozen=True)
class SubAgentStarted(AgentEvent):
    type: ClassVar[str] = "subagent_started"
    subagent: str
    """The sub-agent's ledger stream (``<parent>.sub-N``): its id."""
    parent: str
    label: str
    call_id: str = ""
    """The parent's ``run_subagent`` call it answers ("" for a plan task)."""
    task_id: str = ""
    """The plan task it runs ("" for a ``run_subagent`` call)."""


@dataclass(frozen=True)
class SubAgentStep(AgentEvent):
    """One event of the sub-agent's own turn, as it happens: a tool call starting or
    finishing, a model request, its usage, a compaction of its history, an error."""

    type: ClassVar[str] = "subagent_step"
    subagent: str
    parent: str
    event: AgentEvent

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "subagent": self.subagent, "parent": self.parent,
                "event": self.event.to_json()}


@dataclass(frozen=True)
class SubAgentFinished(AgentEvent):
    type: ClassVar[str] = "subagent_finished"
    subagent: str
    parent: str
    status: str
    """``done``, ``failed`` or ``cancelled``."""
    requests: int = 0
    tool_calls: int = 0
    history_tokens: int = 0
    """The estimate of its history at the end (its own context, never the parent's)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    compactions: int = 0
    elapsed_s: float = 0.0


@dataclass(frozen=True)
class PlanInterrupted(AgentEvent):
    """A resumed session's last plan never finished: it can be continued
    (``exec --resume ID --plan-continue``; the TUI asks)."""

    type: ClassVar[str] = "plan_interrupted"
    goal: str
    done: tuple[str, ...]
    remaining: tuple[str, ...]


@dataclass(frozen=True)
class PlanContinued(AgentEvent):
    """An interrupted plan goes on: ``done`` are not run again (their results are the
    inputs of the tasks that depend on them), ``remaining`` run now."""

    type: ClassVar[str] = "plan_continued"
    goal: str
    tasks: tuple[dict[str, Any], ...]
    done: tuple[str, ...]
    remaining: tuple[str, ...]
