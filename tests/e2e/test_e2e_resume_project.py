"""`--resume` is per project, as in Claude Code: a session started in one folder and resumed
from another was continued there silently, its tools then reading and writing the wrong
tree. `exec --resume` (and the TUI's `--resume ID`) of another project's session now
refuses with a usage error naming the session's folder and the command that resumes it
there; `--project` pointing at that folder resumes it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from e2e_fake_openai import FakeOpenAI
from test_e2e_exec import _env, _exec

SCRIPT = {1: [[("write_file", {"path": "note.txt", "content": "one"})]],
          2: [[("write_file", {"path": "note.txt", "content": "two"})]]}


def test_resume_of_another_projects_session_is_refused_unless_project_points_there(
        tmp_path: Path, paicli_home: Path) -> None:
    first, second = (tmp_path / "first").resolve(), (tmp_path / "second").resolve()
    first.mkdir()
    second.mkdir()
    with FakeOpenAI(SCRIPT) as server:
        env = _env(paicli_home)
        flags = ["--provider", "custom", "--base-url", server.base_url, "--model", "m",
                 "--yes"]
        started = _exec(["TURN 1: write note.txt", *flags, "--json"], env, first)
        assert started.returncode == 0, started.stderr
        session = json.loads(started.stdout.splitlines()[0])["session"]
        assert (first / "note.txt").read_text() == "one"

        refused = _exec(["TURN 2: write note.txt again", *flags, "--resume", session], env,
                        second)
        assert refused.returncode == 2
        said = refused.stderr.strip()
        assert said == (f"paicli-tui exec: session {session} belongs to another project, "
                        f"{first}; this is {second}. Resume it there: paicli-tui exec "
                        f"--resume {session} --project {first}")
        assert not (second / "note.txt").exists()

        as_json = _exec(["TURN 2: x", *flags, "--resume", session, "--json"], env, second)
        event = json.loads(as_json.stdout.splitlines()[0])
        assert (as_json.returncode, event["type"], event["exit_code"]) == (2, "error", 2)
        assert str(first) in event["message"]

        there = _exec(["TURN 2: write note.txt again", *flags, "--resume", session,
                       "--project", str(first)], env, second)
        assert there.returncode == 0, there.stderr
        assert (first / "note.txt").read_text() == "two"
        assert not (second / "note.txt").exists()
        assert server.problems == []


def test_the_tui_resume_flag_refuses_another_projects_session_before_the_screen(
        tmp_path: Path, paicli_home: Path) -> None:
    from paicli_tui.core.context.ledger import SessionLedger
    from paicli_tui.core.messages import Message
    from paicli_tui.paths import HomePaths

    first, second = (tmp_path / "first").resolve(), (tmp_path / "second").resolve()
    first.mkdir()
    second.mkdir()
    ledger = SessionLedger.create(HomePaths(paicli_home), first, "Rename the parser")
    ledger.append(Message.user("Rename the parser"))
    ledger.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAICLI_")}
    env["PAICLI_HOME"] = str(paicli_home)
    done = subprocess.run([sys.executable, "-m", "paicli_tui", "--resume", ledger.session_id],
                          cwd=second, env=env, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"paicli-tui: session {ledger.session_id} belongs to another project, {first}; this "
        f"is {second}. Resume it there: paicli-tui --resume {ledger.session_id} "
        f"--project {first}")
