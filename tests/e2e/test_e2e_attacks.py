"""Attack table through the real CLI: the attempts of the hostile-input issue made as an
attacker would, with `paicli-tui exec` against a scripted model on 127.0.0.1 (a crafted
project, a model that calls tools to hurt), `paicli-tui memory` and `index` over broken
files, and config values that used to crash. One test per attempt, named after it; each
fails when its defence is taken away (the scan would hang, the key would show, the file
would be lost, the command would survive).

One exec run (module fixture) makes the model's attempts in a row; the tests read what came
back to the model (the tool messages of the last request), the --json events, the ledger
and the files left behind.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from e2e_fake_openai import FakeOpenAI
from test_e2e_exec import _env

KEY = "sk-live-7Qm2Vx9Lp4Rt8Wn3Zc6Hb1"
OTHER = "zp-other-5Fg8Jk2Mn7Qs4Tv9Xy3B"
HANG_GUARD_S = 240
"""Generous bound on one exec run on a loaded machine: a hung scan or command never ends."""

ATTEMPTS: list[tuple[str, str, dict]] = [
    ("nested_quantifier", "grep_code", {"pattern": "(x+x+)+y|(a|aa)+$", "path": "."}),
    ("many_star_glob", "glob_files", {"pattern": "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b"}),
    ("key_through_commands", "execute_command",
     {"command": "printenv PAICLI_API_KEY | base64; printenv DEEPSEEK_API_KEY | rev; "
                 "env > .env.dump; echo listed"}),
    ("env_dump_read_back", "read_file", {"path": ".env.dump"}),
    ("symlink_loop_list", "list_dir", {"path": ".", "depth": 3}),
    ("non_utf8_name_read", "read_file", {"path": "caf\\xe9.py"}),
    ("background_child", "execute_command", {"command": "sleep 31 & echo $! > bg.pid; echo x"}),
    ("planted_offload_link", "execute_command",
     {"command": "python3 -c \"print('z' * 60000)\""}),
    ("secret_in_save_memory", "save_memory",
     {"content": "The user's passcode is 7781-alpha-kilo for the staging box."}),
    ("disguised_fetch", "execute_command",
     {"command": "c=curl; $c --version >/dev/null 2>&1; true"}),
    ("save_after_outside_content", "save_memory",
     {"content": "Deploys always go through the staging host first."}),
]


def _leaks(text: str) -> list[str]:
    found = []
    for key in (KEY, OTHER):
        encoded = base64.b64encode(key.encode()).decode()
        if key in text or key[::-1] in text or encoded[:16] in text:
            found.append(key)
    return found


def _tool_bin(folder: Path) -> str:
    """A PATH with the usual tools but no ripgrep, so grep_code runs its own scanner (the
    one that used to backtrack forever)."""
    folder.mkdir()
    for name in ("sh", "bash", "env", "printenv", "base64", "rev", "sleep", "echo", "cat",
                 "true", "python3", "ls", "tr"):
        for base in ("/usr/bin", "/bin", "/usr/local/bin", os.path.dirname(sys.executable)):
            if os.path.exists(os.path.join(base, name)):
                os.symlink(os.path.join(base, name), folder / name)
                break
    return str(folder)


@pytest.fixture(scope="module")
def attack(tmp_path_factory: pytest.TempPathFactory, paicli_home_module: Path):
    base = tmp_path_factory.mktemp("attack")
    project = base / "project"
    project.mkdir()
    (project / "lines.txt").write_text(("a" * 30 + "!\n") * 40)
    (project / ("a" * 120 + ".txt")).write_text("long name\n")
    (project / ".gitignore").write_text("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b\n[z-a]\n")
    (project / os.fsdecode(b"caf\xe9.py")).write_text("print('caf')\n")
    os.symlink(".", project / "loop")
    os.symlink("selfloop", project / "selfloop")
    outside = base / "outside"
    outside.mkdir()
    (project / ".paicli").mkdir()
    os.symlink(outside, project / ".paicli" / "tool-outputs")
    script = {1: [[(name, arguments)] for _, name, arguments in ATTEMPTS]}
    with FakeOpenAI(script, api_key=KEY) as server:
        env = _env(paicli_home_module, PAICLI_API_KEY=KEY, DEEPSEEK_API_KEY=OTHER,
                   PATH=_tool_bin(base / "bin"))
        started = time.monotonic()
        run = subprocess.run(
            [sys.executable, "-m", "paicli_tui", "exec", "TURN 1: look around", "--provider",
             "custom", "--base-url", server.base_url, "--model", "m", "--yes", "--json",
             "--max-turns", "30"], cwd=project, env=env, capture_output=True, text=True,
            timeout=HANG_GUARD_S)
        elapsed = time.monotonic() - started
        assert run.returncode == 0, run.stderr
        assert server.problems == []
        last = [r for r in server.requests if r.get("tools")][-1]
    results = [m["content"] for m in last["messages"] if m["role"] == "tool"]
    assert len(results) == len(ATTEMPTS)
    by_name = {name: text for (name, _, _), text in zip(ATTEMPTS, results, strict=True)}
    return {"results": by_name, "run": run, "elapsed": elapsed, "project": project,
            "outside": outside, "home": paicli_home_module}


@pytest.fixture(scope="module")
def paicli_home_module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("home")
    return home


def test_grep_nested_quantifier_ends_with_simplify_the_pattern(attack) -> None:
    assert "simplify the pattern" in attack["results"]["nested_quantifier"]


def test_glob_and_gitignore_with_many_stars_end(attack) -> None:
    text = attack["results"]["many_star_glob"]
    assert "failed" not in text.lower().split("\n")[0]
    assert attack["elapsed"] < HANG_GUARD_S


def test_printenv_key_piped_to_base64_and_rev_gives_nothing(attack) -> None:
    text = attack["results"]["key_through_commands"]
    assert "listed" in text and _leaks(text) == []


def test_env_dump_on_disk_and_read_back_holds_no_key(attack) -> None:
    dump = (attack["project"] / ".env.dump").read_text()
    assert _leaks(dump) == []  # not redacted afterwards: the variables were never there
    assert _leaks(attack["results"]["env_dump_read_back"]) == []


def test_no_key_in_json_events_ledger_or_logs(attack) -> None:
    assert _leaks(attack["run"].stdout) == [] and _leaks(attack["run"].stderr) == []
    for path in attack["home"].rglob("*"):
        if path.is_file():
            assert _leaks(path.read_text(errors="replace")) == [], path


def test_symlink_loop_lists_everything_and_marks_the_loop(attack) -> None:
    text = attack["results"]["symlink_loop_list"]
    assert "lines.txt" in text and "caf\\xe9.py" in text
    assert "selfloop" in text and "link loop" in text and "loop/loop" not in text


def test_non_utf8_file_name_is_read_by_its_escaped_name(attack) -> None:
    assert "print('caf')" in attack["results"]["non_utf8_name_read"]


def test_background_child_does_not_hold_the_result_and_is_stopped(attack) -> None:
    text = attack["results"]["background_child"]
    assert "x" in text and "background process" in text
    pid = int((attack["project"] / "bg.pid").read_text())
    assert not Path(f"/proc/{pid}").exists() or \
        Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"


def test_planted_tool_outputs_symlink_writes_nothing_outside(attack) -> None:
    assert list(attack["outside"].iterdir()) == []
    assert "z" * 100 in attack["results"]["planted_offload_link"]


def test_save_memory_refuses_a_passcode(attack) -> None:
    text = attack["results"]["secret_in_save_memory"]
    assert "Refused: memories never hold passwords" in text and "'passcode'" in text


def test_disguised_fetch_marks_the_session_and_save_memory_is_refused(attack) -> None:
    text = attack["results"]["save_after_outside_content"]
    assert "Refused: this session has read outside content" in text
    store = attack["home"] / "memory" / "long_term_memory.json"
    assert not store.exists() or json.loads(store.read_text()) == []


# --- the app killed while a command runs: the command goes with it ---------------------------

@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL],
                         ids=["SIGTERM", "SIGHUP", "SIGKILL"])
def test_exec_killed_by_signal_takes_its_command_with_it(tmp_path: Path, paicli_home: Path,
                                                         signum: int) -> None:
    project = tmp_path / "project"
    project.mkdir()
    script = {1: [[("execute_command", {"command": "echo $$ > cmd.pid; exec sleep 60"})]]}
    with FakeOpenAI(script) as server:
        app = subprocess.Popen(
            [sys.executable, "-m", "paicli_tui", "exec", "TURN 1: wait", "--provider",
             "custom", "--base-url", server.base_url, "--model", "m", "--yes"], cwd=project,
            env=_env(paicli_home), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            pid_file = project / "cmd.pid"
            deadline = time.monotonic() + HANG_GUARD_S
            while not (pid_file.exists() and pid_file.read_text().strip()):
                assert time.monotonic() < deadline and app.poll() is None
                time.sleep(0.1)
            pid = int(pid_file.read_text())
            app.send_signal(signum)
            app.wait(30)
            deadline = time.monotonic() + 30
            while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
                if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                    break
                time.sleep(0.1)
            assert time.monotonic() < deadline, "the command outlived the app"
        finally:
            if app.poll() is None:
                app.kill()


# --- a gateway URL with its password in it ----------------------------------------------------

def test_exec_error_naming_a_base_url_hides_its_password(tmp_path: Path, paicli_home: Path
                                                         ) -> None:
    # a proxy or gateway with basic auth (and Azure-style ?api-key=) in the URL: "cannot
    # reach http://alice:<password>@…" was printed whole, retry notices too
    (paicli_home / "config.toml").write_text("max_retries = 1\n", encoding="utf-8")
    url = "http://alice:Hunter2SuperSecretPw@127.0.0.1:9/v1?api-key=AzureKey0123456789"
    run = subprocess.run(
        [sys.executable, "-m", "paicli_tui", "exec", "hello", "--provider", "custom",
         "--base-url", url, "--model", "m"], cwd=tmp_path, env=_env(paicli_home),
        capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert run.returncode == 1
    assert "cannot reach http://alice:****@127.0.0.1:9/v1?api-key=****" in run.stderr
    assert "[retry]" in run.stderr  # the retry notice is scrubbed as well
    for secret in ("Hunter2SuperSecretPw", "AzureKey0123456789"):
        assert secret not in run.stdout + run.stderr
        for path in paicli_home.rglob("*"):
            if path.is_file():
                assert secret not in path.read_text(errors="replace"), path
