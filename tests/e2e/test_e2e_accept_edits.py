"""`paicli-tui exec --accept-edits` end to end: the file change goes ahead, the command is
refused and the refusal says what would allow it; --json marks how the write was approved."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from e2e_fake_openai import FakeOpenAI


def test_exec_accept_edits_writes_files_and_still_refuses_commands(tmp_path: Path,
                                                                    paicli_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    script = {1: [[("write_file", {"path": "out.txt", "content": "hi\n"}),
                   ("execute_command", {"command": "touch by-command"})]]}
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PAICLI_", "OLLAMA_")) and not k.endswith("_API_KEY")}
    env.update(PAICLI_HOME=str(paicli_home))
    with FakeOpenAI(script) as server:
        base = [sys.executable, "-m", "paicli_tui", "exec", "TURN 1: write and run",
                "--provider", "custom", "--base-url", server.base_url, "--model", "m",
                "--accept-edits"]
        text = subprocess.run(base, cwd=project, env=env, capture_output=True, text=True,
                              timeout=120)
        assert text.returncode == 0, text.stderr
        assert (project / "out.txt").read_text() == "hi\n"
        assert not (project / "by-command").exists()
        assert ("--accept-edits approves file changes only; add --yes to allow commands"
                in text.stderr)
        (project / "out.txt").unlink()
        as_json = subprocess.run([*base, "--json"], cwd=project, env=env,
                                 capture_output=True, text=True, timeout=120)
        assert as_json.returncode == 0, as_json.stderr
        assert server.problems == []
    finished = {e["name"]: e for e in map(json.loads, as_json.stdout.splitlines())
                if e["type"] == "tool_call_finished"}
    assert finished["write_file"]["status"] == "done"
    assert finished["write_file"]["permission"] == "accept-edits"
    assert finished["execute_command"]["status"] == "denied"
