"""Which servers a session starts: config.toml's, plus the project's approved .mcp.json."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...config import Settings
from ..plural import counted
from .config import (
    McpServerConfig,
    approve_project_servers,
    project_servers,
    readable_servers,
)
from .manager import McpManager
from .status import ServerStatus, markdown_literal

NOT_APPROVED = ("{servers} in {path} not started: this project's .mcp.json has not been "
                "approved (it can run any command). Review it, then `/mcp approve`.")

WRITTEN_SINCE = ("{servers} in {path} not started: the file was written after this session "
                 "started. Review it, then `/mcp approve`.")


@dataclass
class ConfiguredServers:
    """What a session would start, before anything starts."""

    configs: list[McpServerConfig] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """Configuration that cannot be read (a malformed table, a .mcp.json that is no file),
    in the file's own words, not made safe for Markdown."""
    not_approved: str = ""
    """The servers of a .mcp.json not started because the person has not approved it."""


def configured_servers(settings: Settings, project_root: Path) -> ConfiguredServers:
    """config.toml's servers, plus the project's .mcp.json ones once it is approved."""
    found = ConfiguredServers()
    found.configs, found.errors = readable_servers(settings)
    project = project_servers(project_root, settings.home)
    if project is not None:
        if project.error:
            found.errors.append(project.error)
        elif project.approved:
            names = {c.name for c in found.configs}
            found.configs += [c for c in project.servers if c.name not in names]
        elif project.servers:
            found.not_approved = NOT_APPROVED.format(
                servers=counted(len(project.servers), "server"), path=project.path)
    return found


async def start_mcp(settings: Settings, project_root: Path) -> McpManager | None:
    """The session's MCP servers, started; None when nothing is configured anywhere."""
    found = configured_servers(settings, project_root)
    # the file's own words (a server name) shown as text
    problems = [markdown_literal(error) for error in found.errors]
    problems += [found.not_approved] if found.not_approved else []
    if not found.configs and not problems:
        return None
    return await McpManager.start(found.configs, project_root=project_root,
                                  logs_dir=settings.home.logs_dir, problems=problems)


async def approve_and_start_project_servers(manager: McpManager | None, settings: Settings,
                                            project_root: Path
                                            ) -> tuple[McpManager | None, list[ServerStatus]]:
    """The person approved this project's .mcp.json: remember it and start its servers."""
    project = project_servers(project_root, settings.home)
    if project is None or project.error or not project.servers:
        return manager, []
    approve_project_servers(project_root, settings.home, project.digest)
    if manager is None:
        manager = await McpManager.start([], project_root=project_root,
                                         logs_dir=settings.home.logs_dir)
    manager.problems = [p for p in manager.problems if ".mcp.json has not been approved" not in p]
    return manager, await manager.add(project.servers)


def servers_written_since_start(manager: McpManager | None, settings: Settings,
                                project_root: Path) -> str:
    """What ``/mcp`` adds about a project .mcp.json written (or given servers) after the
    session started: the session neither runs those servers nor reports them, so ``/mcp``
    said "No MCP servers. Add one to … (or a project's .mcp.json)" with one right there.
    "" when every server in the file is known or already reported."""
    project = project_servers(project_root, settings.home)
    if project is None or project.error or not project.servers:
        return ""
    if manager is not None and any(str(project.path) in p for p in manager.problems):
        return ""  # reported at the start (not approved yet)
    known = {s.config.name for s in manager.statuses} if manager is not None else set()
    new = [c for c in project.servers if c.name not in known]
    if not new:
        return ""
    return WRITTEN_SINCE.format(servers=counted(len(new), "server"), path=project.path)
