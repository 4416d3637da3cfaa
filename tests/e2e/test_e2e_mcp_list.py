"""End to end: `paicli-tui mcp list` checks the MCP configuration without the TUI, against a
real server written with the MCP SDK: each server started once, whether it runs, its tools,
a failure's error with the server's env values masked, and an exit code a script can test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from e2e_cli import run_cli

MCP_SERVER = Path(__file__).resolve().parents[1] / "doubles" / "mcp_demo_server.py"
TOKEN = "tok-4f9a1c77e2b8"
# a server that quotes its token on a failed login and exits
LEAKS = ("import os, sys; print('fatal: login refused for', os.environ['TOKEN'], "
         "file=sys.stderr); sys.exit(3)")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")]


def mcp(args: list[str], home: Path, cwd: Path) -> subprocess.CompletedProcess:
    return run_cli("mcp", args, home, cwd)


def server(name: str, *args: str, more: str = "") -> str:
    return (f"[mcp_servers.{name}]\ncommand = {json.dumps(sys.executable)}\n"
            f"args = {json.dumps(list(args))}\n{more}")


def test_mcp_list_starts_each_server_and_says_which_failed(tmp_path: Path,
                                                           paicli_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (paicli_home / "config.toml").write_text(
        server("demo", str(MCP_SERVER), more='allowed_tools = ["add"]\n')
        + server("login", "-c", LEAKS, more=f'env = {{ TOKEN = "{TOKEN}" }}\n')
        + '[mcp_servers.off]\ncommand = "nowhere"\nenabled = false\n')
    (project / ".mcp.json").write_text(json.dumps(
        {"mcpServers": {"theirs": {"command": "rm", "args": ["-rf", "x"]}}}))

    done = mcp(["list"], paicli_home, project)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert "demo (config.toml): running, 8 tools" in lines
    assert "  mcp__demo__add, mcp__demo__visible_env" in "\n".join(lines)
    assert "login (config.toml): failed" in lines
    assert any(line.startswith("  error: ") and "fatal: login refused for ****" in line
               for line in lines)
    assert f"  log: {paicli_home / 'logs' / 'mcp-login.log'}" in lines
    assert "off (config.toml): disabled" in lines
    assert any("1 server in" in line and "not started" in line and "/mcp approve" in line
               for line in lines), "the unapproved .mcp.json is named, not started"
    assert TOKEN not in done.stdout + done.stderr

    done = mcp(["list", "--json"], paicli_home, project)
    assert done.returncode == 1
    data = json.loads(done.stdout)
    states = {s["name"]: s["state"] for s in data["servers"]}
    assert states == {"demo": "running", "login": "failed", "off": "disabled"}
    [demo] = [s for s in data["servers"] if s["name"] == "demo"]
    assert {"name": "mcp__demo__add", "server_tool": "add", "asks_approval": False} \
        in demo["tools"]
    assert {"name": "mcp__demo__pid", "server_tool": "pid", "asks_approval": True} \
        in demo["tools"]
    assert data["ok"] is False and data["errors"] == [] and "not started" in data["not_approved"]
    assert TOKEN not in done.stdout


def test_mcp_list_exit_codes(tmp_path: Path, paicli_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    done = mcp(["list"], paicli_home, project)
    assert done.returncode == 0
    assert done.stdout.startswith(f"No MCP servers. Add one to {paicli_home / 'config.toml'}")

    (paicli_home / "config.toml").write_text(server("demo", str(MCP_SERVER)))
    done = mcp(["list", "--json"], paicli_home, project)
    assert done.returncode == 0 and json.loads(done.stdout)["ok"] is True

    (paicli_home / "config.toml").write_text('[mcp_servers.bad]\nargs = ["x"]\n')
    done = mcp(["list"], paicli_home, project)
    assert done.returncode == 1 and "error: " in done.stdout and "bad" in done.stdout

    done = mcp([], paicli_home, project)  # no action: a usage error
    assert done.returncode == 2 and "ACTION" in done.stderr
