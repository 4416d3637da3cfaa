"""``paicli-tui mcp list``: the MCP servers a session here would start, each started once to
see whether it runs and which tools it offers, then stopped, so a person can check their MCP
configuration without opening the TUI. Exit code 1 when a server does not start or the
configuration cannot be read."""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import Settings
from .conventions import EXIT_ERROR, EXIT_OK, add_actions
from .printable import printable

if TYPE_CHECKING:
    from ..core.mcp.session_start import ConfiguredServers
    from ..core.mcp.status import ServerStatus

HELP = ("MCP servers: `list` starts each server a session in this project would start "
        "(config.toml's, and the project's .mcp.json once approved in the TUI), says whether "
        "it runs, its tools and why it failed, then stops them. Exit code 1 when one does not "
        "start or the configuration cannot be read.")


def configure(parser: argparse.ArgumentParser) -> None:
    actions, common = add_actions(parser)
    actions.add_parser("list", parents=[common],
                       help="start each server once: state, tools, errors")


def run(args: argparse.Namespace, settings: Settings) -> int:
    from ..core.mcp.session_start import configured_servers
    from ..paths import normalise_project_root

    root = normalise_project_root(Path(args.project or "."))
    found = configured_servers(settings, root)
    masked = _masker(settings)
    servers = asyncio.run(_checked(found, settings, root, masked)) if found.configs else []
    errors = [masked(error) for error in found.errors]
    failed = any(s["state"] == "failed" for s in servers) or bool(errors)
    if args.json:
        print(json.dumps({"servers": servers, "errors": errors,
                          "not_approved": found.not_approved or None, "ok": not failed},
                         ensure_ascii=False))
    else:
        print(printable(_text(servers, errors, found, settings)))
    return EXIT_ERROR if failed else EXIT_OK


async def _checked(found: ConfiguredServers, settings: Settings, root: Path,
                   masked: Callable[[str], str]) -> list[dict[str, Any]]:
    """Each server started as a session starts it and read (state, tools, error) before all
    are stopped."""
    from ..core.mcp.manager import McpManager

    manager = await McpManager.start(found.configs, project_root=root,
                                     logs_dir=settings.home.logs_dir)
    try:
        return [_server_json(status, masked) for status in manager.statuses]
    finally:
        await manager.aclose()


def _masker(settings: Settings) -> Callable[[str], str]:
    """Masks the provider keys the program knows in a server's words (a server never gets
    them, but a person's env may hold one); the server's own env values are masked
    already."""
    from ..core.llm.redact import redact_known

    secrets = settings.secrets()
    return lambda text: redact_known(text, secrets)


def _server_json(status: ServerStatus, masked: Callable[[str], str]) -> dict[str, Any]:
    config = status.config
    return {"name": config.name,
            "source": "config.toml" if config.source == "config" else ".mcp.json",
            "state": status.state,
            "tools": [{"name": t.name, "server_tool": getattr(t, "remote_name", t.name),
                       "asks_approval": t.requires_approval} for t in status.tools],
            "error": masked(status.error) if status.error else None,
            "log": str(status.log_path) if status.log_path and status.state == "failed"
            else None}


def _text(servers: list[dict[str, Any]], errors: list[str], found: ConfiguredServers,
          settings: Settings) -> str:
    if not servers and not errors and not found.not_approved:
        return (f"No MCP servers. Add one to {settings.home.config_file} (or a project's "
                ".mcp.json): [mcp_servers.NAME] with command and args.")
    lines = []
    for server in servers:
        tools = f", {len(server['tools'])} tools" if server["state"] == "running" else ""
        lines.append(f"{server['name']} ({server['source']}): {server['state']}{tools}")
        if server["tools"]:
            lines.append("  " + ", ".join(t["name"] for t in server["tools"]))
        if server["error"]:
            lines.append(f"  error: {server['error']}")
        if server["log"]:
            lines.append(f"  log: {server['log']}")
    lines += [f"error: {error}" for error in errors]
    if found.not_approved:
        lines.append(found.not_approved)
    return "\n".join(lines)
