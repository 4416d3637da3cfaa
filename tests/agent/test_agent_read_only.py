"""Read-only commands run without asking; everything else, however disguised, asks.

The table is the contract: each hostile form names the trick it uses, and the reason the reader
gives is checked by its opening words, so a command refused for the wrong reason fails too.
"""

from __future__ import annotations

import os

import pytest
from agent_script import ScriptedClient, Step, call, drain, one_turn_calls

from paicli_tui.config import Settings
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.agent.tools import ExecuteCommandTool
from paicli_tui.core.contracts.asks import ApprovalDecision, Permission
from paicli_tui.core.contracts.events import ToolCallFinished
from paicli_tui.core.contracts.read_only import ReadOnlyVerdict, read_only_verdict
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.contracts.tools import ToolContext

DEFAULT = Settings().read_only_commands

READ_ONLY = [
    "ls",
    "ls -la | head",
    "ls -la | head -n 5",
    "cat README.md",
    "cat < README.md",
    "head -n 20 src/a.py && wc -l src/a.py",
    "wc -l src/*.py",  # a wildcard for a program without option runners is fine
    "git status",
    "git status --short; git diff --stat",
    "git -C src log --oneline -3",
    "git --no-pager show HEAD~1",
    "git log -p | head -50",
    "rg -n 'def main' -g '*.py'",
    "rg TODO src 2>/dev/null",
    "grep -rn 'foo$' .",  # '$' at the end of a pattern expands nothing
    "find . -name '*.py' -type f",
    'find src -iname "*.md"',
    "ls 2>&1 | wc -l",
    "ls >/dev/null",
    "ls missing || echo none",
    "sort README.md | uniq -c | sort -rn | head",
    "ls\npwd",  # two lines, both read-only
]

# (command, start of the reason)
NOT_READ_ONLY = [
    ("ls; rm -rf x", "rm is not on the read-only list"),
    ("ls && rm -rf x", "rm is not on the read-only list"),
    ("ls\nrm -rf x", "rm is not on the read-only list"),
    ("ls | xargs rm", "xargs is not on the read-only list"),
    ("cat a | sh", "sh is not on the read-only list"),
    ("echo $(rm -rf x)", "runs a subshell"),
    ('echo "$(rm -rf x)"', "expands or substitutes"),
    ("echo `rm -rf x`", "expands or substitutes"),
    ("cat <(rm -rf x)", "runs a subshell"),
    ("(rm -rf x)", "runs a subshell"),
    ("ls & rm -rf x", "runs a subshell or a background job (&)"),
    ("cat $HOME/.ssh/id_rsa", "expands or substitutes"),
    ("ls ${IFS}", "expands or substitutes"),
    ("ls $((1))", "runs a subshell"),
    ("ls ${x:-y}", "expands or substitutes"),
    ("cat a > b", "writes to a file (> b)"),
    ("cat a >> b", "writes to a file (>> b)"),
    ("ls >| b", "writes to a file (>| b)"),
    ("ls &> b", "writes to a file (&> b)"),
    ("ls >&b", "writes to a file (>& b)"),
    ("cat <<EOF\nx\nEOF", "uses << (a here-document"),
    ("cat <<< x", "uses <<<"),
    ("cat <> a", "uses <>"),
    ("ls >", "a redirection (>) without a target"),
    ("GIT_PAGER='rm -rf x' git log", "sets a variable for the command (GIT_PAGER)"),
    ("./ls", "runs a program by path"),
    ("/bin/rm -rf x", "runs a program by path"),
    ("sudo ls", "sudo is not on the read-only list"),
    ("env ls", "env is not on the read-only list"),
    ("find . -delete", "find -delete runs or writes"),
    ("find . -name x -exec rm {} \\;", "find -exec runs or writes"),
    ("find . -execdir rm {} +", "find -execdir runs or writes"),
    ("find . -fprint out", "find -fprint runs or writes"),
    ("find . -name *.py", "an unquoted wildcard (*.py)"),
    ("find . -name '*.py' -name *.py", "an unquoted wildcard (*.py)"),
    ("rg foo *", "an unquoted wildcard (*)"),
    ("rg --pre=sh foo", "rg --pre runs a program"),
    ("rg --pre sh foo", "rg --pre runs a program"),
    ("sort -o out a", "sort -o writes a file"),
    ("sort -uo out a", "sort -o writes a file"),
    ("sort --output=out a", "sort -o writes a file"),
    ("uniq a b", "uniq with two files writes the second"),
    ("git -c core.pager=rm log", "git -c changes what git runs"),
    ("git diff --output=x", "git --output writes or runs"),
    ("git diff --ext-diff", "git --ext-diff writes or runs"),
    ("git push", "git push is not on the read-only list"),
    ("git checkout .", "git checkout is not on the read-only list"),
    ("git branch -D main", "git branch is not on the read-only list"),
    ("cat /etc/passwd", "reads outside the project (/etc/passwd)"),
    ("cat < /etc/passwd", "reads outside the project (/etc/passwd)"),
    ("ls ..", "reads outside the project (..)"),
    ("cat ../secret", "reads outside the project (../secret)"),
    ("cat ~/.aws/credentials", "reads outside the project (~/.aws/credentials)"),
    ("cat out-link", "reads outside the project (out-link)"),
    ("rg --file=/etc/passwd x", "reads outside the project (--file=/etc/passwd)"),
    ("git -C /tmp log", "reads outside the project (/tmp)"),
    ("ls 'unclosed", "cannot be parsed"),
    ("rm -rf x", "rm is not on the read-only list"),
    ("", "empty command"),
]


@pytest.fixture
def root(tmp_path):
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "README.md").write_text("hello\n")
    (project / "src" / "a.py").write_text("def main():\n    pass\n")
    os.symlink("/etc", project / "out-link")
    return project


@pytest.mark.parametrize("command", READ_ONLY)
def test_read_only_commands(command, root) -> None:
    assert read_only_verdict(command, DEFAULT, root).read_only, command


@pytest.mark.parametrize("command,reason", NOT_READ_ONLY)
def test_hostile_forms_are_not_read_only(command, reason, root) -> None:
    verdict = read_only_verdict(command, DEFAULT, root)
    assert not verdict.read_only
    assert verdict.reason.startswith(reason), verdict.reason


@pytest.mark.parametrize("allowed,command,read_only", [
    ((), "ls", False),  # an empty list asks for everything
    (("git status",), "git status", True),
    (("git status",), "git log", False),  # a sub-command entry allows only that sub-command
    (("git",), "git log", True),
    (("jq",), "jq . README.md", True),  # the person's own entries are honoured...
    (("jq",), "jq . README.md > out", False),  # ...but never with a write
    (("jq",), "jq . /etc/hosts", False),  # ...or outside the project
    (("git diff",), "git diff --stat", True),
    (("find",), "find . -delete", False),  # option checks apply whatever the list says
])
def test_the_list_is_configurable(allowed, command, read_only, root) -> None:
    assert read_only_verdict(command, allowed, root).read_only is read_only


def test_network_commands_are_never_read_only(root) -> None:
    """Even when the person lists a network program, the network reader has the last word."""
    verdict = read_only_verdict("ls && curl example.com", ("ls", "curl"), root)
    assert verdict == ReadOnlyVerdict(False, "curl reaches the network")


def context(project, settings, asked) -> ToolContext:
    async def approve(request):
        asked.append(request.summary)
        return ApprovalDecision.DENY

    return ToolContext(project_root=project, settings=settings, session=SessionState("s"),
                       approve=approve).for_one_call()


async def test_read_only_command_runs_without_asking(root, settings) -> None:
    asked: list[str] = []
    ctx = context(root, settings, asked)
    out = await ExecuteCommandTool().run({"command": "ls | wc -l"}, ctx)
    assert out.status == "done" and out.content.splitlines() == ["[exit code 0]", "3"]
    assert asked == [] and ctx.granted == [Permission.READ_ONLY]


async def test_disguised_write_still_asks_and_does_not_run(root, settings) -> None:
    asked: list[str] = []
    ctx = context(root, settings, asked)
    out = await ExecuteCommandTool().run({"command": "ls; touch made"}, ctx)
    assert out.status == "denied" and not (root / "made").exists()
    assert asked == ["run: ls; touch made"] and ctx.granted == []


async def test_configured_empty_list_asks_for_ls(root, settings) -> None:
    asked: list[str] = []
    ctx = context(root, settings.with_overrides(read_only_commands=()), asked)
    out = await ExecuteCommandTool().run({"command": "ls"}, ctx)
    assert out.status == "denied" and asked == ["run: ls"]


async def test_events_say_how_each_call_went_ahead(settings, root) -> None:
    """One turn: a read-only command (not asked), a write approved "Always" (asked once), a
    second write (not asked: Always), a command needing approval (asked, approved once)."""
    asked: list[str] = []

    async def approve(request):
        asked.append(request.summary)
        return ApprovalDecision.ALWAYS if request.tool == "write_file" else ApprovalDecision.ONCE

    steps = [Step(calls=[call("execute_command", command="git status; ls"),
                         call("write_file", path="a.txt", content="1"),
                         call("write_file", path="b.txt", content="2"),
                         call("execute_command", command="touch c.txt")]),
             Step(text="done")]
    finished, events = await one_turn_calls(settings, root, steps, approve)
    assert finished == [("execute_command", "done", "read-only"),
                        ("write_file", "done", ""),
                        ("write_file", "done", "always"),
                        ("execute_command", "done", "")]
    assert asked == ["create a.txt (1 line)", "run: touch c.txt"]
    json_record = next(e for e in events if isinstance(e, ToolCallFinished)).to_json()
    assert json_record["permission"] == "read-only"


async def test_yes_flag_is_its_own_mark(settings, root) -> None:
    steps = [Step(calls=[call("execute_command", command="touch c.txt")]), Step(text="ok")]
    session = await AgentSession.start(settings.with_overrides(auto_approve=True), root,
                                       client=ScriptedClient(steps))
    events = await drain(session.run_turn("go"))
    finished = next(e for e in events if isinstance(e, ToolCallFinished))
    assert (finished.status, finished.permission) == ("done", "auto")


@pytest.mark.parametrize("separator", [";", "&&", "||", "|", "\n", " & "])
@pytest.mark.parametrize("other", ["rm -rf x", "touch y", "sh -c ls", "python3 x.py", "dd of=x"])
def test_one_part_that_is_not_read_only_spoils_the_line(separator, other, root) -> None:
    for command in (f"ls{separator}{other}", f"{other}{separator}ls"):
        assert not read_only_verdict(command, DEFAULT, root).read_only, command


@pytest.mark.parametrize("toml,expected", [
    ('read_only_commands = ["ls", "git status"]\n', ("ls", "git status")),
    ("read_only_commands = []\n", ()),
    ("", DEFAULT),
])
def test_the_list_comes_from_config_toml(toml, expected, tmp_path) -> None:
    from paicli_tui.config import load_settings

    (tmp_path / "config.toml").write_text(toml, encoding="utf-8")
    settings = load_settings({}, {"PAICLI_HOME": str(tmp_path)})
    assert settings.read_only_commands == expected
