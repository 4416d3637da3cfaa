"""The one ordered pipeline every tool result passes before it enters the history.

1. **Redaction**: a configured secret printed by a command (``env``, a ``.env`` file, a config
   dump) is removed first, so it reaches neither the provider, the ledger nor a saved file.
2. **Offload** (tier 1, :mod:`.offload`): a huge result is saved to a file and replaced by a
   notice with its head, its tail and how to read the rest.
3. **Boundary** (:mod:`.boundary`): the text is wrapped as untrusted data that cannot close
   its own wrapper.

A batch is admitted in call order by :func:`admit_tool_results`: the heavy work of a large
result in a worker thread, the saved outputs numbered on the event loop (in call order).

Every rule about what a tool result looks like in the history is in this folder; the agent
only runs the tool and hands the output here. The redactor is injected (it belongs to the
provider layer, which knows every form a key can take).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...config import Settings
from ...paths import ProjectPaths
from ..contracts.session_state import SessionState
from ..contracts.tools import ToolOutput
from ..messages import Message, ToolCall
from ..tokens import estimate_text
from .boundary import wrap_tool_result
from .offload import OffloadPlan, finish_offload, plan_offload, try_reserve
from .report import CompactionReport

COMMAND_TOOL = "execute_command"
INLINE_CHARS = 65_536
"""A batch of results this short is admitted on the loop itself (under a millisecond)."""


@dataclass(frozen=True)
class AdmittedResult:
    """A tool result ready for the history."""

    message: Message
    """The tool message (wrapped; ``meta`` carries status, offload path, external)."""
    shown: str
    """The result as the person should see it (after redaction and offload, unwrapped)."""
    offload: CompactionReport | None
    """Set when tier 1 saved or cut the result."""


@dataclass(frozen=True)
class PreparedResult:
    """A tool result redacted and planned for offload, before any file is written."""

    call: ToolCall
    output: ToolOutput
    content: str
    """The redacted text."""
    plan: OffloadPlan


def prepare_tool_result(call: ToolCall, output: ToolOutput, arguments: Mapping[str, Any], *,
                        redact: Callable[[str], str], settings: Settings) -> PreparedResult:
    """Redaction, then the offload decision; touches no session state (worker-thread safe)."""
    content = redact(output.content)
    plan = plan_offload(tool_name=call.name, content=content, arguments=arguments,
                        settings=settings, is_command=call.name == COMMAND_TOOL,
                        bypass=output.bypass_offload)
    return PreparedResult(call, output, content, plan)


def complete_tool_result(prepared: PreparedResult, project: ProjectPaths,
                         reserved: str | OSError | None) -> AdmittedResult:
    """The saved output written (to the name reserved for it), then the boundary: the tool
    message. Worker-thread safe."""
    call, output = prepared.call, prepared.output
    offloaded = finish_offload(prepared.plan, project, reserved)
    report = None
    if offloaded.truncated:
        where = (f" saved to {offloaded.offload_path}" if offloaded.offload_path
                 else " truncated")
        report = CompactionReport(
            "offload", True, estimate_text(prepared.content), estimate_text(offloaded.content),
            f"{call.name}: {offloaded.original_chars:,} characters{where}",
            path=offloaded.offload_path)
    meta: dict[str, object] = {"status": output.status}
    if offloaded.offload_path:
        meta["offload_path"] = offloaded.offload_path
    if output.external:
        meta["external"] = True
    message = Message.tool(call.id, call.name, wrap_tool_result(call.name, offloaded.content),
                           **meta)
    return AdmittedResult(message, offloaded.content, report)


def admit_tool_result(call: ToolCall, output: ToolOutput, arguments: Mapping[str, Any], *,
                      redact: Callable[[str], str], project: ProjectPaths,
                      session: SessionState, settings: Settings) -> AdmittedResult:
    """Redaction, then offload, then the boundary: the tool message for ``call``, in one step
    on the caller's thread."""
    prepared = prepare_tool_result(call, output, arguments, redact=redact, settings=settings)
    return complete_tool_result(prepared, project,
                                try_reserve(prepared.plan, project, session))


async def admit_tool_results(results: Sequence[tuple[ToolCall, ToolOutput, Mapping[str, Any]]],
                             *, redact: Callable[[str], str], project: ProjectPaths,
                             session: SessionState, settings: Settings) -> list[AdmittedResult]:
    """:func:`admit_tool_result` for a batch of results, in call order, with the heavy work
    (redacting and saving a 20 MB output takes about a second) in a worker thread so the
    event loop keeps running. Saved outputs are numbered here, on the loop, in call order:
    the same numbers as admitting the results one after another."""
    if sum(len(output.content) for _, output, _ in results) <= INLINE_CHARS:
        return [admit_tool_result(call, output, arguments, redact=redact, project=project,
                                  session=session, settings=settings)
                for call, output, arguments in results]
    prepared = await asyncio.to_thread(lambda: [
        prepare_tool_result(call, output, arguments, redact=redact, settings=settings)
        for call, output, arguments in results])
    reserved = [try_reserve(item.plan, project, session) for item in prepared]
    return await asyncio.to_thread(lambda: [
        complete_tool_result(item, project, name) for item, name in zip(prepared, reserved,
                                                                         strict=True)])
