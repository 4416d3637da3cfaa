"""``!command`` typed by the person: run at once in the project, shown as a command block,
and its output handed to the model with their next message (Claude Code's bash mode, Aider's
``/run``).

The person typed the command, so nobody is asked to approve it; everything else is as for
the agent's ``execute_command``: the project root as working folder, an environment without
the provider keys, the command timeout, the output capture cap, nothing left running after
it. What the model later reads is masked of every configured key, cut in the middle past
SHELL_KEEP_CHARS, and wrapped as untrusted data (``<shell_output …>``, which nothing inside
can close). A command that may reach the network marks the session as holding outside
content, as the agent's would.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from ..contracts.events import AgentEvent, ToolCallFinished, ToolCallStarted
from ..contracts.shell import classify_command
from ..contracts.tools import ToolOutput
from ..llm.redact import redact_known
from .shell_notes import ShellNote, keep_waiting
from .tools.command import run_command
from .tools.command_env import command_environment

if TYPE_CHECKING:
    from .session import AgentSession

SHELL_KEEP_CHARS = 30_000
"""Characters of one command's output the next message carries (head and tail kept)."""
TYPED = "typed"
"""``ToolCallFinished.permission`` of a command the person typed (no approval asked)."""

def _kept(text: str) -> str:
    if len(text) <= SHELL_KEEP_CHARS:
        return text
    half = SHELL_KEEP_CHARS // 2
    left_out = len(text) - 2 * half
    return (f"{text[:half]}\n[… {left_out:,} characters of output left out …]\n"
            f"{text[-half:]}")


async def run_shell_line(session: AgentSession, command: str) -> AsyncIterator[AgentEvent]:
    """Run ``command`` (see the module docstring): a started and a finished event, the
    output kept for the next message, a ``shell_line`` record in the ledger."""
    call_id = f"shell-{uuid.uuid4().hex[:8]}"
    arguments = json.dumps({"command": command}, ensure_ascii=False)
    yield ToolCallStarted(call_id=call_id, name="execute_command", arguments=arguments)
    settings, root = session.settings, session.project.root
    secrets = settings.secrets()
    shown_command = redact_known(command, secrets)
    verdict = classify_command(command, root)
    try:
        code, output, total, timed_out = await run_command(
            command, str(root), settings.command_timeout_s, settings.command_output_cap_chars,
            env=command_environment(settings))
    except OSError as exc:
        session.ledger.event("shell_line", command=shown_command, exit_code=None,
                             error=str(exc))
        session.name_after_command(shown_command)
        yield ToolCallFinished(call_id=call_id, name="execute_command", status="failed",
                               preview=f"could not start the command: {exc}",
                               permission=TYPED)
        return
    head = (f"[killed after {settings.command_timeout_s:g} s without finishing]" if timed_out
            else f"[exit code {code}]")
    if total > len(output):
        output += (f"\n[capture stopped at {settings.command_output_cap_chars:,} characters; "
                   f"the command printed {total:,}]")
    text = redact_known(f"{head}\n{output}" if output else f"{head} (no output)", secrets)
    if verdict.external:
        session.state.external_content_used = True
    if session.memory is not None:  # what brought outside content in, for saved memories
        # masked: the label goes into the metadata of memories saved from now on
        session.memory.note_tool_result("execute_command", {"command": shown_command},
                                        ToolOutput(text, external=verdict.external),
                                        session.state)
    note = ShellNote(shown_command, None if timed_out else code, _kept(text))
    keep_waiting(session.pending_shell, [note])
    # the output too (masked): a session quit before the next message still has it then
    session.ledger.event("shell_line", command=shown_command, exit_code=note.exit_code,
                         chars=len(text), output=note.output)
    session.name_after_command(shown_command)  # masked, as in the line above
    status = "done" if code == 0 and not timed_out else "failed"
    yield ToolCallFinished(call_id=call_id, name="execute_command", status=status,
                           preview="\n".join(text.splitlines()[:12]), chars=len(text),
                           permission=TYPED)
