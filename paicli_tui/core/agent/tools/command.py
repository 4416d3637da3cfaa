"""execute_command: run a shell command in the project, with approval, timeout and a cap."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
import sys
from collections.abc import Mapping
from typing import Any

from ....process_supervisor import SCRIPT as SUPERVISOR
from ...contracts.asks import ApprovalRequest
from ...contracts.read_only import is_read_only
from ...contracts.shell import classify_command
from ...contracts.tools import ToolContext, ToolOutput
from .approval import ask_approval, denied
from .command_env import command_environment
from .guard import ToolArgumentError, int_argument

MAX_TIMEOUT_S = 1_800
READ_BLOCK = 65_536

SUMMARY_CHARS = 200
"""Characters of a command's first line in its approval summary (the detail has it all)."""
SHELL = "/bin/sh"
DRAIN_AFTER_EXIT_S = 1.0
"""After the command exits, output still arriving is read this long (a child that escaped
every process group may hold the pipe open; it must not hold up the result)."""


def _kill_group(process: asyncio.subprocess.Process) -> None:
    """Last resort when the supervisor did not stop in time: kill its whole session."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            process.kill()


async def run_command(command: str, cwd: str, timeout_s: float, cap_chars: int, *,
                      env: Mapping[str, str] | None = None
                      ) -> tuple[int | None, str, int, bool]:
    """Run ``command`` with stdout and stderr merged, in ``env`` (default: this process's).

    Returns (exit code or None on timeout, captured text, total characters printed,
    timed out). At most ``cap_chars`` characters are kept; the rest is read and counted so
    the command never blocks on a full pipe. Nothing the command starts outlives it: a
    supervisor (see ``process_supervisor.py``) kills what it leaves running when it exits,
    and everything when this call is cancelled, times out, or the app dies (even SIGKILL).
    """
    lifeline_r, lifeline_w = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-I", "-S", SUPERVISOR, str(lifeline_r), SHELL, command, cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, start_new_session=True, pass_fds=(lifeline_r,),
            env=dict(env) if env is not None else None)
    except BaseException:
        os.close(lifeline_w)
        raise
    finally:
        os.close(lifeline_r)
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

    async def finish() -> int:
        reading = asyncio.ensure_future(pump())
        try:
            code = await process.wait()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(reading), DRAIN_AFTER_EXIT_S)
            return code
        finally:
            reading.cancel()
            with contextlib.suppress(BaseException):
                await reading

    async def stop() -> None:
        """Close the lifeline (the supervisor kills everything), then make sure."""
        with contextlib.suppress(OSError):
            os.close(lifeline_w)
        try:
            await asyncio.wait_for(asyncio.shield(process.wait()), 2)
        except BaseException:
            _kill_group(process)
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(process.wait(), 2)

    timed_out = False
    code: int | None
    try:
        code = await asyncio.wait_for(finish(), timeout_s)
    except TimeoutError:
        timed_out = True
        code = None
        await stop()
    except BaseException:
        await stop()  # cancelled: no process, zombie or open pipe outlives the turn
        raise
    finally:
        with contextlib.suppress(OSError):
            os.close(lifeline_w)
    keep(decoder.decode(b"", final=True))
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
            if "\x00" in command:  # no shell can be handed one; the checks below broke on it
                raise ToolArgumentError("the command holds a NUL byte (\\x00); no shell can "
                                        "run it")
            default = int(context.settings.command_timeout_s)
            timeout = int_argument(arguments, "timeout_s", default=default, low=1,
                                   high=MAX_TIMEOUT_S) or default
        except ToolArgumentError as exc:
            return ToolOutput(f"execute_command failed: {exc}", status="failed")
        verdict = classify_command(command, context.project_root)
        external = verdict.external
        lines = command.strip().splitlines()
        # the first line alone hid what followed it ("ls" above "rm -rf ~" on the next line)
        more = f" (+{len(lines) - 1} more line{'s' if len(lines) > 2 else ''})" \
            if len(lines) > 1 else ""
        first = lines[0]
        # a first line cut without a word hid its end ("echo hi", 200 spaces, "; rm -rf ~")
        cut = f"… (+{len(first) - SUMMARY_CHARS:,} more characters)" \
            if len(first) > SUMMARY_CHARS else ""
        summary = f"run: {first[:SUMMARY_CHARS]}{cut}{more}"
        detail = f"$ {command}\n(in {context.project_root}, timeout {timeout} s)"
        if external:
            detail += f"\nThis command may reach the network: {verdict.reason}."
        read_only = not external and is_read_only(
            command, context.settings.read_only_commands, context.project_root)
        if not await ask_approval(context, ApprovalRequest(tool=self.name, summary=summary,
                                                           detail=detail), read_only=read_only):
            return ToolOutput(denied(summary), status="denied")
        cap = context.settings.command_output_cap_chars
        try:
            code, output, total, timed_out = await run_command(
                command, str(context.project_root), timeout, cap,
                env=command_environment(context.settings))
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
