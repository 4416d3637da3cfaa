"""Every sub-command as a shell script runs it: its output piped into a reader that stops
early (`| head -1`), its standard input closed. Each runs as a subprocess, as a script would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from e2e_fake_openai import FakeOpenAI

SERVER = "{server}"


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PAICLI_", "OLLAMA_")) and not k.endswith("_API_KEY")}
    env.update(PAICLI_HOME=str(home), RUST_LOG="error")
    return env


def _project(root: Path) -> Path:
    root.mkdir()
    (root / "util.py").write_text('def parse_date(text):\n    """Parse a date."""\n'
                                  "    return text.split('-')\n")
    return root


def _run(argv: list[str], home: Path, project: Path, *, stdout: int | None,
         stdin: int | None = subprocess.DEVNULL) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "paicli_tui", *argv, "--project", str(project)],
                          cwd=project, env=_env(home), stdin=stdin, stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=120)


def _into_closed_pipe(argv: list[str], home: Path, project: Path
                      ) -> subprocess.CompletedProcess[str]:
    """``paicli-tui ARGV | head -1`` where head has already gone: every write is EPIPE."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return _run(argv, home, project, stdout=write_end)
    finally:
        os.close(write_end)


@pytest.mark.parametrize("argv,code", [
    (["context"], 141),
    (["context", "--json"], 141),
    (["sessions"], 141),
    (["sessions", "--json"], 141),
    (["memory", "list"], 141),
    (["memory", "list", "--json"], 141),
    (["memory", "search", "gradle", "--keywords-only"], 141),
    (["search", "parse", "--mode", "grep"], 141),
    (["search", "parse", "--mode", "grep", "--json"], 141),
    (["graph", "X", "--json"], 141),
    (["index", "--json"], 141),
    (["exec", "hello", "--provider", "custom", "--base-url", SERVER, "--model", "x",
     "--window", "32000"], 141),
    (["exec", "hello", "--json", "--provider", "custom", "--base-url", SERVER, "--model", "x",
     "--window", "32000"], 141),
    (["exec", "--help"], 0),  # argparse drops what it cannot write: no traceback either
])
def test_a_reader_that_stops_early_gets_no_traceback(argv, code, tmp_path: Path) -> None:
    """`paicli-tui memory list | head -1` printed a BrokenPipeError traceback and exited 1:
    the command now stops quietly with 141 (128 + SIGPIPE, what `git log | head -1` gives)."""
    home, project = tmp_path / "home", _project(tmp_path / "project")
    home.mkdir()
    assert _run(["memory", "save", "the project builds with gradle"], home, project,
                stdout=subprocess.DEVNULL).returncode == 0
    with FakeOpenAI({}) as server:
        server.chat = True
        done = _into_closed_pipe([a.replace(SERVER, server.base_url) for a in argv], home,
                                 project)
    assert (done.returncode, done.stderr) == (code, "")


def _close_stdin() -> None:
    os.close(0)


@pytest.mark.parametrize("argv,code,out,err", [
    (["exec", "-", "--json"], 2,
     '{"type": "error", "message": "the prompt is empty (nothing on standard input)", '
     '"recoverable": false, "session": null, "exit_code": 2}\n',
     "paicli-tui exec: the prompt is empty (nothing on standard input)\n"),
    (["exec", "-"], 2, "", "paicli-tui exec: the prompt is empty (nothing on standard input)\n"),
    (["memory", "clear", "--json"], 2,
     '{"status": "needs_confirmation", "message": "clear would forget 1 (the memories of '
     '{project}); pass --yes to confirm"}\n', ""),
    (["memory", "clear"], 2, "",
     "paicli-tui memory: clear would forget 1 (the memories of {project}); pass --yes to "
     "confirm\n"),
])
def test_a_closed_standard_input_is_no_traceback(argv, code, out, err, tmp_path: Path) -> None:
    """`paicli-tui exec - <&-` and `paicli-tui memory clear <&-` (a job runner that closes
    stdin) ended in AttributeError: 'NoneType' object has no attribute 'read' / 'isatty'. A
    closed stdin reads as empty, and clear asks for --yes as it does without a terminal."""
    home, project = tmp_path / "home", _project(tmp_path / "project")
    home.mkdir()
    assert _run(["memory", "save", "the project builds with gradle"], home, project,
                stdout=subprocess.DEVNULL).returncode == 0
    model = ["--provider", "custom", "--base-url", "http://127.0.0.1:9/v1", "--model", "x"]
    done = subprocess.run([sys.executable, "-m", "paicli_tui", *argv, "--project",
                           str(project), *(model if argv[0] == "exec" else [])],
                          cwd=project, env=_env(home), stdin=None, capture_output=True,
                          text=True, timeout=120, preexec_fn=_close_stdin)
    where = str(project.resolve())
    assert (done.returncode, done.stdout, done.stderr) == (
        code, out.replace("{project}", where), err.replace("{project}", where))


def _close_stdout() -> None:
    os.close(1)


@pytest.mark.parametrize("argv", [["memory", "list"], ["memory", "list", "--json"],
                                  ["context", "--json"]])
def test_a_closed_standard_output_is_no_traceback(argv, tmp_path: Path) -> None:
    """`paicli-tui memory list >&-` (a job runner that closes stdout as others close stdin):
    the flush at the end, meant for a reader gone away, met no stream at all and ended in
    AttributeError: 'NoneType' object has no attribute 'flush', exit 1. What would be
    printed goes nowhere; the command ends as it would have."""
    home, project = tmp_path / "home", _project(tmp_path / "project")
    home.mkdir()
    done = subprocess.run([sys.executable, "-m", "paicli_tui", *argv, "--project",
                           str(project)], cwd=project, env=_env(home),
                          stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          timeout=120, preexec_fn=_close_stdout)
    assert "Traceback" not in done.stderr and "Error" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr


def _interrupted(argv: list[str], home: Path, project: Path, ready: Callable[[], bool]
                 ) -> subprocess.CompletedProcess[str]:
    """Run ``paicli-tui ARGV``, press Ctrl+C (SIGINT) once ``ready()``."""
    import signal

    process = subprocess.Popen(
        [sys.executable, "-m", "paicli_tui", *argv, "--project", str(project)], cwd=project,
        env=_env(home), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
        # a job started from a script ignores SIGINT; a terminal's Ctrl+C reaches it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while not ready() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


@pytest.mark.parametrize("as_json", [True, False])
def test_ctrl_c_during_exec_says_so_and_names_the_session(as_json, tmp_path: Path) -> None:
    """Ctrl+C while exec waited for the model exited 130 with nothing said: --json's last
    line was request_started (a script could not tell an interrupted task from a cut
    stream) and the plain run did not name the session to resume. The last JSON line is now
    turn_finished with reason cancelled; the plain run says it was interrupted and how to go
    on; the ledger keeps the question for --resume."""
    home, project = tmp_path / "home", _project(tmp_path / "project")
    home.mkdir()
    with FakeOpenAI({}) as server:
        server.chat, server.delay_s = True, 10.0  # Ctrl+C while the model thinks
        done = _interrupted(["exec", "hello", "--provider", "custom", "--base-url",
                             server.base_url, "--model", "x", "--window", "32000",
                             *(["--json"] if as_json else [])], home, project,
                            lambda: bool(server.requests))
    sessions = sorted(p.stem for p in (home / "history" / "raw").glob("*.jsonl"))
    assert len(sessions) == 1
    session = sessions[0]
    if as_json:
        lines = [json.loads(line) for line in done.stdout.splitlines()]
        assert [line["type"] for line in lines] == ["turn_started", "request_started",
                                                    "turn_finished"]
        assert lines[-1] == {"type": "turn_finished", "session": session,
                             "reason": "cancelled", "final_text": ""}
    else:
        assert done.stdout == ""
        assert done.stderr.splitlines()[-2:] == [
            "interrupted (Ctrl+C)",
            f"session: {session} (continue with: paicli-tui exec --resume {session} ...)"]
    assert done.returncode == 130
    kinds = [json.loads(line).get("kind") for line in
             (home / "history" / "raw" / f"{session}.jsonl").read_text().splitlines()]
    assert kinds[-1] == "turn_cancelled"


@pytest.mark.parametrize("argv,given,stdin_errors", [
    (["exec", "-", "--json"], b"caf\xe9 ok\n", ""),
    (["exec", b"caf\xe9 ok\n", "--json"], b"", ""),
    # a UTF-8 locale other than C (en_US.UTF-8) reads stdin strictly: the pipe raised
    # UnicodeDecodeError before any of it was read
    (["exec", "-", "--json"], b"caf\xe9 ok\n", "utf-8:strict"),
])
def test_a_prompt_that_is_not_utf8_reaches_the_model(argv, given, stdin_errors,
                                                     tmp_path: Path) -> None:
    """`printf 'caf\\xe9 ok' | paicli-tui exec - --json` (a Latin-1 file piped in) ended the
    turn in 'unexpected failure (UnicodeEncodeError … surrogates not allowed)' when the
    request was sent; the byte reads as U+FFFD and the task runs."""
    home, project = tmp_path / "home", _project(tmp_path / "project")
    home.mkdir()
    env = _env(home)
    if stdin_errors:
        env["PYTHONIOENCODING"] = stdin_errors
    with FakeOpenAI({}) as server:
        server.chat = True
        done = subprocess.run(
            [sys.executable, "-m", "paicli_tui", *argv, "--project", str(project),
             "--provider", "custom", "--base-url", server.base_url, "--model", "x",
             "--window", "32000"], cwd=project, env=env, input=given,
            capture_output=True, timeout=120)
    assert b"Traceback" not in done.stderr, done.stderr.decode("utf-8", "replace")
    lines = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert (lines[0]["user_input"], lines[-1]["reason"], done.returncode) == (
        "caf\ufffd ok\n", "done", 0)


@pytest.mark.parametrize("argv,out", [
    (["memory", "list", "--json"], "json"),
    (["memory", "search", "构建", "--keywords-only", "--json"], "json"),
    (["memory", "list"], "\\u7528 gradle \\u6784\\u5efa\n"),
    (["memory", "search", "构建", "--keywords-only"], "\\u7528 gradle \\u6784\\u5efa\n"),
])
@pytest.mark.parametrize("encoding", ["latin-1", "ascii"])
def test_a_terminal_that_is_not_utf8_gets_no_traceback(argv, out, encoding,
                                                       tmp_path: Path) -> None:
    """Under a Latin-1 locale (PYTHONIOENCODING=latin-1 here) `paicli-tui memory list` of a
    Chinese memory ended in UnicodeEncodeError, and so did every --json output holding
    Chinese. Text shows what the terminal cannot as \\uXXXX escapes; --json is UTF-8, as
    JSON is, whatever the locale."""
    home, project = tmp_path / "home", _project(tmp_path / "project")
    home.mkdir()
    assert _run(["memory", "save", "用 gradle 构建"], home, project,
                stdout=subprocess.DEVNULL).returncode == 0
    done = subprocess.run([sys.executable, "-m", "paicli_tui", *argv, "--project",
                           str(project)], cwd=project,
                          env={**_env(home), "PYTHONIOENCODING": encoding},
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, b"")
    if out == "json":
        assert json.loads(done.stdout.decode("utf-8"))[0]["content"] == "用 gradle 构建"
    else:
        assert done.stdout.decode("ascii").endswith(out)


def test_exec_in_a_folder_whose_name_is_not_utf8(tmp_path: Path) -> None:
    """`paicli-tui exec hi` in a folder named b'caf\\xe9' (made on a Latin-1 system) failed
    every turn with 'unexpected failure (UnicodeEncodeError … surrogates not allowed)': the
    system prompt names the project root, and the request could not be encoded. The name
    reaches the model with U+FFFD for the byte; the task runs."""
    home = tmp_path / "home"
    home.mkdir()
    project = _project(tmp_path / "caf\udce9")
    with FakeOpenAI({}) as server:
        server.chat = True
        done = subprocess.run(
            [sys.executable, "-m", "paicli_tui", "exec", "hi", "--json", "--project",
             os.fsencode(project), "--provider", "custom", "--base-url", server.base_url,
             "--model", "x", "--window", "32000"], cwd=project, env=_env(home),
            stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
        system = server.requests[0]["messages"][0]["content"] if server.requests else ""
    lines = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert (lines[-1]["reason"], done.returncode) == ("done", 0)
    assert f"- Project root: {tmp_path}/caf\ufffd\n" in system


@pytest.mark.parametrize("argv,path", [
    (["search", "brew", "--mode", "grep", "--json"], ("results", 0, "path")),
    (["sessions", "--json"], ("project",)),
])
def test_json_is_utf8_when_a_name_is_not(argv, path, tmp_path: Path) -> None:
    """`paicli-tui search brew --mode grep --json` where the hit is in b'caf\\xe9.py' printed
    the file name's raw byte inside the JSON line: not UTF-8, so `jq` and json.loads of the
    bytes refused the whole line. --json writes such a byte as U+FFFD."""
    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / "caf\udce9"
    project.mkdir()
    (project / "caf\udce9.py").write_text("def brew():\n    return 1\n")
    done = subprocess.run([sys.executable, "-m", "paicli_tui", *argv, "--project",
                           os.fsencode(project)], cwd=project, env=_env(home),
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, b"")
    value = json.loads(done.stdout.decode("utf-8"))
    for key in path:
        value = value[key]
    assert value.endswith("caf\ufffd.py" if argv[0] == "search" else "caf\ufffd")


@pytest.mark.parametrize("as_json", [True, False])
def test_exec_with_a_home_it_cannot_write_says_so(as_json, tmp_path: Path) -> None:
    """`paicli-tui exec hi` with a PAICLI_HOME it cannot write (read-only, another user's,
    here history/ a file) ended in a three-part OSError traceback after turn_started. It
    ends on one error naming the problem, with the session id in --json, exit 1."""
    home, project = tmp_path / "home", _project(tmp_path / "project")
    home.mkdir()
    (home / "history").write_text("")  # no folder can be made under it
    with FakeOpenAI({}) as server:
        server.chat = True
        done = subprocess.run(
            [sys.executable, "-m", "paicli_tui", "exec", "hi", "--project", str(project),
             "--provider", "custom", "--base-url", server.base_url, "--model", "x",
             *(["--json"] if as_json else [])], cwd=project, env=_env(home),
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    said = (f"cannot write this session's history under {home / 'history' / 'raw'}: "
            f"[Errno 20] Not a directory: '{home / 'history' / 'raw'}'")
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1
    if as_json:
        lines = [json.loads(line) for line in done.stdout.splitlines()]
        session = lines[0]["session"]
        assert lines[-1] == {"type": "error", "message": said, "recoverable": False,
                             "session": session}
    else:
        assert f"error: {said}\n" in done.stderr


def test_search_with_a_home_it_cannot_write(tmp_path: Path) -> None:
    """`paicli-tui search 计算` with a PAICLI_HOME it cannot write (here cache/ a file) failed
    with "Read-only file system: '…/cache'": the Chinese word splitter's table is cached
    there. It loads its dictionary whole instead, and the search answers."""
    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    (project / "tools.py").write_text('def 计算(x):\n    """计算剩余时间"""\n    return x\n')
    assert _run(["index", "--quiet"], home, project, stdout=subprocess.DEVNULL).returncode == 0
    for cached in (home / "cache").iterdir():  # as a read-only home leaves it: no cache
        subprocess.run(["rm", "-rf", str(cached)], check=True)
    (home / "cache").rmdir()
    (home / "cache").write_text("")
    done = _run(["search", "计算", "--json"], home, project, stdout=subprocess.PIPE)
    assert (done.returncode, done.stderr) == (0, "")
    assert [hit["name"] for hit in json.loads(done.stdout)["results"]] == ["计算(x)"]


def test_nothing_is_written_outside_paicli_home_and_the_project(tmp_path: Path) -> None:
    """DESIGN: PAICLI_HOME relocates every file the program writes outside the project. An
    `index` (its MiniLM embedder) wrote ~/.cache/Microsoft/DeveloperTools/.onnxruntime/
    deviceid and onnxruntime.db: onnxruntime's import writes them under XDG_CACHE_HOME, or
    ~/.cache. They go under PAICLI_HOME/cache now, and HOME stays untouched."""
    home, person, temp = tmp_path / "home", tmp_path / "person", tmp_path / "temp"
    home.mkdir(), person.mkdir(), temp.mkdir()
    project = _project(tmp_path / "project")
    env = {**_env(home), "HOME": str(person), "TMPDIR": str(temp)}
    env.pop("XDG_CACHE_HOME", None)
    for argv in (["index", "--quiet"], ["search", "parse a date", "--json"]):
        done = subprocess.run([sys.executable, "-m", "paicli_tui", *argv, "--project",
                               str(project)], cwd=project, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    assert sorted(p.relative_to(tmp_path).as_posix() for folder in (person, temp)
                  for p in folder.rglob("*")) == []  # nor a .ses file left in TMPDIR
