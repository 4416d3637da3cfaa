"""The MCP servers of one session: started together, restarted one by one at the person's
word, stopped together.

Each start of a server is a :class:`~.server_run.ServerRun` in a task of its own. A server
whose process ends mid-session, and the outcome of a restart, are queued as
:class:`McpServerChanged` events (:meth:`McpManager.take_changes`), and whoever listens
(:attr:`McpManager.on_change`, the TUI) hears at once that there is one to take.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from ..contracts.events import McpServerChanged
from ..contracts.tools import Tool
from .config import McpServerConfig
from .server_run import ServerRun, serve
from .status import ServerStatus, markdown_literal

log = logging.getLogger(__name__)
STOP_TIMEOUT_S = 5.0
RESTART_HINT = "`/mcp restart NAME` starts a server again; `/mcp restart`, every failed one."


class McpManager:
    def __init__(self, statuses: Sequence[ServerStatus], problems: Sequence[str] = ()) -> None:
        self.statuses = list(statuses)
        self.problems = list(problems)
        """Configuration trouble found before starting (shown by /mcp)."""
        self.on_change: Callable[[], None] | None = None
        """Called when a change is queued (a face then takes it: :meth:`take_changes`)."""
        self._changes: list[McpServerChanged] = []
        self._runs: dict[str, ServerRun] = {}
        self._closed = False
        """The session ended: a restart still on its way starts nothing (it would outlive
        the session's own stop)."""
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
        """Start more servers (a name already running is skipped); returns their statuses.
        One that does not start is queued as a change (``exec --json`` says so)."""
        known = {s.config.name for s in self.statuses}
        added = [ServerStatus(c) for c in configs if c.name not in known]
        self.statuses.extend(added)
        for status in added:
            if not status.config.enabled:
                status.state = "disabled"
        await asyncio.gather(*(self._launch(s) for s in added
                               if s.state != "disabled"))
        for status in added:
            if status.state == "failed":
                self._changed(status, "start")
        return added

    async def _launch(self, status: ServerStatus) -> None:
        """Start ``status``'s server and wait until it runs or has failed."""
        if self._closed:
            status.state = "stopped"
            return
        run = ServerRun(status)
        self._runs[status.config.name] = run
        run.task = asyncio.create_task(
            serve(run, self._project_root, self._logs_dir, lambda: self._names_besides(status),
                  self._exited),
            name=f"mcp:{status.config.name}")
        await run.ready.wait()

    def _names_besides(self, status: ServerStatus) -> set[str]:
        """The tool names the other servers hold now. Asked when ``status``'s tools are
        named, not when its start began: server 'a' offering 'b__add' and server 'a__b'
        offering 'add', restarted together after failing to start, each found the other's
        names free and both offered 'mcp__a__b__add'."""
        return {t.name for s in self.statuses if s is not status for t in s.tools}

    def _exited(self, status: ServerStatus) -> None:
        self._changed(status, "exited")

    def _changed(self, status: ServerStatus,
                 cause: Literal["start", "exited", "restart"]) -> None:
        running = status.state == "running"
        self._changes.append(McpServerChanged(
            server=status.config.name, state="running" if running else "failed",
            cause=cause, detail="" if running else status.error or "",
            tools=len(status.tools) if running else 0))
        if self.on_change is not None:
            self.on_change()

    def take_changes(self) -> list[McpServerChanged]:
        """The changes queued since the last call, oldest first."""
        changes, self._changes = self._changes, []
        return changes

    def status_of(self, name: str) -> ServerStatus | None:
        return next((s for s in self.statuses if s.config.name == name), None)

    def failed(self) -> list[str]:
        """The names of the servers that failed (to start, or later)."""
        return [s.config.name for s in self.statuses if s.state == "failed"]

    def restart_targets(self, name: str) -> list[str]:
        """The servers ``/mcp restart [name]`` restarts: ``name``, or every failed one.
        ValueError saying why there is none (an unknown or disabled name, none failed)."""
        if not self.statuses:
            raise ValueError("No MCP servers are configured.")
        if not name:
            if not self.failed():
                raise ValueError("No MCP server has failed: `/mcp restart NAME` restarts a "
                                 "running one.")
            return self.failed()
        status = self.status_of(name)
        if status is None:
            known = ", ".join(f"`{s.config.name}`" for s in self.statuses)
            raise ValueError(f"No MCP server is named {markdown_literal(name)} (there are "
                             f"{known}).")
        if status.state == "disabled":
            raise ValueError(f"MCP server `{name}` is disabled: set `enabled = true` for it "
                             "in config.toml, then start a new session.")
        return [name]

    async def restart(self, name: str) -> ServerStatus:
        """Stop ``name``'s server if it runs, start it again and list its tools; the outcome
        is queued as a change. A call to its tools meanwhile waits for the outcome; a call
        still running on the old process fails saying the server was restarted. KeyError
        for a name not configured; a disabled server stays so."""
        status = self.status_of(name)
        if status is None:
            raise KeyError(name)
        if status.restart_done is not None:  # asked twice: one restart, both wait for it
            await status.restart_done.wait()
            return status
        if status.state == "disabled":
            return status
        done = status.restart_done = asyncio.Event()
        status.restarts += 1
        try:
            status.state = "restarting"
            old = self._runs.pop(name, None)
            if old is not None:
                await _stop([old])
            status.state, status.error = "restarting", None
            # this server's names are free again: the same tools keep the same names
            await self._launch(status)
        finally:
            status.restart_done = None
            done.set()
        if not self._closed:  # a session ending has nobody to tell
            self._changed(status, "restart")
        return status

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
            named = ", ".join(f"`{t.name}`" for t in status.tools)
            if status.tools and status.state in ("running", "restarting"):
                lines.append(f"  - {named}")
            elif status.tools:  # a server that ran and stopped: its tools cannot run
                lines.append(f"  - unavailable, not offered to the model while it is "
                             f"{status.state}: {named}"
                             + (f" (`/mcp restart {config.name}` starts it again)"
                                if status.state == "failed" else ""))
            if status.error:
                lines.append(f"  - last error: {markdown_literal(status.error)}")
            if status.log_path and status.state == "failed":
                lines.append(f"  - server log: `{status.log_path}`")
        lines.extend(f"- {problem}" for problem in self.problems)
        if self.failed():
            lines.append(f"\n{RESTART_HINT}")
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
            + (" and its log; `/mcp restart NAME` starts one again." if failed else ".")

    async def aclose(self) -> None:
        """Stop every server (each task leaves its SDK contexts itself)."""
        self._closed = True
        runs, self._runs = list(self._runs.values()), {}
        await _stop(runs)


async def _stop(runs: Sequence[ServerRun]) -> None:
    """Ask ``runs`` to stop and wait for them; one not done in STOP_TIMEOUT_S is cancelled."""
    for run in runs:
        run.stopping = True
        run.stop.set()
    tasks = [run.task for run in runs if run.task is not None]
    if not tasks:
        return
    _, pending = await asyncio.wait(tasks, timeout=STOP_TIMEOUT_S)
    for task in pending:
        task.cancel()
    with contextlib.suppress(BaseException):
        await asyncio.gather(*tasks, return_exceptions=True)

