"""The CLI agrees with itself and with README: every flag README shows for a command is one
its --help knows, every sub-command takes --project and --json as README says, and a missing
project folder is the same usage error (exit 2, the folder named) for every sub-command."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from paicli_tui import cli

ROOT = Path(__file__).resolve().parents[1]
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]*")


def _options(parser: argparse.ArgumentParser) -> set[str]:
    """Every option string of a parser and of its sub-parsers (memory's actions)."""
    found: set[str] = set()
    for action in parser._actions:
        found.update(s for s in action.option_strings if s.startswith("--"))
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _options(sub)
    return found


def _command_options() -> dict[str, set[str]]:
    out = {"": _options(cli._tui_parser())}
    for name, module in cli._available_commands().items():
        out[name] = _options(cli._command_parser(name, cli._load(module)))
    return out


def _readme_uses() -> list[tuple[str, str, set[str]]]:
    """(command, the line, the flags on it) for every `paicli-tui …` line of README and
    docs/tui.md, code blocks and inline code alike."""
    commands = set(cli._available_commands())
    uses = []
    for doc in ("README.md", "docs/tui.md"):
        for line in (ROOT / doc).read_text(encoding="utf-8").splitlines():
            for match in re.finditer(r"paicli-tui(?: ([a-z]+))?([^`#\n]*)", line):
                name = match.group(1) if match.group(1) in commands else ""
                rest = match.group(2) if name else (match.group(1) or "") + match.group(2)
                flags = set(FLAG.findall(rest))
                if flags:
                    uses.append((name, line.strip(), flags))
    return uses


def test_readme_flags_are_flags_of_their_command() -> None:
    options = _command_options()
    uses = _readme_uses()
    assert len(uses) >= 6  # the headless block is found
    for name, line, flags in uses:
        unknown = flags - options[name]
        assert not unknown, f"{line!r}: `paicli-tui {name}` has no {sorted(unknown)}"


def test_every_sub_command_takes_project_and_json() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "Every sub-command works on the current directory or `--project DIR`, and takes " \
           "`--json`." in text
    for name, found in _command_options().items():
        if name:
            assert {"--project", "--json"} <= found, name


def test_provider_flags_of_the_table_are_on_the_app_and_exec() -> None:
    options = _command_options()
    for flag in ("--provider", "--model", "--base-url", "--window"):
        assert flag in options[""] and flag in options["exec"], flag


@pytest.mark.parametrize("argv", [["exec", "hi"], ["memory", "list"], ["index"],
                                  ["search", "x"], ["graph", "X"], ["sessions"], ["context"],
                                  ["memory", "clear", "--force"]])
def test_a_missing_project_is_exit_2_naming_it(argv, tmp_path, capsys) -> None:
    missing = tmp_path / "no-such-folder"
    assert cli.main([*argv, "--project", str(missing)]) == 2
    err = capsys.readouterr().err
    assert f"project folder {str(missing)!r} does not exist" in err


def test_index_dir_argument_is_checked_the_same_way(tmp_path, capsys) -> None:
    assert cli.main(["index", str(tmp_path / "nope")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_memory_clear_force_clears_without_asking(settings, project_dir, capsys) -> None:
    from paicli_tui.core.memory.book import MemoryBook

    MemoryBook(settings, project_dir).save("The project uses Java 17", scope="project")
    assert cli.main(["memory", "clear", "--force", "--project", str(project_dir)]) == 0
    assert "forgot 1 memory" in capsys.readouterr().out  # it read "1 memories"
    assert MemoryBook(settings, project_dir).list_visible() == []


def test_context_takes_project(project_dir, capsys) -> None:
    assert cli.main(["context", "--window", "200000", "--project", str(project_dir)]) == 0
    assert "compaction trigger" in capsys.readouterr().out


@pytest.mark.parametrize("argv,project", [
    ([], "."),
    (["proj"], "proj"),
    (["--project", "proj"], "proj"),
    (["proj", "--project", "proj"], "proj"),
])
def test_the_app_takes_the_project_both_ways(argv, project, monkeypatch) -> None:
    """`paicli-tui --project DIR` (the sub-commands' spelling, typed in the tmux trial) opens
    the app on DIR like `paicli-tui DIR`."""
    import paicli_tui.app as app

    opened: list[str] = []
    monkeypatch.setattr(app, "run_app", lambda settings, project_dir, resume:
                        opened.append(project_dir) or 0)
    assert cli.main(argv) == 0
    assert opened == [project]


def test_two_different_projects_are_a_usage_error(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main(["a", "--project", "b"])
    assert stop.value.code == 2
    assert "two projects given: 'a' and --project 'b'" in capsys.readouterr().err


@pytest.mark.parametrize("argv,said", [
    (["--resume", "nosuch"],
     "paicli-tui: no session 'nosuch'; `paicli-tui sessions` lists this project's sessions"),
    (["--resume", "20261201-1616"],
     "paicli-tui: no session '20261201-1616'; did you mean 20261201-161657-6c6c4c or "
     "20261201-161602-aaaaaa?"),
    (["exec", "--resume", "20261201-16", "go on"],
     "paicli-tui exec: no session '20261201-16'; did you mean 20261201-161657-6c6c4c or "
     "20261201-161602-aaaaaa?"),
    # no model is configured here: the mistyped id is said first, as a usage error
    (["exec", "--resume", "nosuch", "go on"],
     "paicli-tui exec: no session 'nosuch'; `paicli-tui sessions` lists this project's "
     "sessions"),
])
def test_an_unknown_session_is_a_usage_error_before_anything_opens(argv, said, paicli_home,
                                                                  monkeypatch, capsys) -> None:
    """Found in the tmux trial: `paicli-tui --resume nosuch` opened the app, said "Resumed
    session nosuch · 0 messages from you." and then that it could not reopen it. A mistyped
    or shortened id is now exit 2 before the screen opens (exec the same, before the model
    is built), naming the ids it is the start of; a sub-agent's stream is not suggested. A
    start that only one session has names that session."""
    import paicli_tui.app as app

    raw = paicli_home / "history" / "raw"
    raw.mkdir(parents=True)
    for name in ("20261201-161657-6c6c4c", "20261201-161602-aaaaaa",
                 "20261201-161657-6c6c4c.sub-1"):
        (raw / f"{name}.jsonl").write_text("{}\n", encoding="utf-8")
    opened: list[str] = []
    monkeypatch.setattr(app, "run_app", lambda settings, project_dir, resume:
                        opened.append(resume) or 0)
    assert cli.main(argv) == 2
    assert capsys.readouterr().err.strip() == said
    assert opened == []
    assert cli.main(["--resume", "20261201-161657-6c6c4c"]) == 0
    assert opened == ["20261201-161657-6c6c4c"]
    # a unique start names its session, as /resume in the app takes it (a sub-agent's
    # stream, which starts the same, is not a session to resume)
    assert cli.main(["--resume", "20261201-161657"]) == 0
    assert opened == ["20261201-161657-6c6c4c"] * 2


@pytest.mark.parametrize("spelling", ["'use'", "'use-m3'", "'minilm'", "'use+minilm'",
                                      "'ollama:<model>'", "'openai:<model>'"])
def test_index_help_names_every_embedder_the_docs_offer(spelling) -> None:
    """docs/code-search.md offers `--embedder openai:<model>` (any /v1/embeddings host) and
    the unknown-embedder error names it, but `paicli-tui index --help` did not."""
    parser = cli._command_parser("index", cli._load("index_cmd"))
    text = " ".join(parser.format_help().split())
    assert spelling in text


def test_every_option_of_the_help_is_documented() -> None:
    """The reverse of the README check: `paicli-tui index --help` offered --quiet and
    `paicli-tui search --help` --no-rewrite, which neither README nor docs/ mentioned."""
    text = (ROOT / "README.md").read_text(encoding="utf-8") + "".join(
        path.read_text(encoding="utf-8") for path in sorted((ROOT / "docs").glob("*.md")))
    undocumented = {name or "paicli-tui": sorted(f for f in found - {"--help"}
                                                 if f not in text)
                    for name, found in _command_options().items()}
    assert {name: flags for name, flags in undocumented.items() if flags} == {}


def test_a_ledger_that_is_no_file_is_not_suggested(paicli_home, capsys) -> None:
    """`context --session S` where S's ledger is a FIFO (or a folder) answered "no session
    'S'; did you mean S?": the id was refused as no file, then offered back from the
    folder's listing. Only ledgers that are files are offered."""
    import os

    raw = paicli_home / "history" / "raw"
    raw.mkdir(parents=True)
    os.mkfifo(raw / "20261207-000002-abcdef.jsonl")
    (raw / "20261207-000003-abcdef.jsonl").mkdir()
    for wanted in ("20261207-000002-abcdef", "20261207-000003-abcdef"):
        assert cli.main(["context", "--session", wanted]) == 2
        assert capsys.readouterr().err == (
            f"paicli-tui context: no session '{wanted}'; `paicli-tui sessions` lists this "
            "project's sessions\n")
