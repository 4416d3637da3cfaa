"""Words the shell rewrites after the read-only reader has read them.

Commands run with `/bin/sh`, which is bash on macOS, Fedora and Arch. Bash decodes ANSI-C
quoting (`$'\\x2dexec'` is `-exec`) and expands braces (`{-exec,touch}` is two words,
`{/etc/hostname,x}` a path outside) after quote removal, where the reader saw a harmless
word: `find . $'\\x2dexec' touch pwned ';'` ran `touch` without a question. Each row is run
by bash in its POSIX mode (bash as /bin/sh) to show what it does, then must ask.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from denied_command import run_denied

from paicli_tui.core.contracts.read_only import read_only_verdict

# (command, what bash does with it, start of the reason)
ROWS = [
    ("find . -maxdepth 0 $'\\x2dexec' touch pwned ';'", "pwned",
     "expands or substitutes something ($'\\x2dexec'"),
    ("find . -maxdepth 0 $\"-exec\" touch pwned ';'", "pwned",
     'expands or substitutes something ($"-exec"'),
    ("sort $'\\x2d\\x2doutput=pwned' README.md", "pwned", "expands or substitutes something"),
    ("find . -maxdepth 0 {-exec,touch} pwned ';'", "pwned",
     "a brace expansion ({-exec,touch}) becomes other words"),
    ("sort {-o,pwned} README.md", "pwned", "a brace expansion ({-o,pwned})"),
    ("cat {../outside.txt,README.md}", "OUTSIDE", "a brace expansion"),
    ("cat $'..\\x2foutside.txt'", "OUTSIDE", "expands or substitutes something"),
    # a quoted decoy spelling the braces once vouched for the bare copy beside it
    ("find . -maxdepth 0 -name \"'{-exec,touch}'\" -o {-exec,touch} pwned ';'", "pwned",
     "a brace expansion ({-exec,touch}) becomes other words"),
    ("cat \"'{../outside.txt,README.md}'\" {../outside.txt,README.md}", "OUTSIDE",
     "a brace expansion ({../outside.txt,README.md})"),
    ('cat {"../outside.txt",README.md}', "OUTSIDE", "a brace expansion"),  # quoted inside
]


@pytest.fixture
def project(tmp_path):
    (tmp_path / "outside.txt").write_text("OUTSIDE\n")
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text("hello\n")
    return root


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("command,effect,reason", ROWS)
def test_bash_as_sh_rewrites_the_row(command, effect, reason, project) -> None:
    done = subprocess.run(["bash", "--posix", "-c", command], cwd=project,
                          capture_output=True, text=True)
    assert (project / effect).exists() or effect in done.stdout


@pytest.mark.parametrize("command,effect,reason", ROWS)
async def test_the_row_asks(command, effect, reason, project, settings) -> None:
    out, asked = await run_denied(command, project, settings, reason)
    assert out.status == "denied" and len(asked) == 1
    assert not (project / effect).exists() and "OUTSIDE\n" not in out.content


@pytest.mark.parametrize("command", [
    "grep -rn 'foo$' .", 'grep -rn "foo$" .',  # a quoted $ at a pattern's end
    "rg 'a{2,3}' .", 'rg -n "x{1,2}"',  # quoted braces are the program's
    'find . -name "{a,b}"', "ls {}", 'cat "{"README.md,x}',  # a quoted { opens none
])
def test_quoted_dollars_and_braces_stay_read_only(command, project, settings) -> None:
    assert read_only_verdict(command, settings.read_only_commands, project).read_only
