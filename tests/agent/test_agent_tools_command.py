"""execute_command: cwd, exit codes, timeout, output cap, approval and network flagging."""

from __future__ import annotations

import asyncio
import sys

import pytest

from paicli_tui.core.agent.tools import ExecuteCommandTool
from paicli_tui.core.agent.tools.command import run_command
from paicli_tui.core.contracts.asks import approve_all, deny_all
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.contracts.shell import is_network_command
from paicli_tui.core.contracts.tools import ToolContext


def ctx(project, settings, approve=approve_all) -> ToolContext:
    return ToolContext(project_root=project, settings=settings, session=SessionState("s"),
                       approve=approve)


async def test_runs_in_project_with_exit_code(project_dir, settings) -> None:
    (project_dir / "marker.txt").write_text("x")
    out = await ExecuteCommandTool().run({"command": "ls && echo err >&2"},
                                         ctx(project_dir, settings))
    assert out.status == "done"
    assert out.content.splitlines() == ["[exit code 0]", "marker.txt", "err"]
    failed = await ExecuteCommandTool().run({"command": "exit 3"}, ctx(project_dir, settings))
    assert failed.status == "failed" and failed.content.startswith("[exit code 3]")


async def test_denied_command_does_not_run(project_dir, settings) -> None:
    out = await ExecuteCommandTool().run({"command": "touch made"},
                                         ctx(project_dir, settings, deny_all))
    assert out.status == "denied" and not (project_dir / "made").exists()


async def test_timeout_kills_the_command(project_dir, settings) -> None:
    out = await ExecuteCommandTool().run({"command": "sleep 30", "timeout_s": 1},
                                         ctx(project_dir, settings))
    assert out.status == "failed" and "killed after 1 s" in out.content


async def test_output_cap_counts_what_was_not_kept(project_dir) -> None:
    command = f"{sys.executable} -c \"print('é' * 50000)\""
    code, text, total, timed_out = await run_command(command, str(project_dir), 30, 1000)
    assert code == 0 and not timed_out
    assert len(text) == 1000 and set(text) == {"é"} and total == 50001


async def test_cancellation_kills_the_process(project_dir) -> None:
    task = asyncio.create_task(run_command("sleep 30", str(project_dir), 60, 100))
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


@pytest.mark.parametrize("command,external", [
    ("curl https://example.com", True),
    ("ls && wget http://x", True),
    ("cat a | ssh host cat", True),
    ("FOO=1 sudo curl x", True),
    ("git clone https://github.com/a/b", True),
    ("git -C x fetch", True),
    ("git status", False),
    ("echo curl", False),
    ("python -m pytest -q", False),
    ("grep -r wget .", False),
    ("$(curl x)", True),
    ("dig example.com", True),
    ("docker pull python:3.12", True),
    ("docker ps", False),
    ("ollama pull qwen3", True),
    ("ollama list", False),
    ("pip install -e .", True),
    ("pip list", False),
    ("npm install", True),
    ("npm ls", False),
    ("npm test", True),  # no project given: its package.json script cannot be read
])
def test_network_commands_are_flagged(command, external) -> None:
    assert is_network_command(command) is external


async def test_tool_marks_network_output_external(project_dir, settings) -> None:
    out = await ExecuteCommandTool().run({"command": "curl --version >/dev/null 2>&1; true"},
                                         ctx(project_dir, settings))
    assert out.external


@pytest.mark.parametrize("command,summary", [
    ("touch x", "run: touch x"),
    ("ls\nrm -rf build", "run: ls (+1 more line)"),
    ("echo ok\n\n\n" + "true\n" * 40 + "rm -rf ~", "run: echo ok (+43 more lines)"),
    # a first line past the summary's 200 characters says it goes on
    ("echo hi" + " " * 300 + "; rm -rf ~",
     "run: echo hi" + " " * 193 + "… (+117 more characters)"),
    ("x" * 200, "run: " + "x" * 200),
    ("echo " + "a" * 1200 + "\nrm -rf ~",
     "run: echo " + "a" * 195 + "… (+1,005 more characters) (+1 more line)"),
])
async def test_the_approval_summary_says_a_command_has_more_lines(project_dir, settings,
                                                                  command: str,
                                                                  summary: str) -> None:
    # the summary showed the first line only: "run: ls" over a second line "rm -rf build"
    asked = []

    async def record(request):
        asked.append(request)
        return False

    await ExecuteCommandTool().run({"command": command}, ctx(project_dir, settings, record))
    assert [r.summary for r in asked] == [summary]
    assert asked[0].detail.startswith(f"$ {command}\n")  # the whole command below it


@pytest.mark.parametrize("command", ["echo a\x00b", "ls\x00; rm -rf x"])
async def test_a_command_with_a_nul_byte_is_refused_before_anything(project_dir, settings,
                                                                    command: str) -> None:
    # the read-only check raised ValueError on it ("failed unexpectedly"), or the person was
    # asked about a command no shell can be given
    asked = []

    async def record(request):
        asked.append(request)
        return True

    out = await ExecuteCommandTool().run({"command": command}, ctx(project_dir, settings, record))
    assert out.status == "failed" and asked == []
    assert out.content == ("execute_command failed: the command holds a NUL byte (\\x00); no "
                           "shell can run it")
