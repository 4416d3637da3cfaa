"""Running the tool calls of one assistant reply: batches, the runaway guard, and each
result through the tool-result pipeline of :mod:`..context.tool_results`."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING

from ..context.tool_results import AdmittedResult, admit_tool_results
from ..contracts.events import AgentEvent, ToolCallFinished, ToolCallStarted, compaction_event
from ..contracts.tools import ToolContext, ToolOutput
from ..llm.redact import redact_known
from ..messages import ToolCall
from .prompt import runaway_notice
from .relay import relay_until, settle_quietly

if TYPE_CHECKING:
    from .session import AgentSession

log = logging.getLogger(__name__)

RUNAWAY_REPEATS = 3
RUNAWAY_STOP_NOTICES = 2
"""Runaway notices in a row for one call after which the turn asks for a last answer
without tools: the model ignored the first and repeated the call a whole round more."""
PARALLEL_SAFE = frozenset({"read_file", "list_dir", "grep_code", "glob_files", "run_subagent"})
"""Tools that only read and share no state: several calls in one reply run concurrently."""
POSTS_EVENTS = frozenset({"run_subagent"})
"""Tools that post events while they run (a sub-agent's steps): passed on as they come."""
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


def call_key(call: ToolCall) -> tuple[str, str]:
    """Identity of a call for the runaway guard: name + arguments in canonical JSON."""
    try:
        canonical = json.dumps(json.loads(call.arguments or "{}"), sort_keys=True)
    except (ValueError, RecursionError):
        canonical = call.arguments.strip()
    return call.name, canonical


class RunawayGuard:
    """Counts identical consecutive calls; says when to send the notice, and when a model
    that was sent it goes on repeating the call regardless (``stuck``)."""

    def __init__(self, repeats: int = RUNAWAY_REPEATS,
                 stop_after: int = RUNAWAY_STOP_NOTICES) -> None:
        self.repeats = repeats
        self.stop_after = stop_after
        self.last: tuple[str, str] | None = None
        self.count = 0
        self.notices = 0
        """Notices sent for the current run of one identical call."""

    def observe(self, call: ToolCall) -> bool:
        """True when this call makes ``repeats`` identical calls in a row (then restarts)."""
        key = call_key(call)
        if key != self.last:
            self.count, self.notices = 0, 0
        self.count += 1
        self.last = key
        if self.count >= self.repeats:
            self.count = 0
            self.notices += 1
            return True
        return False

    @property
    def stuck(self) -> bool:
        """The model repeated the call through ``stop_after`` notices: no notice will stop
        it, only taking the tools away will (a weak model otherwise runs to the request cap,
        or with no cap until the window is full)."""
        return self.notices >= self.stop_after

    @property
    def repeated(self) -> tuple[str, int]:
        """The stuck call's tool name and how many times in a row it ran."""
        name = self.last[0] if self.last else ""
        return name, self.notices * self.repeats + self.count


@dataclasses.dataclass(frozen=True)
class _Ran:
    """One call that ran, before its result is admitted."""

    call: ToolCall
    arguments: dict
    output: ToolOutput
    permission: str
    """How it went ahead when it needed approval and nobody was asked (``Permission``, "")."""


async def _run_tool(session: AgentSession, call: ToolCall,
                    context: ToolContext | None = None) -> _Ran:
    """Run one call; its result is admitted later, with its batch (:func:`_admit`)."""
    context = (context or dataclasses.replace(session.tool_context, call_id=call.id)
               ).for_one_call()  # the call id names the call in its approval request
    arguments, output = await session.tools.run(call.name, call.arguments, context)
    permission = context.granted[-1].value if context.granted else ""
    if output.external:
        session.state.external_content_used = True
    if session.memory is not None:
        try:
            session.memory.note_tool_result(call.name, arguments, output, session.state)
        except Exception:
            log.exception("memory.note_tool_result failed")
    return _Ran(call, arguments, output, permission)


async def _admit(session: AgentSession, ran: Sequence[_Ran]) -> list[AdmittedResult]:
    """The batch's results through redaction, offload and the boundary, in call order (a
    large one in a worker thread; saved outputs numbered in call order).

    Not interrupted by a cancel (Esc): the calls have already run (a command, an edit done
    on disk), and a result dropped here would be repaired as "interrupted" and run again.
    Admission is bounded (about a second for 20 MB), so it is finished, its results are put
    in the history, and then the cancel goes on."""
    secrets = session.settings.secrets()
    admitting = asyncio.ensure_future(admit_tool_results(
        [(item.call, item.output, item.arguments) for item in ran],
        redact=lambda text: redact_known(text, secrets), project=session.project,
        session=session.state, settings=session.settings))
    try:
        return await asyncio.shield(admitting)
    except asyncio.CancelledError:
        for result in await admitting:
            session.append(result.message)
        raise


async def run_calls(session: AgentSession, calls: Sequence[ToolCall], guard: RunawayGuard
                    ) -> AsyncIterator[AgentEvent]:
    """Run ``calls`` (read-only neighbours concurrently), append their results in call
    order, then any injected skill text, then the runaway notice if a call repeated."""
    runaway: ToolCall | None = None
    for batch in _batches(calls):
        for call in batch:
            yield ToolCallStarted(call_id=call.id, name=call.name, arguments=call.arguments)
        if any(call.name in POSTS_EVENTS for call in batch):
            ran: list[_Ran] = []
            async for event in _run_posting(session, batch, ran):
                yield event
        elif len(batch) == 1:
            ran = [await _run_tool(session, batch[0])]
        else:
            ran = list(await asyncio.gather(*(_run_tool(session, c) for c in batch)))
        # Results enter the history in call order, whatever order they finished in.
        for call, item, result in zip(batch, ran, await _admit(session, ran), strict=True):
            session.append(result.message)
            if result.offload is not None:  # not a change of the view: no ledger record
                yield compaction_event(result.offload)
            # an offloaded output's size is its own, not its notice's (a 80k-character page
            # read "3.2k chars · offloaded")
            chars = len(item.output.content) if result.offload is not None \
                else len(result.message.content)
            yield ToolCallFinished(
                call_id=call.id, name=call.name, status=result.message.meta["status"],
                preview=_preview(result.shown), chars=chars,
                offload_path=result.message.meta.get("offload_path"),
                permission=item.permission)
            if guard.observe(call):
                runaway = call
        # A loaded skill's text follows the whole group of results (pairing holds).
        for injected in session.state.take_injections():
            session.append(injected)
    # A model past its last notice gets the turn's wrap-up instead, which says the same
    # and takes the tools away: a notice before it put two user messages in a row, which
    # a chat template that wants turns to alternate (Mistral's, served by vLLM) refuses.
    if runaway is not None and not guard.stuck:
        session.append(runaway_notice(runaway.name, RUNAWAY_REPEATS))


async def _run_posting(session: AgentSession, batch: Sequence[ToolCall],
                       results: list[_Ran]) -> AsyncIterator[AgentEvent]:
    """Run a batch whose tools post events while they run: each event is passed on as it
    comes, the results are put in ``results`` (call order). Cancelled, the tools are
    cancelled and awaited, so a sub-agent closes its stream before the turn repairs."""
    queue: asyncio.Queue[AgentEvent] = asyncio.Queue()
    work = asyncio.ensure_future(asyncio.gather(*(
        _run_tool(session, call, dataclasses.replace(session.tool_context, call_id=call.id,
                                                     emit=queue.put_nowait))
        for call in batch)))
    work.add_done_callback(settle_quietly)  # however this generator ends
    try:
        async for event in relay_until(queue, work):
            yield event
        results.extend(work.result())
    finally:
        if not work.done():
            work.cancel()
            await asyncio.wait({work})
