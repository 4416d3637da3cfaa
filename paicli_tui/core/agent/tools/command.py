"""execute_command: run a shell command in the project, with approval, timeout and a cap."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
from typing import Any

from ...contracts.asks import ApprovalRequest
from ...contracts.shell import is_network_command
from ...contracts.tools import ToolContext, ToolOutput
from .approval import ask_approval, denied
from .guard import ToolArgumentError, int_argument

MAX_TIMEOUT_S = 1_800
READ_BLOCK = 65_536

def _kill(process: asyncio.subprocess.Process) -> None:
    """Stop the command and everything it started (it runs in its own process group)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            process.kill()
        except ProcessLookupError:
            pass


async def run_command(command: str, cwd: str, timeout_s: float, cap_chars: int
                      ) -> tuple[int | None, str, int, bool]:
    """Run ``command`` with stdout and stderr merged.

    Returns (exit code or None on timeout, captured text, total characters printed,
    timed out). At most ``cap_chars`` characters are kept; the rest is read and counted so
    the command never blocks on a full pipe. Cancelling the caller kills the command.
    """
    process = await asyncio.create_subprocess_shell(
        command, cwd=cwd, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, start_new_session=True)
    kept: list[str] = []
    kept_chars = 0
    total = 0
    # Incremental decoding: a character split between two reads is not mangled.
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def keep(text: str) -> None:
        nonlocal kept_chars, total
        total += len(text)
        room = cap_chars - kept_chars
        if room > 0 and text:
            kept.append(text[:room])
            kept_chars += min(room, len(text))

    async def pump() -> None:
        assert process.stdout is not None
        while block := await process.stdout.read(READ_BLOCK):
            keep(decoder.decode(block))
        keep(decoder.decode(b"", final=True))

    timed_out = False
    try:
        await asyncio.wait_for(pump(), timeout_s)
        code = await process.wait()
    except TimeoutError:
        timed_out = True
        _kill(process)
        code = None
        await process.wait()
    except BaseException:
        _kill(process)
        # Reap it so no zombie or open pipe outlives a cancelled turn.
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(process.wait(), 2)
        raise
    return code, "".join(kept), total, timed_out


class ExecuteCommandTool:
    name = "execute_command"
    description = (
        "Run a shell command in the project root (stdout and stderr together) and get its exit "
        "code and output. The person must approve each command unless they allowed commands for "
        "the session. Long output is saved to a file under .paicli/tool-outputs/ and previewed "
        "(first and last part); read the rest with read_file offset/limit. Not interactive: "
        "stdin is empty. Default timeout 120 s."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The shell command line."},
            "timeout_s": {"type": "integer",
                          "description": f"Seconds before the command is killed (max "
                                         f"{MAX_TIMEOUT_S})."},
        },
        "required": ["command"],
    }
    requires_approval = True

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> ToolOutput:
        command = arguments.get("command")
        try:
            if not isinstance(command, str) or not command.strip():
                raise ToolArgumentError("command is required")
            default = int(context.settings.command_timeout_s)
            timeout = int_argument(arguments, "timeout_s", default=default, low=1,
                                   high=MAX_TIMEOUT_S) or default
        except ToolArgumentError as exc:
            return ToolOutput(f"execute_command failed: {exc}", status="failed")
        external = is_network_command(command)
        summary = f"run: {command.strip().splitlines()[0][:200]}"
        detail = f"$ {command}\n(in {context.project_root}, timeout {timeout} s)"
        if external:
            detail += "\nThis command reaches the network."
        if not await ask_approval(context, ApprovalRequest(tool=self.name, summary=summary,
                                                           detail=detail)):
            return ToolOutput(denied(summary), status="denied")
        cap = context.settings.command_output_cap_chars
        try:
            code, output, total, timed_out = await run_command(
                command, str(context.project_root), timeout, cap)
        except OSError as exc:
            return ToolOutput(f"execute_command failed to start: {exc}", status="failed",
                              external=external)
        if timed_out:
            head = f"[killed after {timeout} s without finishing]"
        else:
            head = f"[exit code {code}]"
        if total > len(output):
            output += f"\n[capture stopped at {cap:,} characters; the command printed {total:,}]"
        status = "done" if code == 0 else "failed"
        return ToolOutput(f"{head}\n{output}" if output else f"{head} (no output)",
                          status=status, external=external)
