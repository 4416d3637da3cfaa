"""Which servers a session starts: config.toml's, plus the project's approved .mcp.json."""

from __future__ import annotations

from pathlib import Path

from ...config import ConfigError, Settings
from ..plural import counted
from .config import approve_project_servers, project_servers, servers_from_settings
from .manager import McpManager
from .status import ServerStatus, markdown_literal

NOT_APPROVED = ("{servers} in {path} not started: this project's .mcp.json has not been "
                "approved (it can run any command). Review it, then `/mcp approve`.")

WRITTEN_SINCE = ("{servers} in {path} not started: the file was written after this session "
                 "started. Review it, then `/mcp approve`.")


async def start_mcp(settings: Settings, project_root: Path) -> McpManager | None:
    """The session's MCP servers, started; None when nothing is configured anywhere."""
    problems: list[str] = []
    try:
        configs = servers_from_settings(settings)
    except ConfigError as exc:
        configs, problems = [], [markdown_literal(str(exc))]
    project = project_servers(project_root, settings.home)
    if project is not None:
        if project.error:  # the file's own words (a server name) shown as text
            problems.append(markdown_literal(project.error))
        elif project.approved:
            names = {c.name for c in configs}
            configs += [c for c in project.servers if c.name not in names]
        elif project.servers:
            problems.append(NOT_APPROVED.format(servers=counted(len(project.servers), "server"),
                                                path=project.path))
    if not configs and not problems:
        return None
    return await McpManager.start(configs, project_root=project_root,
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
