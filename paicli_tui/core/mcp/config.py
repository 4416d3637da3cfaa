"""Which MCP servers to start.

Two sources, in the shapes people already have:
- ``PAICLI_HOME/config.toml``: ``[mcp_servers.<name>]`` tables with ``command``, ``args``,
  ``env``, ``cwd``, ``enabled``, ``startup_timeout_s``, ``tool_timeout_s`` and
  ``allowed_tools`` (tools that run without asking) — the shape Codex uses.
- ``<project>/.mcp.json``: ``{"mcpServers": {"<name>": {"command", "args", "env"}}}`` — the
  shape Claude Code uses. A repository can put anything there, so its servers start only after
  the person approved this project's file once; the approval is remembered by the file's
  content, so a changed file is asked about again.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...config import ConfigError, Settings
from ...file_locks import locked
from ...paths import HomePaths
from ...private_files import replace_private
from ...regular_files import NotRegularFile, read_regular

DEFAULT_STARTUP_TIMEOUT_S = 15.0
DEFAULT_TOOL_TIMEOUT_S = 60.0
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
APPROVALS_FILE = "mcp_project_approvals.json"
MAX_PROJECT_FILE_BYTES = 1_000_000


@dataclass(frozen=True)
class McpServerConfig:
    name: str
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    enabled: bool = True
    startup_timeout_s: float = DEFAULT_STARTUP_TIMEOUT_S
    tool_timeout_s: float = DEFAULT_TOOL_TIMEOUT_S
    allowed_tools: frozenset[str] = frozenset()
    source: str = "config"
    """``config`` (config.toml) or ``project`` (.mcp.json)."""


def _server(name: str, raw: Mapping[str, Any], source: str, where: str) -> McpServerConfig:
    if not _NAME.match(name):
        raise ConfigError(f"{where}: MCP server name {name!r} must be letters, digits, '_' or "
                          "'-' (at most 32)")
    command = raw.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(f"{where}: MCP server {name!r} needs a 'command'")
    args = raw.get("args", [])
    env = raw.get("env", {})
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ConfigError(f"{where}: MCP server {name!r}: 'args' must be a list of strings")
    if not isinstance(env, Mapping) or not all(isinstance(v, str) for v in env.values()):
        raise ConfigError(f"{where}: MCP server {name!r}: 'env' must map names to strings")
    allowed = raw.get("allowed_tools", [])
    if not isinstance(allowed, list) or not all(isinstance(a, str) for a in allowed):
        raise ConfigError(f"{where}: MCP server {name!r}: 'allowed_tools' must be a list")
    timeouts = {}
    for key, default in (("startup_timeout_s", DEFAULT_STARTUP_TIMEOUT_S),
                         ("tool_timeout_s", DEFAULT_TOOL_TIMEOUT_S)):
        value = raw.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e6:
            raise ConfigError(f"{where}: MCP server {name!r}: {key} must be a positive number")
        timeouts[key] = float(value)
    enabled = raw.get("enabled", True)
    if not isinstance(enabled, bool):
        raise ConfigError(f"{where}: MCP server {name!r}: 'enabled' must be true or false")
    cwd = raw.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise ConfigError(f"{where}: MCP server {name!r}: 'cwd' must be a path")
    return McpServerConfig(name=name, command=command, args=tuple(args), env=dict(env),
                           cwd=cwd, enabled=enabled, allowed_tools=frozenset(allowed),
                           source=source, **timeouts)


def servers_from_settings(settings: Settings) -> list[McpServerConfig]:
    """The servers of config.toml, in name order (ConfigError for a malformed table)."""
    where = str(settings.home.config_file)
    return [_server(name, raw, "config", where)
            for name, raw in sorted(settings.mcp_servers.items())]


def readable_servers(settings: Settings) -> tuple[list[McpServerConfig], list[str]]:
    """config.toml's servers that can be read, in name order, and why each other cannot:
    one mistyped table no longer keeps every other server from starting."""
    where = str(settings.home.config_file)
    servers: list[McpServerConfig] = []
    errors: list[str] = []
    for name, raw in sorted(settings.mcp_servers.items()):
        try:
            servers.append(_server(name, raw, "config", where))
        except ConfigError as exc:
            errors.append(str(exc))
    return servers, errors


@dataclass(frozen=True)
class ProjectServers:
    """A project's ``.mcp.json``: its servers and whether the person approved this file."""

    path: Path
    servers: tuple[McpServerConfig, ...]
    digest: str
    approved: bool
    error: str | None = None


def _approvals_path(home: HomePaths) -> Path:
    return home.home / APPROVALS_FILE


def _approvals(home: HomePaths) -> dict[str, str]:
    try:
        data = json.loads(_approvals_path(home).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, str)} if isinstance(data, dict) \
        else {}


def project_servers(project_root: Path, home: HomePaths) -> ProjectServers | None:
    """The project's .mcp.json, or None when there is none."""
    path = project_root / ".mcp.json"
    try:
        raw_bytes, whole = read_regular(path, MAX_PROJECT_FILE_BYTES)
    except NotRegularFile:  # a FIFO here held the session's start forever
        return ProjectServers(path, (), "", False, error=f"{path} is not a regular file")
    except OSError:
        return None
    digest = hashlib.sha256(raw_bytes).hexdigest()
    approved = _approvals(home).get(str(project_root)) == digest
    if not whole:
        return ProjectServers(path, (), digest, False,
                              error=f"{path} is larger than {MAX_PROJECT_FILE_BYTES:,} bytes")
    try:
        data = json.loads(raw_bytes.decode("utf-8"))
        table = data.get("mcpServers") if isinstance(data, dict) else None
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: expected {{\"mcpServers\": {{...}}}}")
        servers = tuple(_server(name, raw if isinstance(raw, dict) else {}, "project",
                                str(path)) for name, raw in sorted(table.items()))
    except (ValueError, ConfigError) as exc:
        return ProjectServers(path, (), digest, approved, error=str(exc))
    return ProjectServers(path, servers, digest, approved)


def approve_project_servers(project_root: Path, home: HomePaths, digest: str) -> None:
    """Remember that the person trusts this exact .mcp.json for this project (under the
    file's lock: two apps approving at once each kept only their own project)."""
    path = _approvals_path(home)
    with locked(path):
        approvals = _approvals(home)
        approvals[str(project_root)] = digest
        replace_private(path, json.dumps(approvals, indent=2, sort_keys=True).encode("utf-8"))
