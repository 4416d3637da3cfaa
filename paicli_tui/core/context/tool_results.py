"""The one ordered pipeline every tool result passes before it enters the history.

1. **Redaction**: a configured secret printed by a command (``env``, a ``.env`` file, a config
   dump) is removed first, so it reaches neither the provider, the ledger nor a saved file.
2. **Offload** (tier 1, :mod:`.offload`): a huge result is saved to a file and replaced by a
   notice with its head, its tail and how to read the rest.
3. **Boundary** (:mod:`.boundary`): the text is wrapped as untrusted data that cannot close
   its own wrapper.

Every rule about what a tool result looks like in the history is in this folder; the agent
only runs the tool and hands the output here. The redactor is injected (it belongs to the
provider layer, which knows every form a key can take).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...config import Settings
from ...paths import ProjectPaths
from ..contracts.session_state import SessionState
from ..contracts.tools import ToolOutput
from ..messages import Message, ToolCall
from ..tokens import estimate_text
from .boundary import wrap_tool_result
from .offload import offload_tool_result
from .report import CompactionReport

COMMAND_TOOL = "execute_command"


@dataclass(frozen=True)
class AdmittedResult:
    """A tool result ready for the history."""

    message: Message
    """The tool message (wrapped; ``meta`` carries status, offload path, external)."""
    shown: str
    """The result as the person should see it (after redaction and offload, unwrapped)."""
    offload: CompactionReport | None
    """Set when tier 1 saved or cut the result."""


def admit_tool_result(call: ToolCall, output: ToolOutput, arguments: Mapping[str, Any], *,
                      redact: Callable[[str], str], project: ProjectPaths,
                      session: SessionState, settings: Settings) -> AdmittedResult:
    """Redaction, then offload, then the boundary: the tool message for ``call``."""
    content = redact(output.content)
    offloaded = offload_tool_result(
        tool_name=call.name, content=content, arguments=dict(arguments), project=project,
        session=session, settings=settings, is_command=call.name == COMMAND_TOOL,
        bypass=output.bypass_offload)
    report = None
    if offloaded.truncated:
        where = (f" saved to {offloaded.offload_path}" if offloaded.offload_path
                 else " truncated")
        report = CompactionReport(
            "offload", True, estimate_text(content), estimate_text(offloaded.content),
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
