"""`paicli-tui context` and `paicli-tui sessions`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli_tui import cli
from paicli_tui.core.context.ledger import SessionLedger
from paicli_tui.core.messages import Message
from paicli_tui.paths import HomePaths


@pytest.mark.parametrize(
    ("argv", "window", "compaction", "clearing", "budget"),
    [
        (["--window", "128000"], 128_000, 95_000, 57_000, 640),
        (["--window", "200000"], 200_000, 167_000, 100_000, 1_000),
        (["--window", "256000"], 256_000, 223_000, 100_000, 1_280),
        (["--window", "1000000"], 1_000_000, 967_000, 100_000, 5_000),
        ([], 128_000, 95_000, 57_000, 640),
        (["--provider", "glm"], 200_000, 167_000, 100_000, 1_000),
        (["--provider", "deepseek", "--window", "64000"], 64_000, 40_000, 24_000, 500),
    ],
)
def test_context_json(capsys: pytest.CaptureFixture[str], argv: list[str], window: int,
                      compaction: int, clearing: int, budget: int) -> None:
    assert cli.main(["context", *argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["window"], out["compaction_trigger"], out["clearing_trigger"],
            out["memory_budget"]) == (window, compaction, clearing, budget)
    assert {"summary_reserve", "buffer", "effective_window"} <= set(out)


def test_context_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["context", "--window", "1000000"]) == 0
    out = capsys.readouterr().out
    assert "967,000" in out and "100,000" in out and "clearing trigger" in out


@pytest.mark.parametrize("argv", [["--window", "0"], ["--window", "-3"], ["--provider", "nope"]])
def test_context_bad_input(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert cli.main(["context", *argv]) == 2
    assert capsys.readouterr().err.strip()


def test_context_with_session(capsys: pytest.CaptureFixture[str], paicli_home: Path,
                              project_dir: Path) -> None:
    ledger = SessionLedger.create(HomePaths(paicli_home), project_dir)
    ledger.append(Message.user("x" * 400))
    assert cli.main(["context", "--session", ledger.session_id, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["session"]["messages"] == 1 and out["session"]["estimated_tokens"] == 104
    assert cli.main(["context", "--session", "missing"]) == 2  # as exec --resume missing


def test_sessions(capsys: pytest.CaptureFixture[str], paicli_home: Path, project_dir: Path,
                  tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert cli.main(["sessions", "--project", str(project_dir)]) == 0
    assert "No saved sessions" in capsys.readouterr().out
    home = HomePaths(paicli_home)
    mine = SessionLedger.create(home, project_dir)
    mine.append(Message.user("重构登录模块"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    SessionLedger.create(home, elsewhere).append(Message.user("other work"))
    monkeypatch.chdir(project_dir)
    assert cli.main(["sessions", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [s["session"] for s in data["sessions"]] == [mine.session_id]
    assert data["sessions"][0]["title"] == "重构登录模块"
    assert data["sessions"][0]["message_count"] == 1
    assert cli.main(["sessions", "--all"]) == 0
    text = capsys.readouterr().out
    assert "重构登录模块" in text and "other work" in text


@pytest.mark.parametrize(
    ("env", "argv", "provider", "window", "source"),
    [
        ({"DEEPSEEK_API_KEY": "sk-x"}, [], "deepseek", 1_000_000, "the provider"),
        ({"ZHIPUAI_API_KEY": "k"}, [], "glm", 200_000, "the provider"),
        ({}, ["--base-url", "http://127.0.0.1:9/v1", "--model", "m"], "custom", 128_000,
         "the provider"),
        ({"MOONSHOT_API_KEY": "k"}, ["--window", "32000"], "kimi", 32_000, "--window"),
    ],
)
def test_context_follows_the_model_a_session_would_use(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, env: dict,
        argv: list[str], provider: str, window: int, source: str) -> None:
    # The provider picked from a key in the environment sets the window, as in a session.
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert cli.main(["context", *argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["provider"], out["window"], out["window_source"]) == (provider, window, source)
    assert "sk-x" not in json.dumps(out)
