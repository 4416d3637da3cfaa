"""Attack table through the real CLI, files and the provider: a memory file crafted to crash,
hang or lose memories read by `paicli-tui memory`, a project that used to break `index`,
and a provider that holds the stream open with keep-alives or echoes keys in its error body,
met by `paicli-tui exec`. One test per attempt, named after it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from doubles.embedders import HashEmbedder
from test_e2e_exec import _env

import paicli_tui.core.embedders as embedders
from paicli_tui import cli

HANG_GUARD_S = 120
"""A generous bound for one CLI run on a loaded machine: a hung read never ends."""
KEY = "sk-live-7Qm2Vx9Lp4Rt8Wn3Zc6Hb1"
OTHER = "zp-other-5Fg8Jk2Mn7Qs4Tv9Xy3B"


def _cli(args: list[str], home: Path, cwd: Path, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paicli_tui", *args], cwd=cwd,
                          env=_env(home, **extra), capture_output=True, text=True,
                          timeout=HANG_GUARD_S)


def _entry(content: str, entry_id: str) -> dict:
    return {"id": entry_id, "content": content, "type": "FACT",
            "timestamp": "2026-11-01T12:00:00Z", "lastVerifiedAt": "2026-11-01T12:00:00Z",
            "metadata": {}, "tokenCount": 3}


def _write(text: str) -> Callable[[Path], None]:
    return lambda path: path.write_text(text)


def _dev_zero(path: Path) -> None:
    os.symlink("/dev/zero", path)


def _fifo(path: Path) -> None:
    os.mkfifo(path)


GOOD = _entry("Builds use Gradle 8", "g1")
# attempt -> (how the store is planted, exit code of `memory list`, what stdout shows,
#             what stderr says)
STORES = {
    "deep_nesting": (_write("[" * 200_000), 0, "no memories yet", "nested too deeply); it was "
                                                                   "moved to"),
    "lone_surrogate": (_write('[{"id": "s1", "content": "bad \\ud800 char", "type": "FACT"}]'),
                       0, "bad \ufffd char", ""),
    "one_bad_entry": (_write(json.dumps([GOOD, {"content": "no id"}, 7])), 0,
                      "Builds use Gradle 8", "2 memories in"),
    "schema_version_string_2": (_write(json.dumps({"schema_version": "2", "entries": [
        {**GOOD, "created_at": "2026-11-01T12:00:00Z"}]})), 0, "Builds use Gradle 8", ""),
    "newer_schema": (_write(json.dumps({"schema_version": 99, "entries": [GOOD]})), 0,
                     "Builds use Gradle 8", ""),
    "dev_zero_link": (_dev_zero, 1, "", "not a regular file"),
    "fifo": (_fifo, 1, "", "not a regular file"),
}


@pytest.mark.parametrize("name", sorted(STORES))
def test_memory_list_over_a_crafted_store(tmp_path: Path, paicli_home: Path,
                                          name: str) -> None:
    plant, code, shows, says = STORES[name]
    store = paicli_home / "memory" / "long_term_memory.json"
    store.parent.mkdir(parents=True, exist_ok=True)
    plant(store)
    project = tmp_path / "project"
    project.mkdir()
    result = _cli(["memory", "list", "--all"], paicli_home, project)
    assert "Traceback" not in result.stderr
    assert result.returncode == code, result.stderr
    assert shows in result.stdout and says in result.stderr.lower()


def test_memory_save_into_a_newer_store_is_refused_and_the_file_kept(
        tmp_path: Path, paicli_home: Path) -> None:
    store = paicli_home / "memory" / "long_term_memory.json"
    store.parent.mkdir(parents=True)
    text = json.dumps({"schema_version": "2", "entries": [GOOD]})
    store.write_text(text)
    result = _cli(["memory", "save", "Tests run with pytest"], paicli_home, tmp_path)
    assert result.returncode != 0 and "Upgrade paicli-tui" in result.stderr
    assert store.read_text() == text


def test_memory_save_keeps_the_old_files_top_level_keys_and_a_symlinked_store(
        tmp_path: Path, paicli_home: Path) -> None:
    real = tmp_path / "dotfiles" / "memories.json"
    real.parent.mkdir()
    real.write_text(json.dumps({"schema_version": 1, "entries": [], "owner": "team-a"}))
    (paicli_home / "memory").mkdir(parents=True)
    link = paicli_home / "memory" / "long_term_memory.json"
    link.symlink_to(real)
    result = _cli(["memory", "save", "--global", "Answers in Chinese"], paicli_home, tmp_path)
    assert result.returncode == 0, result.stderr
    assert link.is_symlink()
    assert [e["content"] for e in json.loads(real.read_text())] == ["Answers in Chinese"]
    keys = real.with_name(real.name + ".keys.json")
    assert json.loads(keys.read_text()) == {"owner": "team-a"}
    assert oct(real.stat().st_mode & 0o777) == "0o600"


def test_index_and_search_over_names_and_ignore_lines_that_used_to_break(
        tmp_path: Path, paicli_home: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".gitignore").write_text("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b\n[z-a]\n")
    (project / os.fsdecode(b"caf\xe9.py")).write_text("def brew_espresso():\n    return 1\n")
    (project / ("a" * 200 + ".py")).write_text("def long_name():\n    return 2\n")
    fake = HashEmbedder()
    monkeypatch.setattr(embedders, "get_embedder", lambda settings: fake)
    monkeypatch.chdir(project)
    assert cli.main(["index", "--quiet"]) == 0
    capsys.readouterr()
    assert cli.main(["search", "--mode", "text", "--json", "brew_espresso"]) == 0
    found = json.loads(capsys.readouterr().out)["results"]
    assert found and found[0]["path"] == "caf\\xe9.py"


class _Provider:
    """A 127.0.0.1 chat server that misbehaves: ``keepalive`` sends one word, then SSE
    comments forever; ``echo_keys`` answers 401 with both keys in the error body."""

    def __init__(self, mode: str) -> None:
        provider = self
        self.mode = mode
        self.stop = threading.Event()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if provider.mode == "echo_keys":
                    body = json.dumps({"error": {"message": f"bad key {KEY}; also {OTHER}"}})
                    self.send_response(401)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body.encode())
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                first = {"choices": [{"index": 0, "delta": {"content": "Hel"}}]}
                self.wfile.write(f"data: {json.dumps(first)}\n\n".encode())
                while not provider.stop.wait(0.2):
                    try:
                        self.wfile.write(b": keep-alive\n\n")
                        self.wfile.flush()
                    except OSError:
                        return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> _Provider:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


def _exec_against(provider: _Provider, home: Path, cwd: Path) -> subprocess.CompletedProcess:
    return _cli(["exec", "say hello", "--provider", "custom", "--base-url", provider.base_url,
                 "--model", "m"], home, cwd, PAICLI_API_KEY=KEY, DEEPSEEK_API_KEY=OTHER)


def test_exec_against_keepalives_forever_stops_at_the_idle_deadline(
        tmp_path: Path, paicli_home: Path) -> None:
    (paicli_home / "config.toml").write_text("request_timeout_s = 2\nmax_retries = 0\n")
    with _Provider("keepalive") as provider:
        started = time.monotonic()
        result = _exec_against(provider, paicli_home, tmp_path)
    assert time.monotonic() - started < HANG_GUARD_S
    assert result.returncode != 0 and "no data for 2 s" in result.stderr


def test_exec_error_body_echoing_keys_is_printed_redacted(tmp_path: Path,
                                                          paicli_home: Path) -> None:
    (paicli_home / "config.toml").write_text("max_retries = 0\n")
    with _Provider("echo_keys") as provider:
        result = _exec_against(provider, paicli_home, tmp_path)
    assert result.returncode != 0 and "bad key" in result.stderr
    assert KEY not in result.stderr + result.stdout and OTHER not in result.stderr
    assert "****" in result.stderr


def test_exec_over_a_store_with_a_bad_entry_says_it_was_set_aside(tmp_path: Path,
                                                                  paicli_home: Path) -> None:
    """The turn reads memories (the bad entry is found then); the person is told once, as a
    memory notice event, and the good memory still reaches the model."""
    store = paicli_home / "memory" / "long_term_memory.json"
    store.parent.mkdir(parents=True)
    store.write_text(json.dumps([{**GOOD, "metadata": {"scope": "global"}}, {"content": "x"}]))
    from e2e_fake_openai import FakeOpenAI

    with FakeOpenAI({}) as server:
        result = _cli(["exec", "TURN 1: which build tool do we use with Gradle", "--json",
                       "--provider", "custom", "--base-url", server.base_url, "--model", "m"],
                      paicli_home, tmp_path)
        assert result.returncode == 0, result.stderr
        sent = json.dumps(server.requests[0]["messages"], ensure_ascii=False)
    events = [json.loads(line) for line in result.stdout.splitlines()]
    notices = [e for e in events if e["type"] == "memory" and e["action"] == "file"]
    assert len(notices) == 1 and "1 memory in" in notices[0]["detail"]
    assert "set aside" in notices[0]["detail"] and "Builds use Gradle 8" in sent
