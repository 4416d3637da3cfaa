"""Attack table, an MCP server that outlives the app: written with the official SDK, it stays
running when its stdin ends and ignores SIGTERM and SIGHUP. A normal close killed its tree,
but when the app itself was killed (SIGKILL, the OOM killer, a crashed terminal) nothing was
left to do it and the server ran on for good. Each server now runs under the process
supervisor, whose lifeline is the app. Multi-process: a real app process starts the server
through the session's own code, the test kills that process and waits for the server."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

SERVER = str(Path(__file__).parents[1] / "doubles" / "mcp_demo_server.py")
DEADLINE_S = 30
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")]

APP = textwrap.dedent("""
    import asyncio, dataclasses, sys
    from pathlib import Path
    from paicli_tui.config import load_settings
    from paicli_tui.core.mcp import servers_from_settings
    from paicli_tui.core.mcp.manager import McpManager

    home, project, server, pid_file = sys.argv[1:5]
    settings = dataclasses.replace(
        load_settings({}, {"PAICLI_HOME": home}),
        mcp_servers={"careless": {"command": sys.executable,
                                  "args": [server, "--ignore-eof", pid_file]}})

    async def main():
        manager = await McpManager.start(servers_from_settings(settings),
                                         project_root=Path(project),
                                         logs_dir=settings.home.logs_dir)
        print(manager.statuses[0].state, manager.statuses[0].error or "", flush=True)
        if sys.argv[5] == "close":
            await manager.aclose()
            print("closed", flush=True)
        await asyncio.sleep(600)

    asyncio.run(main())
""")


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie waiting to be reaped."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state != b"Z"


def _parent_of(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _line(process: subprocess.Popen) -> str:
    ready, _, _ = select.select([process.stdout], [], [], 60)
    assert ready, "the app printed nothing within 60 s"
    return process.stdout.readline().strip()


def _gone_within_deadline(*pids: int) -> bool:
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        if not any(_alive(pid) for pid in pids):
            return True
        time.sleep(0.05)
    return False


def _start_app(tmp_path: Path, mode: str) -> tuple[subprocess.Popen, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    pid_file = tmp_path / "server.pid"
    app = subprocess.Popen([sys.executable, "-c", APP, str(home), str(project), SERVER,
                            str(pid_file), mode], stdout=subprocess.PIPE, text=True)
    return app, pid_file


@pytest.mark.parametrize("mode", ["kill", "close"])
def test_a_server_ignoring_eof_ends_with_the_app(tmp_path, mode) -> None:
    # kill: the app is SIGKILLed with the server running; close: the app closes its servers
    # the normal way (stdin closed, then SIGTERM, which this server ignores).
    app, pid_file = _start_app(tmp_path, mode)
    server = None
    try:
        assert _line(app) == "running"
        server = int(pid_file.read_text())
        supervisor = _parent_of(server)
        assert _alive(server)
        if mode == "kill":
            app.kill()
            app.wait()
        else:
            assert _line(app) == "closed"
        watched = [server] + ([supervisor] if supervisor and supervisor != app.pid else [])
        assert _gone_within_deadline(*watched), (
            f"the server ({server}) still runs {DEADLINE_S} s after the app was "
            f"{'killed' if mode == 'kill' else 'closed'}")
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
        if server is not None and _alive(server):
            os.kill(server, signal.SIGKILL)
