"""Attack through the real CLI: `paicli-tui exec` in plain mode prints the model's words to
stdout and tool activity to stderr, and both can hold escape sequences a hostile page or
repository put in front of the model: a reply ``\\x1b]0;…`` retitled the person's window, a
tool named ``list_dir\\x1b]52;c;…`` wrote their clipboard. Plain output now shows control
characters as ``\\xNN`` text; --json keeps every text exactly (JSON escapes them)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from e2e_fake_openai import FakeOpenAI
from test_e2e_exec import _env

TITLE = "\x1b]0;PWNED\x07"
CLIPBOARD = "\x1b]52;c;cHduZWQ=\x07"


def _exec(server: FakeOpenAI, home: Path, project: Path, prompt: str, *flags: str
          ) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "paicli_tui", "exec", prompt, "--provider", "custom",
         "--base-url", server.base_url, "--model", "m", *flags], cwd=project,
        env=_env(home), capture_output=True, text=True, timeout=120)


def test_escape_sequences_from_the_model_are_printed_as_text(tmp_path: Path,
                                                             paicli_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    script = {1: [[(f"list_dir{CLIPBOARD}", {"path": "."})]]}
    with FakeOpenAI(script) as server:
        server.chat = True  # a message without a TURN marker is echoed: "You said: …"
        echoed = _exec(server, paicli_home, project, f"hello {TITLE}world")
        called = _exec(server, paicli_home, project, "TURN 1: list it")
        as_json = _exec(server, paicli_home, project, f"hello {TITLE}world", "--json")
    assert echoed.returncode == 0 and called.returncode == 0, echoed.stderr + called.stderr
    for run in (echoed, called):
        assert "\x1b" not in run.stdout + run.stderr
    assert "You said: hello \\x1b]0;PWNED\\x07world" in echoed.stdout
    assert "→ list_dir\\x1b]52;c;cHduZWQ=\\x07 " in called.stderr
    deltas = "".join(json.loads(line).get("text", "") for line in as_json.stdout.splitlines()
                     if json.loads(line)["type"] == "text_delta")
    assert deltas == f"You said: hello {TITLE}world"  # exact in --json


def test_a_crlf_is_a_line_break_and_a_lone_cr_is_shown() -> None:
    """An error page from a proxy (nginx writes CRLF) or a quoted Windows file: plain output
    shows its lines, not a ``\\x0d`` at the end of each; a lone CR (which would let text
    overwrite the start of its line) is still written out."""
    import io

    from paicli_tui.commands.exec_cmd import _Printer
    from paicli_tui.core.contracts import events as ev

    out, err = io.StringIO(), io.StringIO()
    printer = _Printer(False, out, err)
    printer.emit(ev.TextDelta(text="first\r\nsecond\rhidden"))
    printer.emit(ev.AgentError(message="HTTP 502: <html>\r\n<h1>502 Bad Gateway</h1>\r\n"))
    assert out.getvalue() == "first\nsecond\\x0dhidden\n"
    assert err.getvalue() == "error: HTTP 502: <html>\n<h1>502 Bad Gateway</h1>\n\n"


def test_search_prints_a_hostile_files_line_as_text(tmp_path: Path, paicli_home: Path) -> None:
    # `paicli-tui search --mode grep` printed the matched line of a project file as it was:
    # a docstring holding ESC]0;… retitled the window, ESC[2J cleared the screen
    project = tmp_path / "project"
    project.mkdir()
    (project / "deploy.py").write_text(
        f'def deploy_service():\n    """Deploy {TITLE} the \x1b[2J service."""\n')
    run = subprocess.run([sys.executable, "-m", "paicli_tui", "search", "deploy", "--mode",
                          "grep"], cwd=project, env=_env(paicli_home), capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "\x1b" not in run.stdout
    assert '2: """Deploy \\x1b]0;PWNED\\x07 the \\x1b[2J service."""' in run.stdout
    as_json = subprocess.run([sys.executable, "-m", "paicli_tui", "search", "deploy", "--mode",
                              "grep", "--json"], cwd=project, env=_env(paicli_home),
                             capture_output=True, text=True, timeout=120)
    assert TITLE in json.loads(as_json.stdout)["results"][0]["match_text"]  # exact in --json


def test_exec_shows_chinese_arguments_as_chinese() -> None:
    """Many models send every non-ASCII character of a call's arguments as a ``\\u`` escape:
    plain output showed a write_file of 你好 as ``\\u4f60\\u597d``, in the main turn and in a
    sub-agent's steps alike (the TUI's tool block shows the characters)."""
    import io

    from paicli_tui.commands.exec_cmd import _Printer
    from paicli_tui.core.contracts import events as ev

    arguments = '{"path": "a.txt", "content": "hello\\n\\u4f60\\u597d\\n"}'
    started = ev.ToolCallStarted(call_id="c1", name="write_file", arguments=arguments)
    out, err = io.StringIO(), io.StringIO()
    printer = _Printer(False, out, err)
    printer.emit(started)
    printer.emit(ev.SubAgentStep(subagent="20261201-120000-abcdef.sub-2", parent="p",
                                   event=started))
    lines = err.getvalue().splitlines()
    assert len(lines) == 2 and all("你好" in line and "\\u4f60" not in line for line in lines)
