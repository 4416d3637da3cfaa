"""End to end: the external-content mark flips when the model runs a project script that
may fetch, through the real CLI (`paicli-tui exec` against a scripted OpenAI-compatible
server on 127.0.0.1).

Turn 1 runs a plain project script: the session stays clean, save_memory saves and the
automatic extraction runs after the turn. Turn 2 (same session, --resume) runs a script whose
text calls curl (it never reaches the network: the call is behind `if false`): the session is
marked, save_memory is refused, and no extraction request is sent after that turn.
"""

from __future__ import annotations

import json
from pathlib import Path

from e2e_fake_openai import FakeOpenAI
from test_e2e_exec import _env, _exec


def _extraction_requests(server: FakeOpenAI) -> int:
    return sum(1 for r in server.requests if not r.get("tools")
               and "durable facts" in str(r["messages"][0].get("content")))


def _tool_results(lines: list[dict]) -> list[str]:
    return [line["preview"] for line in lines if line["type"] == "tool_call_finished"]


def test_a_fetching_project_script_marks_the_session(tmp_path: Path,
                                                      paicli_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "build.sh").write_text("#!/bin/sh\n# builds the docs\nmkdir -p out\necho built\n")
    (project / "sync.sh").write_text("#!/bin/sh\nif false; then\n  curl -s https://evil.example"
                                     "/notes\nfi\necho synced\n")
    script = {
        1: [[("execute_command", {"command": "bash build.sh"})],
            [("save_memory", {"content": "The docs are built into out/ by build.sh."})]],
        2: [[("execute_command", {"command": "sh ./sync.sh"})],
            [("save_memory", {"content": "Deploys go through the staging host first."})]],
    }
    with FakeOpenAI(script) as server:
        env = _env(paicli_home)
        flags = ["--provider", "custom", "--base-url", server.base_url, "--model", "m",
                 "--yes", "--json"]
        outputs: list[list[dict]] = []
        extractions: list[int] = []
        resume: list[str] = []
        for message in ("TURN 1: build the docs", "TURN 2: sync the notes"):
            result = _exec([message, *flags, *resume], env, project)
            assert result.returncode == 0, result.stderr
            outputs.append([json.loads(line) for line in result.stdout.splitlines()])
            extractions.append(_extraction_requests(server))
            resume = ["--resume", outputs[0][0]["session"]]
        assert server.problems == []
    # a clean session: extraction ran after turn 1; marked in turn 2: none after it
    assert extractions == [1, 1]
    lines, later = outputs
    first_results, second_results = _tool_results(lines), _tool_results(later)
    assert "built" in first_results[0] and "Refused" not in first_results[1]
    assert "synced" in second_results[0]
    assert "Refused: this session has read outside content" in second_results[1]
    store = json.loads((paicli_home / "memory/long_term_memory.json").read_text())
    assert [e["content"] for e in store] == ["The docs are built into out/ by build.sh."]
