"""With --json every error is one JSON object on stdout (a script reads one stream), and
without it one line on stderr: context, search and index errors, as `paicli-tui` answers
them in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli_tui import cli

NO_SESSION = "no session 'nosuch'; `paicli-tui sessions` lists this project's sessions"
PROVIDERS = "deepseek, glm, kimi, stepfun, hunyuan, qwen, openai, ollama, custom"
TOP_K = "--top-k must be between 1 and 30"
CANNOT_WRITE = ("cannot write the index at {project}/.paicli/index: [Errno 17] File exists: "
                "'{project}/.paicli'")
EMBEDDER = ("unknown embedder 'nosuch': use 'use', 'minilm' or 'use+minilm' (offline), "
            "'ollama:<model>' (e.g. ollama:nomic-embed-text) or 'openai:<model>' with "
            "embedding_base_url")


@pytest.mark.parametrize("argv,code,message", [
    (["context", "--session", "nosuch"], 2, NO_SESSION),
    (["context", "--provider", "nope"], 2, f"unknown provider 'nope'; known: {PROVIDERS}"),
    (["search", "x", "--top-k", "0"], 2, TOP_K),
    (["search", "x", "--top-k", "31"], 2, TOP_K),
    (["index"], 1, CANNOT_WRITE),
    (["index", "--embedder", "nosuch"], 1, EMBEDDER),
])
@pytest.mark.parametrize("as_json", [True, False])
def test_an_error_is_json_with_json_and_one_line_without(argv, code, message, as_json,
                                                         tmp_path: Path, capsys) -> None:
    """`context --session nosuch --json`, `context --provider nope --json`, `search x
    --top-k 0 --json` and `index --json` in a project it cannot write printed nothing on
    stdout, only a line on stderr (index's wrapped at 80 columns, '[Errno' and '17]' on two
    lines); context called a mistyped session id exit 1 where exec calls it 2."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "util.py").write_text("def parse(text):\n    return text\n")
    (project / ".paicli").write_text("")  # a file where the index folder would go
    message = message.replace("{project}", str(project))
    name = argv[0]
    assert cli.main([*argv, "--project", str(project), *(["--json"] if as_json else [])]) \
        == code
    out, err = capsys.readouterr()
    if as_json:
        assert (json.loads(out), err) == ({"status": "error", "message": message}, "")
    else:
        assert (out, err) == ("", f"paicli-tui {name}: {message}\n")


def _ctrl_c(*args: object, **kwargs: object) -> None:
    raise KeyboardInterrupt


@pytest.mark.parametrize("argv,module,function", [
    (["index"], "index_cmd", "run"),
    (["search", "x"], "search_cmd", "run"),
    (["graph", "X"], "graph_cmd", "run"),
    (["memory", "list"], "memory_cmd", "run"),
    (["sessions"], "sessions_cmd", "run"),
    (["context"], "context_cmd", "run"),
    # exec before its session started (the model client being built)
    (["exec", "hi", "--provider", "custom", "--base-url", "http://127.0.0.1:9/v1",
      "--model", "x"], "exec_cmd", "_services"),
])
@pytest.mark.parametrize("as_json", [True, False])
def test_ctrl_c_is_said_like_an_error_and_exits_130(argv, module, function, as_json,
                                                     tmp_path: Path, capsys,
                                                     monkeypatch) -> None:
    """Ctrl+C during `paicli-tui index --json` exited 130 with nothing on stdout or stderr:
    a script could not tell it from a crash. It is said like any error now."""
    import importlib

    monkeypatch.setattr(importlib.import_module(f"paicli_tui.commands.{module}"), function,
                        _ctrl_c)
    assert cli.main([*argv, "--project", str(tmp_path), *(["--json"] if as_json else [])]) \
        == 130
    out, err = capsys.readouterr()
    name, message = argv[0], "interrupted (Ctrl+C)"
    if name == "exec":
        line = {"type": "error", "message": message, "recoverable": False, "session": None,
                "exit_code": 130}
        assert (out, err) == ((json.dumps(line) + "\n") if as_json else "",
                              f"paicli-tui exec: {message}\n")
    elif as_json:
        assert (json.loads(out), err) == ({"status": "error", "message": message}, "")
    else:
        assert (out, err) == ("", f"paicli-tui {name}: {message}\n")


@pytest.mark.parametrize("argv,out,err", [
    (["search", "", "--json"],
     {"query": "", "mode": "hybrid", "results": [], "error": "the query is empty"}, ""),
    (["search", "  ", "--mode", "grep", "--json"],
     {"query": "  ", "mode": "grep", "results": [], "error": "the query is empty"}, ""),
    (["search", ""], None, "paicli-tui search: the query is empty\n"),
    (["graph", " ", "--json"], {"name": " ", "error": "the name is empty"}, ""),
    (["graph", ""], None, "paicli-tui graph: the name is empty\n"),
    (["memory", "search", "", "--json"], {"status": "error", "message": "the query is empty"},
     ""),
])
def test_an_empty_query_or_name_is_a_usage_error(argv, out, err, tmp_path: Path,
                                                 capsys) -> None:
    """`paicli-tui search ""` and `graph ""` exited 1 (an error) where `memory search ""`
    exits 2: nothing was looked for, the words given were the mistake."""
    assert cli.main([*argv, "--project", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert (json.loads(captured.out) if out is not None else captured.out, captured.err) == \
        (out if out is not None else "", err)


@pytest.mark.parametrize("flags,message", [
    ([], "no model is configured"),
    (["--provider", "custom", "--model", "x"],
     "provider 'custom' needs --base-url (or PAICLI_BASE_URL)"),
    (["--provider", "custom", "--base-url", "http://127.0.0.1:9/v1"],
     "provider 'custom' needs --model (or PAICLI_MODEL)"),
    (["--provider", "deepseek"],
     "provider 'deepseek' needs an API key: set DEEPSEEK_API_KEY (or PAICLI_API_KEY)"),
])
def test_exec_json_says_what_the_model_lacks(flags, message, tmp_path: Path, capsys) -> None:
    """`exec hi --json --provider custom --model x` said on stderr that custom needs
    --base-url, but its JSON line said only 'no model is configured': the script reading
    stdout could not tell a missing flag from a missing key. The line names the lack. stderr
    printed the chat's 20-line provider guide; it says what is missing, the one thing to set
    and where the rest is."""
    assert cli.main(["exec", "hi", "--json", "--project", str(tmp_path), *flags]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out) == {"type": "error", "message": message, "recoverable": False,
                               "session": None, "exit_code": 1}
    # a short error, not the chat's provider guide (its "then start paicli-tui again")
    fix = (": set a provider's key, e.g. export DEEPSEEK_API_KEY=sk-..., or pass --provider "
           "ollama for a local model") if not flags else ""
    assert err == (f"paicli-tui exec: {message}{fix}\n"
                   "Every provider and setting: paicli-tui --help, docs/providers.md\n")


HUGE = ("a context window of 100,000,001 tokens is more than any model has (the largest are "
        "about 10,000,000): pass the model's real size with --window.")


@pytest.mark.parametrize("argv,code,compaction", [
    (["context", "--window", "100000000"], 0, 99_967_000),
    (["context", "--window", "100000001"], 2, None),
    (["context", "--window", "99999999999999999999"], 2, None),
])
def test_a_window_no_model_has_is_refused(argv, code, compaction, tmp_path: Path,
                                          capsys) -> None:
    """`context --window 99999999999999999999` printed a compaction trigger of
    99,999,999,999,999,966,999 tokens, and exec ran with it (never compacting, past what a
    JSON reader in JavaScript holds exactly); a window above 100M tokens, ten times the
    largest any model has, is a usage error like one below 2,048."""
    assert cli.main([*argv, "--json", "--project", str(tmp_path)]) == code
    out = json.loads(capsys.readouterr().out)
    if compaction is not None:
        assert out["compaction_trigger"] == compaction
    else:
        window = int(argv[-1])
        assert out == {"status": "error", "message": HUGE.replace(
            "100,000,001", f"{window:,}")}


def _denied(*args: object, **kwargs: object) -> None:
    raise PermissionError(13, "Permission denied", "/srv/home/.paicli/x")


@pytest.mark.parametrize("argv,module", [
    (["sessions"], "sessions_cmd"),
    (["search", "x", "--mode", "grep"], "search_cmd"),
    (["graph", "X"], "graph_cmd"),
])
@pytest.mark.parametrize("as_json", [True, False])
def test_a_disk_error_no_command_foresaw_is_one_line(argv, module, as_json, tmp_path: Path,
                                                     capsys, monkeypatch) -> None:
    """A folder the command cannot read or write (another user's PAICLI_HOME, a read-only
    disk) that no command catches itself ended in a traceback; it is one error, JSON with
    --json, exit 1."""
    import importlib

    monkeypatch.setattr(importlib.import_module(f"paicli_tui.commands.{module}"), "run",
                        _denied)
    assert cli.main([*argv, "--project", str(tmp_path), *(["--json"] if as_json else [])]) \
        == 1
    out, err = capsys.readouterr()
    message = "[Errno 13] Permission denied: '/srv/home/.paicli/x'"
    if as_json:
        assert (json.loads(out), err) == ({"status": "error", "message": message}, "")
    else:
        assert (out, err) == ("", f"paicli-tui {argv[0]}: {message}\n")
