"""One start of one MCP server, in a task of its own.

The task enters the SDK's stdio client and session, lists the tools, then waits until it is
asked to stop or the server's process ends: the SDK's task groups must be entered and left
by the same task, and the TUI calls tools from other tasks. A server that fails to start (a
missing command, a crash, no answer within its start-up timeout) is reported with its reason
and the session goes on without it. One whose process ends while the session runs is marked
failed the moment its output ends, not at the model's next call. The server's stderr goes to
a log file, never to the terminal (it would tear the TUI).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import re
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...private_files import open_private
from ...process_supervisor import MASKED_ENV, MAX_SERVER_LOG_BYTES, PARENT_LIFELINE
from ...process_supervisor import SCRIPT as SUPERVISOR
from .config import McpServerConfig
from .status import ServerStatus, describe_error, stderr_tail
from .tool import McpTool

log = logging.getLogger(__name__)
MAX_TOOL_NAME = 64
PROCESS_ENDED = "its process ended"


def tool_name(server: str, tool: str, taken: set[str]) -> str:
    """``mcp__<server>__<tool>``, kept to the characters and length providers accept."""
    base = re.sub(r"[^A-Za-z0-9_-]", "_", f"mcp__{server}__{tool}")[:MAX_TOOL_NAME]
    name, n = base, 2
    while name in taken:
        suffix = f"_{n}"
        name, n = base[:MAX_TOOL_NAME - len(suffix)] + suffix, n + 1
    taken.add(name)
    return name


def supervised(config: McpServerConfig, env: dict[str, str], cwd: Path) -> list[str]:
    """The interpreter's arguments that run ``config``'s server under the process supervisor,
    tied to this process: if the app dies in any way (SIGKILL too) the server's whole tree is
    killed, even a server that ignores the end of its stdin. FileNotFoundError (the command)
    when the program cannot be found, as the SDK's own start would say; NotADirectoryError
    when ``cwd`` is no folder."""
    if not cwd.is_dir():  # the start's own error names this folder as a missing command
        raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(cwd))
    command = config.command
    if os.sep not in command:
        found = shutil.which(command, path=env.get("PATH", os.defpath))
        if found is None:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), command)
        command = found
    elif not os.path.isabs(command):
        command = str(cwd / command)
    return ["-I", "-S", SUPERVISOR, PARENT_LIFELINE, str(os.getpid()), command,
            *config.args]


@dataclass
class ServerRun:
    """One start of ``status``'s server. ``stopping``: the app asked it to stop (a restart,
    the session's end), so its end is no failure."""

    status: ServerStatus
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    stopping: bool = False
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once the server runs or has failed to start."""
    task: asyncio.Task[None] | None = None

    def process_ended(self) -> None:
        """The server's output ended while it ran: failed now, before the session wakes
        the calls waiting on it (they then say so, naming ``/mcp restart``)."""
        if self.stopping or self.status.state != "running":
            return
        self.status.state = "failed"
        self.status.error = PROCESS_ENDED
        self.stop.set()


async def serve(run: ServerRun, project_root: Path, logs_dir: Path,
                names_in_use: Callable[[], set[str]],
                exited: Callable[[ServerStatus], None]) -> None:
    """Run ``run``'s server until it is stopped; ``exited(status)`` when its process ended
    by itself while it ran (after its stderr is in the log, which the error quotes).
    ``names_in_use()``: the tool names other servers hold as this one's tools are named."""
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client
    from mcp.client.stdio import get_default_environment

    from .end_watch import EndWatch

    status = run.status
    config = status.config
    cwd = Path(config.cwd).expanduser() if config.cwd else project_root
    if not cwd.is_absolute():
        cwd = project_root / cwd
    log_start = 0  # the log is appended to: this run's stderr starts here
    try:
        logs_dir.mkdir(parents=True, exist_ok=True)
        status.log_path = logs_dir / f"mcp-{config.name}.log"
        with contextlib.suppress(OSError):
            log_start = status.log_path.stat().st_size
        # each run writes at most MAX_SERVER_LOG_BYTES (the supervisor cuts it); runs
        # after runs are not let grow the log without end either: a long one starts over
        fresh = os.O_TRUNC if log_start > MAX_SERVER_LOG_BYTES else 0
        log_start = 0 if fresh else log_start
        async with contextlib.AsyncExitStack() as stack:
            errlog = stack.enter_context(os.fdopen(open_private(
                status.log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | fresh), "a",
                encoding="utf-8"))
            # The SDK passes only a small safe environment (HOME, PATH, ...) plus `env`:
            # provider keys never reach a server unless the person put them in `env`.
            env = get_default_environment() | dict(config.env)
            # the supervisor masks these variables' values in the server's log (and drops
            # this name before the server starts): a token printed on a failed login
            env[MASKED_ENV] = ",".join(config.env)
            params = StdioServerParameters(
                command=sys.executable, args=supervised(config, env, cwd), env=env,
                cwd=str(cwd))
            read, write = await stack.enter_async_context(stdio_client(params,
                                                                       errlog=errlog))
            session = await stack.enter_async_context(
                ClientSession(EndWatch(read, run.process_ended), write))
            # Only whole awaits inside the deadline: a cancel scope must not straddle the
            # SDK's own task groups.
            with anyio.fail_after(config.startup_timeout_s):
                await session.initialize()
                listed = await _list_tools(session)
            status.session = session
            taken = names_in_use()  # no await from here until the tools are set
            status.tools = [McpTool(status, t, tool_name(config.name, t.name, taken))
                            for t in listed]
            status.state = "running"
            run.ready.set()
            await run.stop.wait()
        # the SDK's contexts are left: the process is gone and its last words are logged
        if status.state == "failed":
            status.error = PROCESS_ENDED + stderr_tail(status.log_path, log_start,
                                                       config.env.values())
            log.warning("MCP server %s: %s", config.name, status.error)
            exited(status)
        else:
            _stopped(status)
    except asyncio.CancelledError:
        _stopped(status)
        raise
    except BaseException as exc:  # noqa: BLE001 — any start failure is reported, not fatal
        ran = status.state in ("running", "failed") and run.ready.is_set()
        status.state = "failed"
        if ran:
            status.error = f"stopped: {describe_error(exc)}"
            if not run.stopping:
                exited(status)
        else:
            status.error = describe_error(exc) + stderr_tail(
                status.log_path, log_start, config.env.values())
        log.warning("MCP server %s: %s", config.name, status.error)
    finally:
        status.session = None
        run.ready.set()


def _stopped(status: ServerStatus) -> None:
    if status.state != "restarting":  # a restart says what the server is
        status.state = "stopped"


async def _list_tools(session: Any) -> list[Any]:
    tools: list[Any] = []
    cursor = None
    for _ in range(50):  # a server that pages forever is cut off
        if cursor is None:
            result = await session.list_tools()
        else:
            from mcp.types import PaginatedRequestParams

            result = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
        tools.extend(result.tools)
        cursor = getattr(result, "next_cursor", None)
        if not cursor:
            break
    return tools
