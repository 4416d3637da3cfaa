"""An MCP server closed by the app gets its SIGTERM, as before the supervisor (3b770c1).

The SDK closes a server by closing its stdin, then SIGTERM to the process it started, then
SIGKILL two seconds later. Since servers run under the process supervisor, that process is
the supervisor, and the server (in a group of its own) was killed outright: a server that
tidies up on SIGTERM (a lock file, a database it writes) never got to. Multi-process: a real
SDK server, started and closed through the session's own code."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from paicli_tui.core.mcp import servers_from_settings
from paicli_tui.core.mcp.manager import McpManager

SERVER = str(Path(__file__).parents[1] / "doubles" / "mcp_demo_server.py")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")]


async def test_a_closed_server_gets_its_sigterm(settings, project_dir, tmp_path) -> None:
    note = tmp_path / "tidied.txt"
    settings = dataclasses.replace(settings, mcp_servers={"tidy": {
        "command": sys.executable, "args": [SERVER, "--tidy-on-term", str(note)]}})
    manager = await McpManager.start(servers_from_settings(settings), project_root=project_dir,
                                     logs_dir=settings.home.logs_dir)
    assert manager.statuses[0].state == "running", manager.statuses[0].error
    await manager.aclose()
    assert note.exists() and note.read_text() == "tidied", "the server was killed unwarned"
