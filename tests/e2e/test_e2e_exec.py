"""End to end: `paicli-tui exec` as a subprocess against a local OpenAI-compatible server.

The whole path is real: flags → settings → registry → httpx → SSE → tools → offload →
compaction → ledger → --resume. A four-turn task in a 16k window with large tool outputs
makes all three compaction tiers happen; the server validates every request it receives.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from e2e_fake_openai import FakeOpenAI

from paicli_tui.config import load_settings
from paicli_tui.core.context.ledger import SessionLedger

KEY = "e2e-secret-key-0123456789"


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PAICLI_", "OLLAMA_")) and not k.endswith("_API_KEY")}
    env.update(PAICLI_HOME=str(home), RUST_LOG="error", **extra)
    return env


def _exec(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paicli_tui", "exec", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=120)


def _project(root: Path) -> Path:
    root.mkdir()
    (root / "gen.py").write_text("for i in range(600):\n    print(f'log line {i:04d} ' + "
                                 "'=' * 40)\n")
    for i in range(1, 11):
        body = "".join(f"d{i} record {n:03d}: " + "lorem ipsum " * 6 + "\n" for n in range(110))
        (root / f"d{i}.txt").write_text(body)
    return root


SCRIPT = {
    1: [[("execute_command", {"command": "python3 gen.py"})],
        [("read_file", {"path": "d1.txt"}), ("read_file", {"path": "d2.txt"})],
        [("read_file", {"path": "d3.txt"})]],
    2: [[("read_file", {"path": "d4.txt"}), ("list_dir", {"path": "."})],
        [("read_file", {"path": "d5.txt"})]],
    3: [[("read_file", {"path": "d6.txt"}), ("read_file", {"path": "d7.txt"})]],
    4: [[("read_file", {"path": "d8.txt"})], [("read_file", {"path": "d9.txt"})],
        [("read_file", {"path": "d10.txt"})]],
}


@pytest.mark.slow
def test_long_task_in_small_window_runs_all_tiers(tmp_path: Path, paicli_home: Path) -> None:
    project = _project(tmp_path / "project")
    with FakeOpenAI(SCRIPT, api_key=KEY) as server:
        env = _env(paicli_home, PAICLI_API_KEY=KEY)
        flags = ["--provider", "custom", "--base-url", server.base_url, "--model", "fake-1",
                 "--window", "16000", "--yes", "--json"]
        first = _exec(["TURN 1: run gen.py and read d1-d3", *flags], env, project)
        assert first.returncode == 0, first.stderr
        lines = [json.loads(line) for line in first.stdout.splitlines()]
        session = lines[0]["session"]
        assert session and lines[-1]["session"] == session
        assert lines[0]["type"] == "turn_started" and lines[-1]["type"] == "turn_finished"
        assert lines[-1]["final_text"] == "Turn 1 is complete."
        assert all(line["session"] == session for line in lines)
        outputs = []
        for turn in (2, 3, 4):
            result = _exec([f"TURN {turn}: keep reading", *flags, "--resume", session], env,
                           project)
            assert result.returncode == 0, result.stderr
            outputs += [json.loads(line) for line in result.stdout.splitlines()]
        assert server.problems == []
        assert server.summary_calls >= 1
    tiers = {e["tier"] for e in [*lines, *outputs] if e["type"] == "context_compacted"}
    assert tiers == {"offload", "clearing", "summary"}
    saved = list((project / ".paicli/tool-outputs" / session).glob("*-execute_command.txt"))
    assert saved and saved[0].read_text().count("log line") == 600
    ledger = SessionLedger.open(load_settings({}, {"PAICLI_HOME": str(paicli_home)}).home,
                                session)
    history = {e["tier"] for e in ledger.compaction_history()}
    assert {"clearing", "summary"} <= history
    restored = ledger.restore()
    assert restored.warnings == [] and restored.title.startswith("TURN 1")
    text = ledger.path.read_text()
    assert KEY not in text and KEY not in first.stderr
    # the system prompt is byte-identical in every agent request, across all four processes
    agent_requests = [r for r in server.requests if r.get("tools")]
    assert len(agent_requests) >= 12
    assert len({json.dumps(r["messages"][0]) for r in agent_requests}) == 1
    # and so are the tool schemas (part of the cached prefix too)
    assert len({json.dumps(r["tools"]) for r in agent_requests}) == 1


def test_plain_text_mode_and_resume_errors(tmp_path: Path, paicli_home: Path) -> None:
    project = _project(tmp_path / "project")
    script = {1: [[("write_file", {"path": "out.txt", "content": "hi"})]]}
    with FakeOpenAI(script) as server:
        env = _env(paicli_home)
        flags = ["--provider", "custom", "--base-url", server.base_url, "--model", "m"]
        result = _exec(["TURN 1: write out.txt", *flags], env, project)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == "Turn 1 is complete."
        assert "write_file" in result.stderr and "denied" in result.stderr
        assert "add --yes to allow them" in result.stderr  # the denial says what to do
        assert "session: " in result.stderr
        assert not (project / "out.txt").exists()  # no --yes: writes are refused
        missing = _exec(["TURN 1", *flags, "--resume", "no-such-session"], env, project)
        assert missing.returncode == 2 and "no-such-session" in missing.stderr
        assert server.problems == []


def test_no_model_configured_exits_1_with_instructions(tmp_path: Path,
                                                       paicli_home: Path) -> None:
    result = _exec(["hello"], _env(paicli_home), tmp_path)
    assert result.returncode == 1
    assert "no model is configured" in result.stderr and "DEEPSEEK_API_KEY" in result.stderr
    assert "paicli-tui --help, docs/providers.md" in result.stderr
    assert "start paicli-tui again" not in result.stderr


def test_usage_errors_exit_2(tmp_path: Path, paicli_home: Path) -> None:
    env = _env(paicli_home)
    assert _exec(["   "], env, tmp_path).returncode == 2
    assert _exec(["x", "--max-turns", "0"], env, tmp_path).returncode == 2
    assert _exec(["x", "--project", str(tmp_path / "missing")], env, tmp_path).returncode == 2
    assert _exec([], env, tmp_path).returncode == 2
    unknown = _exec(["x", "--provider", "nope"], env, tmp_path)
    assert unknown.returncode == 2 and "known: deepseek" in unknown.stderr


@pytest.mark.parametrize("args", [[], ["   "]])
def test_an_empty_prompt_says_how_to_pass_one(tmp_path: Path, paicli_home: Path,
                                              args: list[str]) -> None:
    """`paicli-tui exec` without a task said only "the prompt is empty"; it now says how to
    give one, and still exits 2 (a usage error)."""
    result = _exec(args, _env(paicli_home), tmp_path)
    assert result.returncode == 2
    assert result.stderr == ('paicli-tui exec: the prompt is empty: pass the task as an '
                             'argument, paicli-tui exec "your task", or - to read it from '
                             'standard input\n')


@pytest.mark.parametrize(("args", "code", "says"), [
    (["hello"], 1, "no model is configured"),
    (["   "], 2, "the prompt is empty"),
    (["x", "--max-turns", "0"], 2, "--max-turns must be at least 1"),
    (["x", "--project", "missing"], 2, "does not exist"),
    (["x", "--provider", "nope"], 2, "known: deepseek"),
    (["x", "--resume", "no-such-session"], 2, "no-such-session"),
    (["--plan-continue"], 2, "--plan-continue needs --resume SESSION"),
    # argparse's own usage errors: a script's empty or mistyped variable
    (["x", "--max-turns", "many"], 2, "argument --max-turns: invalid int value: 'many'"),
    (["x", "--no-such-flag"], 2, "unrecognized arguments: --no-such-flag"),
])
def test_json_mode_says_why_a_task_did_not_start_on_stdout(
        tmp_path: Path, paicli_home: Path, args: list[str], code: int, says: str) -> None:
    """A script reading `exec --json` from stdout gets one `error` line (no session yet:
    null) with the exit code, not an empty stream; the person still reads it on stderr."""
    result = _exec([*args, "--json"], _env(paicli_home), tmp_path)
    assert result.returncode == code
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout
    event = json.loads(lines[0])
    assert event["type"] == "error" and event["session"] is None
    assert event["exit_code"] == code and event["recoverable"] is False
    assert says in event["message"] and says.split()[0] in result.stderr


def test_a_broken_config_is_a_json_error_too(tmp_path: Path, paicli_home: Path) -> None:
    """A config.toml that does not parse stops exec (2) and, with --json, says so on stdout
    as an event; other sub-commands keep their `status: error` object."""
    (paicli_home / "config.toml").write_text("provider = [\n", encoding="utf-8")
    result = _exec(["x", "--json"], _env(paicli_home), tmp_path)
    assert result.returncode == 2
    event = json.loads(result.stdout)
    assert event["type"] == "error" and event["session"] is None
    assert "config.toml" in event["message"] and "config.toml" in result.stderr
    memory = subprocess.run([sys.executable, "-m", "paicli_tui", "memory", "list", "--json"],
                            cwd=tmp_path, env=_env(paicli_home), capture_output=True,
                            text=True, timeout=60)
    assert memory.returncode == 2
    record = json.loads(memory.stdout)
    assert record["status"] == "error" and "config.toml" in record["message"]


def test_a_usage_error_of_another_sub_command_is_its_json_object(tmp_path: Path,
                                                                  paicli_home: Path) -> None:
    """argparse's usage error in a sub-command's own sub-parser, with --json: its
    `status: error` object on stdout (usage on stderr), exit 2."""
    result = subprocess.run(
        [sys.executable, "-m", "paicli_tui", "memory", "search", "retry", "--json", "--limit",
         "many"], cwd=tmp_path, env=_env(paicli_home), capture_output=True, text=True,
        timeout=60)
    assert result.returncode == 2
    assert json.loads(result.stdout) == {
        "status": "error", "message": "argument --limit: invalid int value: 'many'"}
    assert "usage: paicli-tui memory search" in result.stderr


def test_plain_mode_keeps_stdout_empty_when_a_task_does_not_start(
        tmp_path: Path, paicli_home: Path) -> None:
    """Without --json stdout is only the answer: refusals stay on stderr."""
    result = _exec(["x", "--max-turns", "0"], _env(paicli_home), tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert "--max-turns must be at least 1" in result.stderr


@pytest.mark.slow
def test_memory_conflict_exits_3(tmp_path: Path, paicli_home: Path) -> None:
    project = _project(tmp_path / "project")
    script = {1: [[("save_memory", {"content": "This project builds with Java 17."})]],
              2: [[("save_memory", {"content": "This project builds with Java 21."})]]}
    with FakeOpenAI(script) as server:
        env = _env(paicli_home)
        flags = ["--provider", "custom", "--base-url", server.base_url, "--model", "m",
                 "--json"]
        first = _exec(["TURN 1: remember the Java version", *flags], env, project)
        assert first.returncode == 0, first.stderr
        second = _exec(["TURN 2: remember the new Java version", *flags], env, project)
        assert second.returncode == 3, second.stdout + second.stderr
        finished = [json.loads(line) for line in second.stdout.splitlines()
                    if '"tool_call_finished"' in line]
        assert finished[-1]["name"] == "save_memory" and finished[-1]["status"] == "conflict"
        assert server.problems == []


def test_in_process_exec_reads_prompt_from_stdin(tmp_path: Path, paicli_home: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    import io

    from paicli_tui import cli

    project = _project(tmp_path / "project")
    with FakeOpenAI({1: [[("read_file", {"path": "d1.txt", "offset": 1, "limit": 3})]]}) as server:
        monkeypatch.setattr("sys.stdin", io.StringIO("TURN 1: from stdin"))
        code = cli.main(["exec", "-", "--provider", "custom", "--base-url", server.base_url,
                         "--model", "m", "--project", str(project), "--json"])
        assert server.problems == []
        first_request = server.requests[0]["messages"]
    assert code == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert events[0]["user_input"] == "TURN 1: from stdin"
    assert first_request[1]["content"].endswith("TURN 1: from stdin")
    finished = next(e for e in events if e["type"] == "tool_call_finished")
    assert finished["status"] == "done" and "d1 record 000" in finished["preview"]


def test_exec_json_and_the_ledger_carry_the_light_models_memory_choice(
        tmp_path: Path, paicli_home: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """With a light_model, the model's choice of memories is a memory_selection event on
    stdout and in the session file (ids, never texts), and its first request is the choice,
    on the light model, before the turn's own."""
    from paicli_tui import cli
    from paicli_tui.core.memory.service import LocalMemoryService

    # keywords only: this test is about the wiring, not the embedders
    monkeypatch.setattr(LocalMemoryService, "_default_embedder", lambda self, spec: None)
    project = _project(tmp_path / "project")
    settings = load_settings({}, {"PAICLI_HOME": str(paicli_home)})
    memory = LocalMemoryService(settings, project, use_vectors=False)
    texts = ["The payment client retries a failed charge three times with backoff.",
             "Deploy the payment gateway only on Tuesdays.",
             "Payment amounts are stored as integer cents, never floats."]
    ids = {text: memory.save(text).entry.id for text in texts}

    def choose(user: str) -> str:
        lines = user.split("<memories>\n", 1)[1].split("\n</memories>", 1)[0].splitlines()
        return next(line.split(".", 1)[0] for line in lines if "Tuesdays" in line)

    with FakeOpenAI({}) as server:
        server.memory_choice = choose
        code = cli.main(["exec", "TURN 1: fix the retry bug in the payment client",
                         "--provider", "custom", "--base-url", server.base_url, "--model", "m",
                         "--project", str(project), "--json"])
        monkeypatch.setenv("PAICLI_LIGHT_MODEL", "small-1")
        assert server.problems == []
        requests = list(server.requests)
    assert code == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert not [e for e in events if e["type"] == "memory_selection"]  # no light model yet
    assert len(requests) == 1 and requests[0]["tools"]  # the turn's own request only

    with FakeOpenAI({}) as server:
        server.memory_choice = choose
        code = cli.main(["exec", "TURN 1: fix the retry bug in the payment client",
                         "--provider", "custom", "--base-url", server.base_url, "--model", "m",
                         "--project", str(project), "--json"])
        assert server.problems == []
        requests = list(server.requests)
    assert code == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    (selected,) = [e for e in events if e["type"] == "memory_selection"]
    assert selected["chosen"] == [ids[texts[1]]] and selected["by"] == "light_model"
    assert selected["fallback"] == "" and selected["candidates"] == 3
    assert requests[0]["model"] == "small-1" and not requests[0].get("tools")
    turn = requests[1]["messages"][-1]["content"]
    assert texts[1] in turn and texts[0] not in turn
    ledger = SessionLedger.open(settings.home, selected["session"])
    recorded = [json.loads(line) for line in ledger.path.read_text().splitlines()
                if '"memory_selection"' in line]
    assert [(r["chosen"], r["fallback"]) for r in recorded] == [([ids[texts[1]]], "")]
    assert "Tuesdays" not in json.dumps(recorded)


def _weak_model_run(server: FakeOpenAI, home: Path, project: Path, model: str
                    ) -> tuple[list[str], dict[str, str], list[dict]]:
    """One `TURN 1` task in --json against ``server``: the flags, env and events."""
    env = _env(home, PAICLI_API_KEY=KEY)
    flags = ["--provider", "custom", "--base-url", server.base_url, "--model", model]
    done = _exec(["TURN 1: read d1", *flags, "--json"], env, project)
    assert done.returncode == 0, done.stderr
    return flags, env, [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.slow
def test_calls_a_model_writes_as_text_run_end_to_end(tmp_path: Path, paicli_home: Path) -> None:
    """A local model served without its tool template writes `<tool_call>{…}</tool_call>`
    into its text. exec reads the calls, runs them, says so on stderr and in --json, and
    the follow-up request carries proper calls with their results (the server checks)."""
    project = _project(tmp_path / "project")
    script = {1: [[("read_file", {"path": "d1.txt"}), ("list_dir", {"path": "."})]]}
    with FakeOpenAI(script, api_key=KEY) as server:
        server.calls_as_text = True
        flags, env, lines = _weak_model_run(server, paicli_home, project, "qwen")
        (notice,) = [line for line in lines if line["type"] == "tool_calls_from_text"]
        assert notice["names"] == ["read_file", "list_dir"]
        finished = [(line["name"], line["status"]) for line in lines
                    if line["type"] == "tool_call_finished"]
        assert finished == [("read_file", "done"), ("list_dir", "done")]
        assert lines[-1]["final_text"] == "Turn 1 is complete."
        follow_up = server.requests[-1]["messages"]
        asked = [m for m in follow_up if m["role"] == "assistant" and m.get("tool_calls")]
        assert [c["function"]["name"] for c in asked[-1]["tool_calls"]] == \
            ["read_file", "list_dir"]
        plain = _exec(["TURN 1: read d1 again", *flags], env, project)
        assert plain.returncode == 0, plain.stderr
        assert "[tools] The model wrote 2 tool calls as text (`<tool_call>` tags)" in \
            plain.stderr
        assert server.problems == []


@pytest.mark.slow
def test_a_server_that_refuses_tools_gets_them_in_the_prompt(tmp_path: Path,
                                                             paicli_home: Path) -> None:
    """Ollama with a model that has no tool template answers 400 "does not support tools":
    the turn used to end there, the model unusable. Now the refusal is said once, the tools
    go into the system prompt, the model's written calls run, and the next run's first
    request goes in that form again only after its own refusal (a new process, a new
    client: the model may have been updated)."""
    project = _project(tmp_path / "project")
    script = {1: [[("read_file", {"path": "d1.txt"})]]}
    with FakeOpenAI(script, api_key=KEY) as server:
        server.refuses_tools = True
        flags, env, lines = _weak_model_run(server, paicli_home, project, "gemma")
        (retry,) = [line for line in lines if line["type"] == "request_retrying"]
        assert "described in the prompt from now on" in retry["reason"]
        (read,) = [line for line in lines if line["type"] == "tool_calls_from_text"]
        assert read["asked"] is True and read["names"] == ["read_file"]
        assert [(line["name"], line["status"]) for line in lines
                if line["type"] == "tool_call_finished"] == [("read_file", "done")]
        assert lines[-1]["final_text"] == "Turn 1 is complete."
        agent = [r for r in server.requests if "<tool_call>" in
                 str(r["messages"][0].get("content"))]
        assert len(agent) == 2 and all("tools" not in r for r in agent)
        assert "d1 record 000" in agent[-1]["messages"][-1]["content"]  # the result came back
        text = SessionLedger.open(load_settings({}, {"PAICLI_HOME": str(paicli_home)}).home,
                                  lines[0]["session"]).path.read_text(encoding="utf-8")
        assert '"request_retrying"' in text and KEY not in text
        plain = _exec(["TURN 1: again", *flags], env, project)
        assert plain.returncode == 0, plain.stderr
        assert "[tools]" not in plain.stderr  # asked for: not a slip to warn about
        assert "[retry]" in plain.stderr and "does not take tools" in plain.stderr
        assert server.problems == []


@pytest.mark.slow
def test_yes_does_not_cover_a_write_the_model_wrote_as_text(tmp_path: Path,
                                                           paicli_home: Path) -> None:
    project = _project(tmp_path / "project")
    script = {1: [[("write_file", {"path": "new.txt", "content": "x"})]]}
    with FakeOpenAI(script, api_key=KEY) as server:
        server.calls_as_text = True
        env = _env(paicli_home, PAICLI_API_KEY=KEY)
        flags = ["--provider", "custom", "--base-url", server.base_url, "--model", "qwen"]
        done = _exec(["TURN 1: write it", *flags, "--yes"], env, project)
        assert done.returncode == 0, done.stderr
        assert "write_file: denied (the model wrote this call as text, which --yes does not " \
               "cover; for a model that cannot call tools set tool_protocol = \"prompt\")" \
               in done.stderr
        assert not (project / "new.txt").exists()
        with_prompt = _exec(["TURN 1: write it", *flags, "--yes"],
                            {**env, "PAICLI_TOOL_PROTOCOL": "prompt"}, project)
        assert with_prompt.returncode == 0, with_prompt.stderr
        assert (project / "new.txt").read_text() == "x"
