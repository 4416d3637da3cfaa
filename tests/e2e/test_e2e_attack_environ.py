"""Attack through the real CLI: a command the model runs climbs to the app's own process and
reads the key from its environment (`/proc/<app pid>/environ`), where the person exported
it. The command's own environment holds no key (tests/hostile/test_attack_commands.py), but
the app's did: `gzip | base64` of it got past the output redaction whole.

The app must run as an ordinary user for this to mean anything (root reads every process's
files), so as root the run is made as `nobody` with a Python that user can start; without
one the test is skipped, never passed."""

from __future__ import annotations

import base64
import gzip
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest
from e2e_fake_openai import FakeOpenAI
from test_e2e_exec import _env

KEY = "sk-live-4Tq8Wm2Zr6Yp9Kc3Vn7Xb5"
NOBODY = 65534
CLIMB = ("p=$(awk '{print $4}' /proc/$PPID/stat); tr '\\0' ' ' < /proc/$p/cmdline > app.txt; "
         "gzip -c < /proc/$p/environ | base64 > leak.b64; echo climbed")
"""The command's parent is the command supervisor; the supervisor's parent is the app."""

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="/proc/<pid>/environ is Linux's")


def _as_ordinary_user(base: Path) -> list[str] | None:
    """The command prefix that starts Python as an ordinary user (None: impossible here)."""
    if os.geteuid() != 0:
        return [sys.executable]
    setpriv = shutil.which("setpriv")
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    python = next((p for p in (f"/usr/bin/{version}", f"/usr/local/bin/{version}")
                   if os.access(p, os.X_OK)), None)
    if setpriv is None or python is None:
        return None
    site = sysconfig.get_paths()["purelib"]  # this venv's packages (the editable install)
    starter = base / "start.py"
    starter.write_text(f"import runpy, site, sys\nsite.addsitedir({site!r})\n"
                       "runpy.run_module('paicli_tui', run_name='__main__', alter_sys=True)\n")
    prefix = [setpriv, "--reuid", str(NOBODY), "--regid", str(NOBODY), "--clear-groups",
              python, str(starter)]
    probe = subprocess.run([*prefix, "--version"], capture_output=True, text=True,
                           timeout=60, cwd=base)
    return prefix if probe.returncode == 0 else None


def _shared_folder(path: Path) -> Path:
    path.mkdir()
    if os.geteuid() == 0:
        os.chown(path, NOBODY, NOBODY)
    return path


def test_a_command_cannot_read_the_key_from_the_apps_own_environment() -> None:
    base = Path(tempfile.mkdtemp(prefix="paicli-environ-"))  # not under root's own 0700 tmp
    try:
        os.chmod(base, 0o755)
        python = _as_ordinary_user(base)
        if python is None:
            pytest.skip("running as root without setpriv or a Python 'nobody' can start")
        project, home = _shared_folder(base / "project"), _shared_folder(base / "home")
        script = {1: [[("execute_command", {"command": CLIMB})]]}
        with FakeOpenAI(script, api_key=KEY) as server:
            run = subprocess.run(
                [*python, "exec", "TURN 1: look around", "--provider", "custom",
                 "--base-url", server.base_url, "--model", "m", "--yes"],
                cwd=project, env=_env(home, PAICLI_API_KEY=KEY, HOME=str(home)),
                capture_output=True, text=True, timeout=180)
            assert run.returncode == 0, run.stderr
            assert server.problems == []
        # the climb reached the app itself (else the test would pass for a wrong reason)
        climbed_to = (project / "app.txt").read_text()
        assert "paicli_tui" in climbed_to or "start.py" in climbed_to
        leaked = gzip.decompress(base64.b64decode((project / "leak.b64").read_text()))
        assert KEY.encode() not in leaked
        assert leaked == b""  # nothing of the app's environment at all
    finally:
        shutil.rmtree(base, ignore_errors=True)
