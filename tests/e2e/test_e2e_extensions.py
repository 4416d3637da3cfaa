"""End to end: skills, AGENTS.md, an MCP server and web_fetch through `paicli-tui exec`
against the local OpenAI-compatible server, then the external-content guard on save_memory."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from doubles.web_server import web_server
from e2e_cli import run_cli
from e2e_fake_openai import FakeOpenAI

MCP_SERVER = Path(__file__).resolve().parents[1] / "doubles" / "mcp_demo_server.py"


def _exec(args: list[str], home: Path, cwd: Path) -> subprocess.CompletedProcess:
    return run_cli("exec", args, home, cwd)


@pytest.mark.slow
def test_skill_mcp_and_web_in_one_session(tmp_path: Path, paicli_home: Path) -> None:
    project = tmp_path / "project"
    skill = project / ".paicli" / "skills" / "release" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: release\ndescription: How this team cuts a release.\n---\n"
                     "Tag as vX.Y.Z and update CHANGES.md first.\n")
    (project / "AGENTS.md").write_text("Run the tests with `make check`.\n")
    (paicli_home / "config.toml").write_text(
        f'[mcp_servers.demo]\ncommand = {json.dumps(sys.executable)}\n'
        f'args = [{json.dumps(str(MCP_SERVER))}]\n')
    with web_server() as web:
        script = {1: [[("load_skill", {"name": "release"})],
                      [("mcp__demo__add", {"a": 20, "b": 22}),
                       ("web_fetch", {"url": f"{web}/page"})]],
                  2: [[("save_memory", {"content": "Releases are tagged vX.Y.Z."})]]}
        with FakeOpenAI(script) as server:
            flags = ["--provider", "custom", "--base-url", server.base_url, "--model", "m",
                     "--yes", "--json"]
            first = _exec(["TURN 1: cut a release", *flags], paicli_home, project)
            assert first.returncode == 0, first.stderr
            events = [json.loads(line) for line in first.stdout.splitlines()]
            session = events[0]["session"]
            second = _exec(["TURN 2: note the tag format", *flags, "--resume", session],
                           paicli_home, project)
            assert second.returncode == 0, second.stderr
            assert server.problems == []
            agent = [r for r in server.requests if r.get("tools")]
    system = agent[0]["messages"][0]["content"]
    assert "make check" in system and "- release: How this team cuts a release." in system
    names = {t["function"]["name"] for t in agent[0]["tools"]}
    assert {"load_skill", "web_fetch", "mcp__demo__add"} <= names
    after_skill = agent[1]["messages"]
    assert any(m["role"] == "user" and "Tag as vX.Y.Z" in m["content"] for m in after_skill)
    last = agent[2]["messages"]
    tool_texts = [m["content"] for m in last if m["role"] == "tool"]
    assert any("\n42\n" in t for t in tool_texts)
    assert any("# Retries" in t and "untrusted-data" in t for t in tool_texts)
    finished = [json.loads(line) for line in second.stdout.splitlines()
                if '"tool_call_finished"' in line]
    save = next(e for e in finished if e["name"] == "save_memory")
    assert save["status"] == "denied" and "Refused" in save["preview"]  # the guard held


@pytest.mark.slow
def test_exec_plan_runs_tasks_as_subagents_and_emits_their_events(tmp_path: Path,
                                                                   paicli_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    plan = json.dumps({"tasks": [
        {"id": "scan", "title": "Scan the code", "task": "List the files.", "depends_on": []},
        {"id": "docs", "title": "Read the docs", "task": "Read README.", "depends_on": []},
        {"id": "report", "title": "Report", "task": "Join both.",
         "depends_on": ["scan", "docs"]}]})
    with FakeOpenAI({1: []}) as server:
        server.plan = plan
        flags = ["--provider", "custom", "--base-url", server.base_url, "--model", "m",
                 "--json", "--plan"]
        shown = _exec(["TURN 1: tidy the project", *flags], paicli_home, project)
        assert shown.returncode == 0, shown.stderr
        kinds = [json.loads(line)["type"] for line in shown.stdout.splitlines()]
        assert "plan_proposed" in kinds and "plan_task_started" not in kinds
        assert "add --yes" in shown.stderr
        ran = _exec(["TURN 1: tidy the project", *flags, "--yes"], paicli_home, project)
        assert ran.returncode == 0, ran.stderr
        assert server.problems == []
    events = [json.loads(line) for line in ran.stdout.splitlines()]
    session = events[0]["session"]
    started = [e for e in events if e["type"] == "plan_task_started"]
    assert [e["task_id"] for e in started][-1] == "report"
    assert all(e["parent"] == session and e["subagent"].startswith(session + ".sub-")
               for e in started)
    finished = next(e for e in events if e["type"] == "plan_finished")
    assert (finished["status"], finished["done"], finished["total"]) == ("done", 3, 3)
    subagents = {e["task_id"]: e["subagent"] for e in events if e["type"] == "subagent_started"}
    assert subagents == {e["task_id"]: e["subagent"] for e in started}
    ended = [e for e in events if e["type"] == "subagent_finished"]
    assert sorted(e["subagent"] for e in ended) == sorted(subagents.values())
    assert all(e["status"] == "done" and e["requests"] >= 1 for e in ended)
    steps = [e for e in events if e["type"] == "subagent_step"]
    assert steps and all(e["event"]["type"] and e["parent"] == session for e in steps)
    assert events[-1]["type"] == "turn_finished" and "3 of 3 tasks done" in events[-1][
        "final_text"]
