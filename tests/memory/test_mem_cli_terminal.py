"""``paicli-tui memory`` prints stored text to a terminal: a memory holding escape sequences
(saved by the model from a hostile page, or a crafted store) must not reach the terminal as
control codes — shown escaped in text output, kept exactly in JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli_tui.cli import main

HOSTILE = "Deploy with \x1b[2J\x1b]0;owned\x07kubectl rollout\x1b[0m restart \x9b31m"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["memory", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("argv", [
    ("list",),
    ("search", "kubectl rollout", "--keywords-only"),
    ("search", "kubectl rollout", "--keywords-only", "--explain"),
    ("save", HOSTILE.replace("restart", "restart now")),  # a conflict prints both
])
def test_control_characters_never_reach_the_terminal(
        project_dir: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]) -> None:
    p = ("--project", str(project_dir))
    assert _run(capsys, "save", HOSTILE, *p)[0] == 0
    code, out, err = _run(capsys, *argv, *p)
    shown = out + err
    assert "rollout" in shown, (code, shown)
    assert not any(ch in shown for ch in "\x1b\x07\x9b")
    assert "\\x1b[2J\\x1b]0;owned\\x07kubectl rollout\\x1b[0m restart \\u009b31m" in shown


def test_json_keeps_the_stored_text_exactly(project_dir: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    p = ("--project", str(project_dir))
    _run(capsys, "save", HOSTILE, *p)
    code, out, _ = _run(capsys, "list", *p, "--json")
    assert code == 0 and [e["content"] for e in json.loads(out)] == [HOSTILE]
    assert "\x1b" not in out  # JSON escapes it


def test_tabs_and_crlf_read_as_layout(project_dir: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A memory quoting a Makefile rule or a Windows file: its tab and CRLF are layout, as on
    the TUI's screen and in exec's output, not \\x09 and \\x0d."""
    p = ("--project", str(project_dir))
    assert _run(capsys, "save", "Makefile recipes start with\ta tab, line one\r\nline two",
                *p)[0] == 0
    code, out, _ = _run(capsys, "list", *p)
    assert code == 0
    assert "Makefile recipes start with\ta tab, line one\n" in out
    assert "\\x0" not in out
