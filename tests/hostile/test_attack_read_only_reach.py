"""A read-only command cannot read outside the project through words it does not name.

The read-only reader checks every path a command names. Two ways read files no word names:
a walk that follows links (a project can ship `docs/ref -> ../../<outside>`, and
`grep -R KEY .` prints the outside file's lines) and a list of names read from a file
(`sort --files0-from=names` prints the contents of the files listed there), and a wildcard the
shell expands into such a link (`head docs/*.md`). GNU programs
also take any unambiguous prefix of a long option (`--deref`, `--files0=`, `sort --out=`).
Each row is run for real first (the outside text shows), then through `execute_command`:
it asks, and denied, prints nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from denied_command import run_denied

from paicli_tui.core.contracts.read_only import read_only_verdict

SECRET = "OUTSIDE-ONLY-7f3a"

# (command, start of the reason, a program it needs)
ROWS = [
    ("grep -R OUTSIDE .", "grep -R follows links", "grep"),
    ("grep -rnR OUTSIDE .", "grep -rnR follows links", "grep"),
    ("grep --dereference-recursive OUTSIDE .", "grep --dereference-recursive follows", "grep"),
    ("grep --deref OUTSIDE .", "grep --deref follows links", "grep"),
    ("grep -r OUTSIDE *", "an unquoted wildcard (*) could expand into an option of grep",
     "grep"),  # the planted file named -R
    # a quoted decoy spelling the word once vouched for the bare copy beside it
    ("grep -r OUTSIDE \"'*'\" *", "an unquoted wildcard (*) could expand", "grep"),
    ("rg -L OUTSIDE", "rg -L follows links", "rg"),
    ("rg --follow OUTSIDE", "rg --follow follows links", "rg"),
    ("find -L . -name 'key.txt' -exec cat {} ;", "find -L follows links", "find"),
    ("sort --files0-from=names.bin", "sort --files0-from reads the names", "sort"),
    ("sort --files0=names.bin", "sort --files0 reads the names", "sort"),
    ("cat names.bin | sort --files0-from=-", "sort --files0-from reads the names", "sort"),
    # a wildcard the shell expands into a link the project ships
    ("head -n 5 docs/*.md", "reads outside the project (docs/*.md matches docs/key.md)", "head"),
    ("cat */*.md", "reads outside the project (*/*.md matches docs/key.md)", "cat"),
    ("grep -r OUTSIDE docs/r*", "reads outside the project (docs/r* matches docs/ref)", "grep"),
]


@pytest.fixture
def project(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "key.txt").write_text(f"{SECRET}\n")
    root = tmp_path / "project"
    (root / "docs").mkdir(parents=True)
    os.symlink("../../outside", root / "docs" / "ref")
    os.symlink("../../outside/key.txt", root / "docs" / "key.md")
    (root / "names.bin").write_bytes(b"docs/ref/key.txt\0")
    (root / "-R").write_text("")
    (root / "README.md").write_text("hello\n")
    return root


@pytest.mark.parametrize("command,reason,needs", ROWS)
def test_the_row_reads_outside_when_run(command, reason, needs, project) -> None:
    if shutil.which(needs) is None:
        pytest.skip(f"needs {needs}")
    if command.startswith("find"):  # (the -exec only shows the file is reached)
        command = "find -L . -name key.txt"
        expected = "key.txt"
    else:
        expected = SECRET
    done = subprocess.run(command, shell=True, cwd=project, capture_output=True, text=True)
    assert expected in done.stdout


@pytest.mark.parametrize("command,reason,needs", ROWS)
async def test_the_row_asks_and_denied_shows_nothing(command, reason, needs, project,
                                                     settings) -> None:
    out, asked = await run_denied(command, project, settings, reason)
    assert out.status == "denied" and len(asked) == 1 and SECRET not in out.content


@pytest.mark.parametrize("command,reason", [
    ("sort --out=sorted.txt README.md", "sort -o writes a file"),
    ("sort --compress=sh README.md", "sort -o writes a file"),
])
def test_an_abbreviated_long_option_is_the_option(command, reason, project, settings) -> None:
    verdict = read_only_verdict(command, settings.read_only_commands, project)
    assert not verdict.read_only and verdict.reason.startswith(reason), verdict


@pytest.mark.parametrize("command", [
    "grep -r OUTSIDE .",  # -r follows only links named on the command line
    "wc -l *.md", "head -n 3 src*/x*",  # wildcards matching only the project's files
    "rg -n OUTSIDE",
    "find . -name '*.md'",
    "ls *", "ls -la", "wc -l *", "du -sh .",
    "sort -k2 README.md",
    "git log --follow -- README.md",  # git's --follow tracks renames, no links
])
def test_everyday_reads_stay_read_only(command, project, settings) -> None:
    assert read_only_verdict(command, settings.read_only_commands, project).read_only
