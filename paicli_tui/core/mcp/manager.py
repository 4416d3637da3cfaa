"""Running MCP servers for one session.

Each server lives in a task of its own that enters the SDK's stdio client and session,
lists the tools, then waits until the session stops: the SDK's task groups must be entered
and left by the same task, and the TUI calls tools from other tasks. A server that fails to
start (a missing command, a crash, no answer within its start-up timeout) is reported with
its reason and the session goes on without it. The server's stderr goes to a log file, never
to the terminal (it would tear the TUI).
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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...private_files import open_private
from ...process_supervisor import MAX_SERVER_LOG_BYTES, PARENT_LIFELINE
from ...process_supervisor import SCRIPT as SUPERVISOR
from ..contracts.tools import Tool
from .config import McpServerConfig
from .status import ServerStatus, describe_error, markdown_literal, stderr_tail
from .tool import McpTool

log = logging.getLogger(__name__)
STOP_TIMEOUT_S = 5.0
MAX_TOOL_NAME = 64


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
    when the program cannot be found, as the SDK's own start would say."""
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


class McpManager:
    def __init__(self, statuses: Sequence[ServerStatus], problems: Sequence[str] = ()) -> None:
        self.statuses = list(statuses)
        self.problems = list(problems)
        """Configuration trouble found before starting (shown by /mcp)."""
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._project_root = Path(".")
        self._logs_dir = Path(".")

    @classmethod
    async def start(cls, configs: Sequence[McpServerConfig], *, project_root: Path,
                    logs_dir: Path, problems: Sequence[str] = ()) -> McpManager:
        """Start every enabled server at once and wait until each runs or has failed."""
        manager = cls([], problems)
        manager._project_root, manager._logs_dir = project_root, logs_dir
        await manager.add(configs)
        return manager

    async def add(self, configs: Sequence[McpServerConfig]) -> list[ServerStatus]:
        """Start more servers (a name already running is skipped); returns their statuses."""
        known = {s.config.name for s in self.statuses}
        taken = {t.name for s in self.statuses for t in s.tools}
        added = [ServerStatus(c) for c in configs if c.name not in known]
        self.statuses.extend(added)
        ready_events = []
        for status in added:
            if not status.config.enabled:
                status.state = "disabled"
                continue
            ready = asyncio.Event()
            ready_events.append(ready)
            self._tasks.append(asyncio.create_task(
                self._serve(status, ready, self._project_root, self._logs_dir, taken),
                name=f"mcp:{status.config.name}"))
        if ready_events:
            await asyncio.gather(*(e.wait() for e in ready_events))
        return added

    async def _serve(self, status: ServerStatus, ready: asyncio.Event, project_root: Path,
                     logs_dir: Path, taken: set[str]) -> None:
        import anyio
        from mcp import ClientSession, StdioServerParameters, stdio_client
        from mcp.client.stdio import get_default_environment

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
                params = StdioServerParameters(
                    command=sys.executable, args=supervised(config, env, cwd), env=env,
                    cwd=str(cwd))
                read, write = await stack.enter_async_context(stdio_client(params,
                                                                           errlog=errlog))
                session = await stack.enter_async_context(ClientSession(read, write))
                # Only whole awaits inside the deadline: a cancel scope must not straddle the
                # SDK's own task groups.
                with anyio.fail_after(config.startup_timeout_s):
                    await session.initialize()
                    listed = await _list_tools(session)
                status.session = session
                status.tools = [McpTool(status, t, tool_name(config.name, t.name, taken))
                                for t in listed]
                status.state = "running"
                ready.set()
                await self._stop.wait()
                status.state = "stopped"
        except asyncio.CancelledError:
            status.state = "stopped"
            raise
        except BaseException as exc:  # noqa: BLE001 — any start failure is reported, not fatal
            if status.state == "running":
                status.state = "failed"
                status.error = f"stopped: {describe_error(exc)}"
            else:
                status.state = "failed"
                status.error = describe_error(exc) + stderr_tail(
                    status.log_path, log_start, config.env.values())
            log.warning("MCP server %s: %s", config.name, status.error)
        finally:
            status.session = None
            ready.set()

    def tools(self) -> list[Tool]:
        return [tool for status in self.statuses if status.state == "running"
                for tool in status.tools]

    def report(self, config_file: Path | None = None) -> str:
        """What ``/mcp`` shows (Markdown). ``config_file``: the person's config.toml, named
        in the how-to when no server is configured (a path they can open, not a variable)."""
        lines: list[str] = []
        if not self.statuses and not self.problems:
            where = str(config_file) if config_file is not None else "PAICLI_HOME/config.toml"
            return (f"No MCP servers. Add one to `{where}` (or a project's `.mcp.json`):"
                    "\n\n```toml\n"
                    "[mcp_servers.files]\ncommand = \"npx\"\nargs = [\"-y\", "
                    "\"@modelcontextprotocol/server-filesystem\", \".\"]\n```")
        lines.append("**MCP servers**")
        for status in self.statuses:
            config = status.config
            where = "config.toml" if config.source == "config" else ".mcp.json"
            lines.append(f"- `{config.name}` ({where}): **{status.state}**"
                         + (f" — {len(status.tools)} tools" if status.state == "running" else ""))
            if status.tools:
                lines.append("  - " + ", ".join(f"`{t.name}`" for t in status.tools))
            if status.error:
                lines.append(f"  - last error: {markdown_literal(status.error)}")
            if status.log_path and status.state == "failed":
                lines.append(f"  - server log: `{status.log_path}`")
        lines.extend(f"- {problem}" for problem in self.problems)
        return "\n".join(lines)

    def startup_warning(self) -> str:
        """What a person must hear when the session opens: servers that did not start and
        configuration trouble ('' when every server runs). Without it a failed server was
        silent: its tools were just missing until the person thought of ``/mcp``."""
        failed = [s for s in self.statuses if s.state == "failed"]
        lines = [f"MCP server `{s.config.name}` did not start: {markdown_literal(s.error or '')}"
                 for s in failed]
        lines.extend(self.problems)
        if not lines:
            return ""
        return "\n".join(f"- {line}" for line in lines) + "\n\n`/mcp` shows every server" \
            + (" and its log." if failed else ".")

    async def aclose(self) -> None:
        """Stop every server (each task leaves its SDK contexts itself)."""
        self._stop.set()
        if not self._tasks:
            return
        done, pending = await asyncio.wait(self._tasks, timeout=STOP_TIMEOUT_S)
        for task in pending:
            task.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.gather(*self._tasks, return_exceptions=True)


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
