"""`.paicli/` stays out of `git status` as a whole after first use (its .gitignore ignores
everything, itself included); an older generated file is replaced, a person's own kept."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from paicli_tui.paths import keep_dot_dir_out_of_git


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_status_shows_nothing_of_dot_paicli(project_dir) -> None:
    subprocess.run(["git", "init", "-q", str(project_dir)], check=True)
    dot = project_dir / ".paicli"
    (dot / "tool-outputs" / "s1").mkdir(parents=True)
    (dot / "tool-outputs" / "s1" / "001-read_file.txt").write_text("x")
    (dot / "index.lock").write_text("")
    keep_dot_dir_out_of_git(dot)
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                            cwd=project_dir, capture_output=True, text=True, check=True)
    assert ".paicli" not in status.stdout


@pytest.mark.parametrize(("before", "after"), [
    (None, "*\n"),
    ("index/\nindex.lock\n", "*\n"),          # what earlier versions wrote
    ("index/\n!PAI.md\n", "index/\n!PAI.md\n"),  # the person's own: untouched
])
def test_the_ignore_file(project_dir, before, after) -> None:
    dot = project_dir / ".paicli"
    dot.mkdir()
    if before is not None:
        (dot / ".gitignore").write_text(before)
    keep_dot_dir_out_of_git(dot)
    assert (dot / ".gitignore").read_text() == after
