"""The ReAct loop of one user turn, as an async generator of typed events.

Per iteration: compaction check (``ContextManager.prepare``) → one streamed model request →
the assistant message → its tool calls, one by one, each result offloaded if huge, wrapped in
the untrusted-data boundary and appended as a tool message. The turn ends when the model
answers without tool calls, on an error, at the iteration limit, or when cancelled.

Invariants, whatever happens: no half-streamed assistant message enters the history, and
every tool call in the history has its result (a cancelled turn answers dangling calls with a
"cancelled" result), so the next request is always valid.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from ..context.boundary import wrap_tool_result
from ..context.offload import offload_tool_result
from ..context.pairing import with_sendable_arguments
from ..contracts.events import (
    AgentError,
    AgentEvent,
    AssistantMessage,
    ContextCompacted,
    ReasoningDelta,
    RequestStarted,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
    Usage,
)
from ..contracts.llm import ContextLengthExceeded, LLMError, StreamDelta, StreamDone
from ..llm.redact import redact, redact_known
from ..llm.registry import how_to_configure
from ..messages import Message, ToolCall
from ..tokens import estimate_request, estimate_text
from .prompt import runaway_notice, turn_context_block, user_turn

if TYPE_CHECKING:
    from .session import AgentSession

log = logging.getLogger(__name__)

RUNAWAY_REPEATS = 3
PARALLEL_SAFE = frozenset({"read_file", "list_dir", "grep_code", "glob_files", "run_subagent"})
"""Tools that only read and share no state: several calls in one reply run concurrently."""
PREVIEW_LINES = 6
PREVIEW_CHARS = 600


def _preview(text: str) -> str:
    lines = text.splitlines()[:PREVIEW_LINES]
    return "\n".join(lines)[:PREVIEW_CHARS]


def _batches(calls: Sequence[ToolCall]) -> list[list[ToolCall]]:
    """Consecutive read-only calls form one batch that runs concurrently; any other call
    (writes, commands, memory, index searches) runs alone, in order."""
    batches: list[list[ToolCall]] = []
    for call in calls:
        if call.name in PARALLEL_SAFE and batches and batches[-1][0].name in PARALLEL_SAFE:
            batches[-1].append(call)
        else:
            batches.append([call])
    return batches


@contextlib.asynccontextmanager
async def _closing(stream: AsyncIterator[object]) -> AsyncIterator[AsyncIterator[object]]:
    """Close a client's stream when the request ends early (cancel, error), if it can be."""
    try:
        yield stream
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()


def _call_key(call: ToolCall) -> tuple[str, str]:
    """Identity of a call for the runaway guard: name + arguments in canonical JSON."""
    try:
        canonical = json.dumps(json.loads(call.arguments or "{}"), sort_keys=True)
    except json.JSONDecodeError:
        canonical = call.arguments.strip()
    return call.name, canonical


class RunawayGuard:
    """Counts identical consecutive calls; says when to send the notice."""

    def __init__(self, repeats: int = RUNAWAY_REPEATS) -> None:
        self.repeats = repeats
        self.last: tuple[str, str] | None = None
        self.count = 0

    def observe(self, call: ToolCall) -> bool:
        """True when this call makes ``repeats`` identical calls in a row (then restarts)."""
        key = _call_key(call)
        self.count = self.count + 1 if key == self.last else 1
        self.last = key
        if self.count >= self.repeats:
            self.count = 0
            return True
        return False


async def _turn_message(session: AgentSession, user_input: str) -> Message:
    memories = ""
    if session.memory is not None:
        try:
            # In a thread: retrieval may embed the query, and the TUI shares this event loop.
            memories = await asyncio.to_thread(session.memory.injection_block, user_input,
                                               session.profile.memory_budget)
        except Exception:  # retrieval trouble must not block the turn
            log.exception("memory retrieval failed")
    return user_turn(user_input, turn_context_block(datetime.now().astimezone(), memories))


async def _run_tool(session: AgentSession, call: ToolCall
                    ) -> tuple[Message, ContextCompacted | None, str]:
    """Run one call: the tool message for the history, an offload event if the result was
    too big, and the result text as the person should see it (unwrapped)."""
    arguments, output = await session.tools.run(call.name, call.arguments,
                                                session.tool_context)
    if output.external:
        session.state.external_content_used = True
    if session.memory is not None:
        try:
            session.memory.note_tool_result(call.name, arguments, output, session.state)
        except Exception:
            log.exception("memory.note_tool_result failed")
    # `env`, a .env file or a config dump can print the person's provider key: it must not
    # reach the history (and so the provider, the ledger, a saved output file).
    settings = session.settings
    content = redact_known(output.content, settings.secrets())
    offloaded = offload_tool_result(
        tool_name=call.name, content=content, arguments=arguments,
        project=session.project, session=session.state, settings=session.settings,
        is_command=call.name == "execute_command", bypass=output.bypass_offload)
    event = None
    if offloaded.truncated:
        where = (f" saved to {offloaded.offload_path}" if offloaded.offload_path
                 else " truncated")
        event = ContextCompacted(tier="offload", tokens_before=estimate_text(content),
                                 tokens_after=estimate_text(offloaded.content),
                                 detail=f"{call.name}: {offloaded.original_chars:,} "
                                        f"characters{where}")
    meta: dict[str, object] = {"status": output.status}
    if offloaded.offload_path:
        meta["offload_path"] = offloaded.offload_path
    if output.external:
        meta["external"] = True
    message = Message.tool(call.id, call.name, wrap_tool_result(call.name, offloaded.content),
                           **meta)
    return message, event, offloaded.content


async def _extract_after_turn(session: AgentSession, user_input: str) -> None:
    memory = session.memory
    if memory is None:
        return
    try:
        ids = await memory.after_turn(user_input, session.state, session.light_completer())
    except Exception:
        log.exception("fact extraction failed")
        return
    if ids:
        session.note_memory("extracted", f"remembered {len(ids)} fact(s) from this turn", ids)


async def run_turn(session: AgentSession, user_input: str) -> AsyncIterator[AgentEvent]:
    """The events of one turn (see the module docstring for the invariants)."""
    for notice in session.take_notices():
        yield notice
    yield TurnStarted(session=session.session_id, user_input=user_input)
    client = session.client
    if client is None:
        yield AgentError(message=how_to_configure(session.settings), recoverable=True)
        yield TurnFinished(session=session.session_id, reason="error")
        return
    session.turns += 1
    session.state.current_user_input = user_input
    session.append(await _turn_message(session, user_input))
    guard = RunawayGuard()
    reason, final_text = "done", ""
    finished = False
    try:
        iteration = 0
        forced = False       # the next prepare() must compact (provider said too long)
        retried = False      # the one retry after a context-length refusal is used
        while True:
            if iteration >= session.settings.max_iterations:
                reason = "max_iterations"
                yield AgentError(message=f"Stopped after {iteration} model requests in one "
                                         "turn (max_iterations). Say 'continue' to go on.")
                break
            iteration += 1
            schemas = session.tool_schemas()
            prepared = await session.manager.prepare(session.history, schemas, force=forced)
            forced = False
            for event in session.apply_prepared(prepared):
                yield event
            if prepared.overflow is not None:
                # Never send a request above the window: say why and what to do instead.
                reason = "error"
                session.ledger.event("request_refused", detail=prepared.overflow,
                                     estimated=prepared.estimated_tokens)
                yield AgentError(message=prepared.overflow, recoverable=True)
                break
            raw_estimate = estimate_request(session.history, schemas)
            profile = session.profile
            yield RequestStarted(iteration=iteration, estimated_tokens=prepared.estimated_tokens,
                                 window=profile.window,
                                 clearing_trigger=profile.clearing_trigger,
                                 compaction_trigger=profile.compaction_trigger)
            done: StreamDone | None = None
            try:
                # aclosing: a cancelled turn releases the HTTP stream at once, not at GC.
                async with _closing(client.stream(session.history, schemas)) as parts:
                    async for part in parts:
                        if isinstance(part, StreamDelta):
                            if part.reasoning:
                                yield ReasoningDelta(text=part.reasoning)
                            if part.text:
                                yield TextDelta(text=part.text)
                        elif isinstance(part, StreamDone):
                            done = part
            except ContextLengthExceeded as exc:
                if retried:
                    reason = "error"
                    yield AgentError(message=f"{exc} (still too long after compacting)",
                                     recoverable=True)
                    break
                retried, forced = True, True
                iteration -= 1
                session.ledger.event("context_length_exceeded", detail=str(exc))
                continue
            except LLMError as exc:
                reason = "error"
                yield AgentError(message=str(exc), recoverable=True)
                break
            except Exception as exc:  # a client bug: end the turn cleanly, history intact
                # Logged without the traceback: its text could quote a request header.
                text = redact(f"{client.provider}: unexpected failure "
                              f"({type(exc).__name__}: {exc})", *session.settings.secrets())
                log.error("%s", text)
                reason = "error"
                yield AgentError(message=text, recoverable=True)
                break
            if done is None:
                reason = "error"
                yield AgentError(message=f"{client.provider} ended without a reply")
                break
            if done.usage is not None:
                session.calibrator.observe(raw_estimate, done.usage.prompt_tokens)
                session.ledger.event("usage", prompt_tokens=done.usage.prompt_tokens,
                                     completion_tokens=done.usage.completion_tokens,
                                     cached_tokens=done.usage.cached_tokens,
                                     estimated=prepared.estimated_tokens)
                yield Usage(prompt_tokens=done.usage.prompt_tokens,
                            completion_tokens=done.usage.completion_tokens,
                            cached_tokens=done.usage.cached_tokens,
                            estimated_prompt_tokens=prepared.estimated_tokens)
            # Tools run with the arguments exactly as the model wrote them (a malformed one
            # gets a clear error); the history keeps a form every provider accepts back.
            assistant = done.message
            session.append(with_sendable_arguments(assistant))
            yield AssistantMessage(content=assistant.content, reasoning=assistant.reasoning,
                                   tool_call_ids=tuple(c.id for c in assistant.tool_calls))
            if not assistant.tool_calls:
                final_text = assistant.content
                break
            runaway: ToolCall | None = None
            for batch in _batches(assistant.tool_calls):
                for call in batch:
                    yield ToolCallStarted(call_id=call.id, name=call.name,
                                          arguments=call.arguments)
                if len(batch) == 1:
                    results = [await _run_tool(session, batch[0])]
                else:
                    results = await asyncio.gather(*(_run_tool(session, c) for c in batch))
                # Results enter the history in call order, whatever order they finished in.
                for call, (message, offload_event, shown) in zip(batch, results, strict=True):
                    session.append(message)
                    if offload_event is not None:
                        yield offload_event
                    yield ToolCallFinished(
                        call_id=call.id, name=call.name, status=message.meta["status"],
                        preview=_preview(shown), chars=len(message.content),
                        offload_path=message.meta.get("offload_path"))
                    if guard.observe(call):
                        runaway = call
                # A loaded skill's text follows the whole group of results (pairing holds).
                for injected in session.state.take_injections():
                    session.append(injected)
            if runaway is not None:
                session.append(runaway_notice(runaway.name, RUNAWAY_REPEATS))
        finished = True
    finally:
        if not finished:
            # Cancelled (task cancel or aclose) mid-turn: answer dangling calls so the
            # history stays valid; no events can be sent from here.
            reason = "cancelled"
            session.repair("cancelled")
            session.ledger.event("turn_cancelled")
    # No checkpoint here: every append, repair and compaction already wrote one.
    if reason == "done" and session.settings.auto_extract and session.memory is not None:
        # Started before the last event: a consumer may stop iterating right after it.
        session.start_background(_extract_after_turn(session, user_input))
    yield TurnFinished(session=session.session_id, reason=reason, final_text=final_text)

