"""The ReAct loop of one user turn, as an async generator of typed events.

A turn reads as its steps: :func:`run_turn` opens it, then :func:`_requests` sends one model
request after another. Each request (:func:`_request`) is: compact the history
(``ContextManager.prepare``; a request that cannot fit the window is never sent), stream the
reply, record it (tool-call ids made unique, arguments in a sendable form), and run its tool
calls (:mod:`.tool_calls`, every result through the pipeline in ``core/context``). The turn
ends when the model answers without tool calls, on an error, or when cancelled; at the
request cap one last request without tools asks for a best-effort answer.

Invariants, whatever happens: no half-streamed assistant message enters the history, and
every tool call in the history has its result (a cancelled turn answers dangling calls with a
"cancelled" result), so the next request is always valid.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from ...resources import load_prompt
from ..context.pairing import call_ids, with_sendable_arguments, with_unique_call_ids
from ..contracts.events import (
    AgentError,
    AgentEvent,
    AssistantMessage,
    ContextCompacting,
    FilesAttached,
    MemorySelected,
    ReasoningDelta,
    ReplyFiltered,
    RequestRetrying,
    RequestStarted,
    StreamLinesSkipped,
    TextCallUnread,
    TextDelta,
    ToolCallsFromText,
    TurnFinished,
    TurnStarted,
    Usage,
)
from ..contracts.llm import (
    CONTENT_FILTER_REASONS,
    ChatClient,
    ContextLengthExceeded,
    LLMError,
    StreamDelta,
    StreamDone,
    StreamRetry,
)
from ..contracts.services import MemoryChoice
from ..llm.redact import redact, redact_known
from ..llm.registry import how_to_configure
from ..llm.reply_redact import redact_reply, redacted_stream
from ..llm.think_tags import ThinkStream, split_think
from ..messages import InternalKind, Message, Role
from ..tokens import estimate_request
from .mentions import Attachments, attach_mentions
from .output_limit import at_output_limit, output_limit_prompt
from .prompt import turn_context_block, user_turn
from .shell_notes import CARRIED
from .text_call_rules import (
    ASKED_EVERY_TIME,
    calls_written_as_text,
    hold_to_rules,
    offered_names,
    tools_in_prompt,
    unread_text_call,
)
from .tool_calls import PARALLEL_SAFE, RunawayGuard, _batches, run_calls

if TYPE_CHECKING:
    from .session import AgentSession

__all__ = ["PARALLEL_SAFE", "RunawayGuard", "_batches", "run_turn"]

log = logging.getLogger(__name__)

Reason = Literal["done", "cancelled", "max_iterations", "runaway", "error"]

MAX_CALLS_PER_REPLY = 64
"""Tool calls one reply may have run; the rest are dropped from it, and the model and the
person are told. A model stuck in a loop can ask for thousands at once (one reply of 80,000
``list_dir`` calls fits the reply cap), each of which used to run and add its result."""


@dataclass
class _Turn:
    """What one turn carries from request to request."""

    session: AgentSession
    client: ChatClient
    user_input: str
    guard: RunawayGuard = field(default_factory=RunawayGuard)
    requests: int = 0
    """Model requests counted against the cap (a retry after a refusal is not counted)."""
    refused: bool = False
    """The provider refused a request as too long once; the next one is compacted harder."""
    reason: Reason = "done"
    final_text: str = ""
    dropped: tuple[int, int] | None = None
    """(calls asked, calls kept) when the last reply asked for too many at once."""
    cut_calls: tuple[str, ...] = ()
    """Names of the last reply's calls whose arguments the output limit cut off."""
    unread_call: str = ""
    """Why the last reply's ``<tool_call>`` tags could not be run ("" when it had none)."""
    asked_again: bool = False
    """The model was already asked once this turn to write an unreadable call again."""

    @property
    def at_cap(self) -> bool:
        cap = self.session.settings.max_iterations
        return cap > 0 and self.requests >= cap


@dataclass
class _Reply:
    """How one request ended: an assistant message, a retry, or the end of the turn."""

    message: Message | None = None
    retry: bool = False


async def _turn_message(session: AgentSession, user_input: str,
                        attachments: Attachments | None = None
                        ) -> tuple[Message, MemorySelected | None]:
    """The turn's user message with its memories, the files it attached and the output of
    the person's ``!commands`` since their last message, and the event saying how the
    light model chose the memories (None when none was asked)."""
    memories, selected = "", None
    shell, session.pending_shell[:] = list(session.pending_shell), []
    if shell:  # a resumed session must not offer them again
        session.ledger.event(CARRIED, commands=len(shell))
    notes, session.pending_notes[:] = list(session.pending_notes), []
    if session.memory is not None:
        try:
            complete = session.memory_selector()
            if complete is not None:
                choice = await session.memory.selected_block(
                    user_input, session.profile.memory_budget, complete)
                memories, selected = choice.block, _selection_event(choice)
            else:
                # In a thread: retrieval may embed the query, and the TUI shares this loop.
                memories = await asyncio.to_thread(session.memory.injection_block,
                                                   user_input, session.profile.memory_budget)
        except asyncio.CancelledError:
            # Cancelled while memories were recalled (seconds on a first run): the person saw
            # the message sent, so it stays in the history like any cancelled turn's.
            session.append(user_turn(user_input,
                                     turn_context_block(datetime.now().astimezone(), ""),
                                     attachments, shell, notes))
            raise
        except Exception:  # retrieval trouble must not block the turn
            log.exception("memory retrieval failed")
    return (user_turn(user_input, turn_context_block(datetime.now().astimezone(), memories),
                      attachments, shell, notes), selected)


async def _attachments(session: AgentSession, user_input: str) -> Attachments | None:
    """The files the message names with ``@``, read in a thread (None when it names
    none). Recorded in the ledger by path only."""
    if "@" not in user_input:
        return None
    found = await asyncio.to_thread(
        attach_mentions, user_input, session.project.root,
        lambda text: redact_known(text, session.settings.secrets()),
        budget_chars=session.profile.clearing_trigger)
    if not found.files and not found.refused:
        return None
    session.ledger.event("files_attached", files=[f.label for f in found.files],
                         refused=[typed for typed, _ in found.refused])
    return found


def _selection_event(choice: MemoryChoice) -> MemorySelected | None:
    """The event of a selection the light model was asked for (None when it was not)."""
    if not choice.asked:
        return None
    return MemorySelected(candidates=choice.candidates, chosen=tuple(choice.chosen),
                          by="offline" if choice.fallback else "light_model",
                          fallback=choice.fallback)


@contextlib.asynccontextmanager
async def _closing(stream: AsyncIterator[object]) -> AsyncIterator[AsyncIterator[object]]:
    """Close a client's stream when the request ends early (cancel, error), if it can be."""
    try:
        yield stream
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()


async def run_turn(session: AgentSession, user_input: str) -> AsyncIterator[AgentEvent]:
    """The events of one turn (see the module docstring for the invariants). Background
    notices are not among them: the faces take those after the turn (``take_notices``)."""
    yield TurnStarted(session=session.session_id, user_input=user_input)
    if session.client is None:
        yield AgentError(message=how_to_configure(session.settings), recoverable=True)
        yield TurnFinished(session=session.session_id, reason="error")
        return
    turn = _Turn(session, session.client, user_input)
    session.turns += 1
    if not session.is_subagent:  # a sub-agent's changes are its parent's turn's (/undo)
        session.state.turn_id, session.state.turn_number = uuid.uuid4().hex, session.turns
    session.state.current_user_input = user_input
    finished = False
    try:
        attachments = await _attachments(session, user_input)
        if attachments is not None:
            yield FilesAttached(
                files=tuple((f.label, f.shown_lines, f.lines) for f in attachments.files),
                refused=tuple(attachments.refused),
                cut=tuple((f.label, *f.cut_line) for f in attachments.files if f.cut_line))
        message, selected = await _turn_message(session, user_input, attachments)
        session.append(message)
        if selected is not None:  # ids and reasons only: the texts are in the message
            session.ledger.event("memory_selection", candidates=selected.candidates,
                                 chosen=list(selected.chosen), by=selected.by,
                                 fallback=selected.fallback)
            yield selected
        async for event in _requests(turn):
            yield event
        finished = True
    finally:
        if not finished:
            # Cancelled (task cancel or aclose) mid-turn: answer dangling calls so the
            # history stays valid; no events can be sent from here.
            turn.reason = "cancelled"
            session.repair("cancelled")
            session.ledger.event("turn_cancelled", turn=_turn_id(session))
    # No checkpoint here: every append, repair and compaction already wrote one.
    if turn.reason == "done":
        # Started before the last event: a consumer may stop iterating right after it.
        session.extract_facts_later(user_input)
    yield TurnFinished(session=session.session_id, reason=turn.reason,
                       final_text=turn.final_text)


async def _requests(turn: _Turn) -> AsyncIterator[AgentEvent]:
    """Model requests until one is answered without tool calls, an error ends the turn, or
    the request cap is reached (then :func:`_wrap_up`)."""
    while not turn.at_cap:
        # an MCP server that failed or was restarted since: said before the request that
        # offers the tools as they now are
        for change in turn.session.take_mcp_changes():
            yield change
        reply = _Reply()
        async for event in _request(turn, reply, turn.session.tool_schemas()):
            yield event
        if reply.retry:
            continue
        if reply.message is None:
            return
        if not reply.message.tool_calls:
            if turn.unread_call and not turn.asked_again:  # once a turn: then it stands
                turn.asked_again = True
                turn.session.append(Message.user(load_prompt("unread_text_call").strip().format(
                    why=turn.unread_call, tools=", ".join(sorted(offered_names(
                        turn.session.tool_schemas())))), internal=InternalKind.NOTICE))
                continue
            turn.final_text = reply.message.content
            return
        async for event in run_calls(turn.session, reply.message.tool_calls, turn.guard):
            yield event
        if turn.dropped is not None:  # after the results: the pairing holds
            asked, kept = turn.dropped
            turn.session.append(Message.user(
                load_prompt("dropped_calls").strip().format(asked=asked, kept=kept,
                                                            dropped=asked - kept),
                internal=InternalKind.NOTICE))
            turn.dropped = None
        if turn.cut_calls:  # after the results: the pairing holds
            turn.session.append(Message.user(output_limit_prompt(turn.cut_calls),
                                             internal=InternalKind.NOTICE))
            turn.cut_calls = ()
        if turn.guard.stuck:  # the notice did not stop it: the tools are taken away
            break
    async for event in _wrap_up(turn):
        yield event


async def _wrap_up(turn: _Turn) -> AsyncIterator[AgentEvent]:
    """The request cap is reached, or the model repeats one call whatever it is told: one
    last request without tools asks for a best-effort answer from what was found, so the
    turn never ends empty-handed."""
    session, cap = turn.session, turn.session.settings.max_iterations
    if turn.guard.stuck:
        tool, times = turn.guard.repeated
        turn.reason = "runaway"
        session.ledger.event("runaway_stop", tool=tool, repeats=times)
        said = (f"The model called {tool} with the same arguments {times} times in a row, "
                "past the notice that repeating it would not help")
        wrap_up = load_prompt("runaway_wrapup").strip().format(tool=tool, count=times)
    else:
        turn.reason = "max_iterations"
        session.ledger.event("request_cap", requests=cap)
        said = f"Reached {cap} model requests in this turn (max_iterations)"
        wrap_up = load_prompt("budget_wrapup").strip().format(requests=cap)
    yield AgentError(message=f"{said}: asking for a final answer without tools. Say "
                             "'continue' to go on.")
    session.append(Message.user(wrap_up, internal=InternalKind.NOTICE))
    reply = _Reply()
    async for event in _request(turn, reply, ()):
        yield event
    if reply.retry:  # refused as too long: compacted harder, asked once more
        reply = _Reply()
        async for event in _request(turn, reply, ()):
            yield event
    if reply.message is not None:
        turn.final_text = reply.message.content
        if reply.message.tool_calls:  # a model that calls tools anyway: answered, not run
            session.repair("request_cap")


async def _request(turn: _Turn, reply: _Reply, schemas: Sequence[dict]
                   ) -> AsyncIterator[AgentEvent]:
    """One model request: compact, send, stream, record. Sets ``reply.message`` (the
    recorded assistant message), or ``reply.retry`` (refused as too long: compacted harder
    and sent again; a second refusal in a row ends the turn); leaves both unset when the turn must end."""
    session = turn.session
    forced, turn.refused = turn.refused, False
    if session.manager.compacts_next(session.history, schemas, force=forced):
        # said before the work: a summary can take a while (and may ask the person first)
        yield ContextCompacting(tokens=session.manager.estimate(session.history, schemas),
                                compaction_trigger=session.profile.compaction_trigger,
                                forced=forced)
    prepared = await session.manager.prepare(session.history, schemas, force=forced)
    for event in session.apply_prepared(prepared):
        yield event
    if prepared.overflow is not None:
        # Never send a request above the window: say why and what to do instead.
        turn.reason = "error"
        session.ledger.event("request_refused", detail=prepared.overflow,
                             estimated=prepared.estimated_tokens)
        yield AgentError(message=prepared.overflow, recoverable=True)
        return
    if not forced:
        turn.requests += 1
    raw_estimate = estimate_request(session.history, schemas)
    profile = session.profile
    yield RequestStarted(iteration=turn.requests, estimated_tokens=prepared.estimated_tokens,
                         window=profile.window, clearing_trigger=profile.clearing_trigger,
                         compaction_trigger=profile.compaction_trigger)
    done: StreamDone | None = None
    skipped = 0  # unreadable stream lines the client dropped from this reply
    think = ThinkStream()  # a reply opening with <think>: its thinking streams as reasoning
    try:
        # aclosing: a cancelled turn releases the HTTP stream at once, not at GC.
        async with _closing(turn.client.stream(session.history, schemas)) as parts:
            async for part in redacted_stream(parts, session.settings.secrets()):
                if isinstance(part, StreamDelta):
                    if part.reasoning:
                        yield ReasoningDelta(text=part.reasoning)
                    if part.text:
                        for event in _sorted_deltas(*think.feed(part.text)):
                            yield event
                elif isinstance(part, StreamDone):
                    for event in _sorted_deltas(*think.flush()):
                        yield event
                    done = _thinking_apart(part)
                    skipped = part.skipped_lines
                elif isinstance(part, StreamRetry):
                    session.ledger.event("request_retrying", attempt=part.attempt,
                                         reason=redact(part.reason,
                                                       *session.settings.secrets()))
                    yield RequestRetrying(part.reason, part.attempt, part.max_retries,
                                          part.delay_s)
    except ContextLengthExceeded as exc:
        if forced:
            turn.reason = "error"
            yield _request_failed(session, f"{exc} (still too long after compacting)")
            return
        turn.refused, reply.retry = True, True
        session.ledger.event("context_length_exceeded", detail=str(exc))
        return
    except LLMError as exc:
        turn.reason = "error"
        yield _request_failed(session, str(exc))
        return
    except Exception as exc:  # a client bug: end the turn cleanly, history intact
        # Logged without the traceback: its text could quote a request header.
        text = redact(f"{turn.client.provider}: unexpected failure "
                      f"({type(exc).__name__}: {exc})", *session.settings.secrets())
        log.error("%s", text)
        turn.reason = "error"
        yield _request_failed(session, text)
        return
    if done is None:
        turn.reason = "error"
        yield _request_failed(session, f"{turn.client.provider} ended without a reply",
                              recoverable=False)
        return
    for event in _record_usage(session, done, raw_estimate, prepared.estimated_tokens):
        yield event
    in_prompt = tools_in_prompt(turn.client)
    from_text, whys = calls_written_as_text(done, schemas, session, in_prompt)
    if from_text is not None:
        written = Message.assistant(from_text.words, from_text.calls,
                                    reasoning=done.message.reasoning)
        if any(whys):  # kept with the reply: a resumed session holds the calls to it again
            written = written.evolve(meta={ASKED_EVERY_TIME: list(whys)})
        done = StreamDone(message=written,
                          finish_reason="tool_calls", usage=done.usage,
                          tool_calls=from_text.calls)
    asked = len(done.message.tool_calls)
    reply.message = _record_reply(session, done.message)
    hold_to_rules(session.state, reply.message.tool_calls, whys)
    yield AssistantMessage(content=reply.message.content, reasoning=reply.message.reasoning,
                           tool_call_ids=tuple(c.id for c in reply.message.tool_calls))
    if from_text is not None:
        names = tuple(c.name for c in reply.message.tool_calls)
        session.ledger.event("tool_calls_from_text", form=from_text.form, names=list(names),
                             asked=in_prompt)
        yield ToolCallsFromText(form=from_text.form, names=names, asked=in_prompt)
    turn.unread_call = "" if from_text is not None else unread_text_call(done, schemas) or ""
    if turn.unread_call:
        session.ledger.event("tool_call_text_unread", why=turn.unread_call,
                             asked_again=not turn.asked_again)
        yield TextCallUnread(why=turn.unread_call, asked_again=not turn.asked_again)
    if skipped:
        provider = turn.client.provider
        session.ledger.event("stream_lines_skipped", provider=provider, count=skipped)
        yield StreamLinesSkipped(provider=provider, count=skipped)
    if done.finish_reason in CONTENT_FILTER_REASONS:
        session.ledger.event("reply_filtered", provider=turn.client.provider,
                             finish_reason=done.finish_reason)
        yield ReplyFiltered(provider=turn.client.provider, finish_reason=done.finish_reason)
    if done.finish_reason == "length" and not done.cut_by_client:
        limit = at_output_limit(turn.client.provider, reply.message.tool_calls)
        turn.cut_calls = limit.cut_calls
        session.ledger.event("reply_at_output_limit", provider=limit.provider,
                             cut_calls=list(limit.cut_calls), other_calls=limit.other_calls)
        yield limit
    if asked > MAX_CALLS_PER_REPLY:
        turn.dropped = (asked, MAX_CALLS_PER_REPLY)
        session.ledger.event("tool_calls_dropped", asked=asked, kept=MAX_CALLS_PER_REPLY)
        yield AgentError(message=f"The model asked for {asked:,} tool calls in one reply: the "
                                 f"first {MAX_CALLS_PER_REPLY} run, the other "
                                 f"{asked - MAX_CALLS_PER_REPLY:,} were dropped (it is told "
                                 "so).")


def _request_failed(session: AgentSession, text: str, *,
                    recoverable: bool = True) -> AgentError:
    """The error that ends a turn the provider ended, written to the session file as a
    ``request_failed`` event too: read later, the turn shows why it has no answer."""
    session.ledger.event("request_failed", detail=redact(text, *session.settings.secrets()),
                         turn=_turn_id(session))
    return AgentError(message=text, recoverable=recoverable)


def _turn_id(session: AgentSession) -> str | None:
    """The id of the person's message this turn answers (the newest of theirs; compaction
    always keeps it): a resumed session shows why that message got no reply."""
    return next((m.id for m in reversed(session.history)
                 if m.role is Role.USER and m.internal is None), None)


def _record_usage(session: AgentSession, done: StreamDone, raw_estimate: int,
                  estimated: int) -> list[AgentEvent]:
    """Calibrate the estimate against the provider's count and report the usage."""
    usage = done.usage
    if usage is None:
        return []
    session.calibrator.observe(raw_estimate, usage.prompt_tokens)
    session.ledger.event("usage", prompt_tokens=usage.prompt_tokens,
                         completion_tokens=usage.completion_tokens,
                         cached_tokens=usage.cached_tokens, estimated=estimated)
    return [Usage(prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
                  cached_tokens=usage.cached_tokens, estimated_prompt_tokens=estimated)]


def _sorted_deltas(thought: str, text: str) -> list[AgentEvent]:
    return ([ReasoningDelta(text=thought)] if thought else []) + \
        ([TextDelta(text=text)] if text else [])


def _thinking_apart(done: StreamDone) -> StreamDone:
    """The reply with thinking written in ``<think>`` tags moved to its reasoning."""
    content, reasoning = split_think(done.message.content, done.message.reasoning)
    if content == done.message.content or not content.strip() and not done.tool_calls:
        # nothing but thinking: kept as written, since a reply with no text and no call
        # would go back as an empty assistant message, which some servers refuse
        return done
    return replace(done, message=done.message.evolve(content=content, reasoning=reasoning))


def _record_reply(session: AgentSession, assistant: Message) -> Message:
    """The reply as it enters the history: at most MAX_CALLS_PER_REPLY tool calls, every
    tool-call id unique in the conversation (two calls with one id would leave one result
    unseen), and arguments in a form every provider accepts back. Tools run with the
    arguments as the model wrote them (a malformed one gets a clear error), a configured key
    in them masked like one in its text: the history, the ledger, the events and the tools
    all get the masked reply."""
    assistant = redact_reply(assistant, session.settings.secrets())
    if len(assistant.tool_calls) > MAX_CALLS_PER_REPLY:
        assistant = assistant.evolve(tool_calls=assistant.tool_calls[:MAX_CALLS_PER_REPLY])
    unique = with_unique_call_ids(assistant, call_ids(session.history))
    session.append(with_sendable_arguments(unique))
    return unique
