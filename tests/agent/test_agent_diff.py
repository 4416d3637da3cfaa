"""/diff's views: the git work tree against HEAD (untracked files, not ignored ones), and the
agent's last turn from its checkpoints. Hostile projects: names with line breaks and escape
sequences, a 5 MB change, binary files, a .env holding a key, a repository configured to make
git run programs."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from paicli_tui.core.agent import git_changes
from paicli_tui.core.agent.checkpoints import FileCheckpoints
from paicli_tui.core.agent.diff_view import MAX_DIFF_CHARS, FileChange, file_diff
from paicli_tui.core.agent.git_changes import NOT_A_REPOSITORY, GitUnavailable, working_tree_diff
from paicli_tui.core.agent.turn_diff import last_turn_diff
from paicli_tui.core.llm.redact import redact_known

KEY = "sk-diff-0123456789abcdef0123456789"


def masked(text: str) -> str:
    return redact_known(text, [KEY])


def git_env(tmp_path: Path) -> dict[str, str]:
    """No person's configuration: a test must not depend on (or run) the machine's."""
    return {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home"),
            "GIT_CONFIG_NOSYSTEM": "1"}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c",
                    "core.hooksPath=/dev/null", *args], cwd=root, check=True,
                   capture_output=True, env=git_env(root.parent))


def new_repository(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    root.mkdir()
    (tmp_path / "home").mkdir(exist_ok=True)
    git(root, "init", "-q")
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = new_repository(tmp_path, "repo")
    (root / "app.py").write_text("a = 1\nb = 2\n", encoding="utf-8")
    (root / "logo.png").write_bytes(b"\x89PNG\0\0old")
    (root / ".gitignore").write_text("build/\n", encoding="utf-8")
    git(root, "add", ".")
    git(root, "commit", "-qm", "first")
    return root


def diff_of(root: Path) -> git_changes.DiffView:
    return working_tree_diff(root, git_env(root.parent), masked)


def test_the_work_tree_against_head(repo: Path) -> None:
    (repo / "app.py").write_text("a = 1\nb = 3\nc = 4\n", encoding="utf-8")
    (repo / "logo.png").write_bytes(b"\x89PNG\0\0new")
    (repo / "notes.md").write_text("new\nfile\n", encoding="utf-8")
    (repo / "data.bin").write_bytes(b"\0\1\2" * 100)
    (repo / ".env").write_text(f"API_KEY={KEY}\n", encoding="utf-8")
    (repo / "build").mkdir()
    (repo / "build" / "out.js").write_text("ignored\n", encoding="utf-8")
    view = diff_of(repo)
    rows = {f.path: f for f in view.files}
    assert rows == {
        "app.py": FileChange("app.py", 2, 1), "logo.png": FileChange("logo.png", note="binary"),
        ".env": FileChange(".env", 1, 0, "new"), "notes.md": FileChange("notes.md", 2, 0, "new"),
        "data.bin": FileChange("data.bin", note="new, binary"),
    }
    assert view.title == "The work tree against HEAD, untracked files included"
    assert view.summary() == "5 files · +5 −1"
    assert "+b = 3" in view.diff and "-b = 2" in view.diff and "+file" in view.diff
    assert "Binary files a/logo.png and b/logo.png differ" in view.diff
    assert "\0" not in view.diff and "\1" not in view.diff
    assert "+API_KEY=****" in view.diff and KEY not in view.diff
    assert "ignored" not in view.diff and view.notes == []


def test_hostile_names_stay_on_their_line(repo: Path) -> None:
    (repo / "evil\nname\x1b[2J.py").write_text("x\n", encoding="utf-8")
    (repo / "app.py").write_text("changed\n", encoding="utf-8")
    git(repo, "add", "app.py")
    (repo / "tracked\x1b]52;c;aGk=\x07.py").write_text("y\n", encoding="utf-8")
    git(repo, "add", "tracked\x1b]52;c;aGk=\x07.py")
    (repo / "配置.py").write_text("z\n", encoding="utf-8")
    git(repo, "add", "配置.py")
    view = diff_of(repo)
    paths = sorted(f.path for f in view.files)
    assert paths == ["app.py", "evil\\x0aname\\x1b[2J.py", "tracked\\x1b]52;c;aGk=\\x07.py",
                     "配置.py"]
    assert "\x1b" not in view.diff and "\x07" not in view.diff
    assert "+++ b/evil\\x0aname\\x1b[2J.py" in view.diff
    assert '+++ "b/tracked\\033]52;c;aGk=\\a.py"' in view.diff  # git's own escapes
    assert "+++ b/配置.py" in view.diff  # as written, not as octal bytes


def test_a_huge_diff_is_cut_with_a_note(repo: Path) -> None:
    line = "x" * 99 + "\n"
    (repo / "app.py").write_text(line * 50_000, encoding="utf-8")  # 5 MB
    (repo / "later.txt").write_text("after the cut\n", encoding="utf-8")
    view = diff_of(repo)
    assert len(view.diff) <= MAX_DIFF_CHARS and view.diff.endswith("\n")
    assert view.notes == [f"The diff is cut after {len(view.diff):,} characters (of more than "
                          "that); git diff in a terminal shows the whole of it."]
    rows = {f.path: f for f in view.files}
    assert rows["app.py"] == FileChange("app.py", 50_000, 2)
    assert rows["later.txt"].note == "new, not shown: the diff is full"


def test_no_commit_yet(tmp_path: Path) -> None:
    root = new_repository(tmp_path, "fresh")
    (root / "a.txt").write_text("one\n", encoding="utf-8")
    git(root, "add", "a.txt")
    (root / "b.txt").write_text("two\n", encoding="utf-8")
    view = diff_of(root)
    assert view.title == "The work tree (no commit yet: all of it is new)"
    assert [(f.path, f.added) for f in view.files] == [("a.txt", 1), ("b.txt", 1)]


def test_not_a_repository(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    plain = tmp_path / "plain"
    plain.mkdir()
    env = {**git_env(tmp_path), "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    with pytest.raises(GitUnavailable) as raised:
        working_tree_diff(plain, env, masked)
    assert str(raised.value) == NOT_A_REPOSITORY


def test_a_repository_git_refuses_is_not_called_missing(repo: Path) -> None:
    """A repository of another user (a project mounted into a container) is refused by git,
    and /diff said the project was not in a repository at all."""
    env = {**git_env(repo.parent), "GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"}
    (repo / "src").mkdir()  # the project a folder inside it: the .git is looked for above
    if subprocess.run(["git", "rev-parse"], cwd=repo, env=env, capture_output=True
                      ).returncode == 0:
        pytest.skip("this git predates GIT_TEST_ASSUME_DIFFERENT_OWNER (2.35.2)")
    with pytest.raises(GitUnavailable) as raised:
        working_tree_diff(repo / "src", env, masked)
    assert str(raised.value) == (
        f"git does not use the repository at {repo}: most often it belongs to another user "
        "(git calls it dubious ownership; `git status` in a terminal says why and how to "
        "trust it).")


def test_the_repositorys_programs_never_run(repo: Path) -> None:
    """fsmonitor, a textconv driver, an external diff and the post-index-change hook are
    set by the repository: the diff is shown and none of them ran."""
    marker = repo.parent / "ran"
    run = f"touch {marker}"
    git(repo, "config", "core.fsmonitor", run)
    git(repo, "config", "diff.external", run)
    git(repo, "config", "diff.evil.textconv", run)
    git(repo, "config", "core.pager", run)
    hook = repo / ".git" / "hooks" / "post-index-change"
    hook.write_text(f"#!/bin/sh\n{run}\n", encoding="utf-8")
    hook.chmod(0o755)
    (repo / ".gitattributes").write_text("*.py diff=evil\n", encoding="utf-8")
    os.utime(repo / "app.py", (1, 1))  # stat-dirty: git would refresh (and write) the index
    (repo / "app.py").write_text("a = 1\nb = 5\n", encoding="utf-8")
    view = diff_of(repo)
    assert "+b = 5" in view.diff
    assert not marker.exists()


def test_a_filter_is_refused_with_the_reason(repo: Path) -> None:
    marker = repo.parent / "ran"
    git(repo, "config", "filter.evil.clean", f"touch {marker}; cat")
    (repo / ".gitattributes").write_text("*.py filter=evil\n", encoding="utf-8")
    (repo / "app.py").write_text("changed\n", encoding="utf-8")
    with pytest.raises(GitUnavailable) as raised:
        diff_of(repo)
    said = str(raised.value)
    assert said.startswith("/diff does not run git in this project: the repository's git "
                           "config filter.*.clean makes git run a program (touch ")
    assert said.endswith(") on the files it compares.")
    assert not marker.exists()


def test_git_lfs_as_installed_is_not_refused(repo: Path) -> None:
    git(repo, "config", "filter.lfs.clean", "git-lfs clean -- %f")
    git(repo, "config", "filter.lfs.process", "git-lfs filter-process")
    (repo / "app.py").write_text("changed\n", encoding="utf-8")
    assert "+changed" in diff_of(repo).diff
    git(repo, "config", "filter.lfs.clean", "git-lfs clean -- %f; touch x")
    with pytest.raises(GitUnavailable):
        diff_of(repo)


@pytest.mark.parametrize(("script", "said"), [
    (None, "git is not installed (or not on PATH)."),
    (f"#!/bin/sh\nexec {shutil.which('sleep')} 30\n", "git did not answer within 1 s."),
])
def test_git_missing_or_stuck_is_said(repo: Path, monkeypatch, script, said) -> None:
    bin_dir = repo.parent / "bin"
    bin_dir.mkdir()
    if script is not None:
        (bin_dir / "git").write_text(script, encoding="utf-8")
        (bin_dir / "git").chmod(0o755)
    monkeypatch.setattr(git_changes, "GIT_TIMEOUT_S", 1.0)
    with pytest.raises(GitUnavailable) as raised:
        working_tree_diff(repo, {"PATH": str(bin_dir)}, masked)
    assert str(raised.value) == said


@pytest.mark.parametrize(("before", "after", "row"), [
    (b"a\nb\n", b"a\nc\nd\n", FileChange("f", 2, 1)),
    (None, b"x\n", FileChange("f", 1, 0, "new")),
    (b"x\ny\n", None, FileChange("f", 0, 2, "deleted")),
    (b"PNG\0", b"PNG\0\1", FileChange("f", note="binary")),
    (None, b"\0", FileChange("f", note="new, binary")),
])
def test_file_diff_counts(before, after, row) -> None:
    assert file_diff("f", before, after)[0] == row


def checkpoints_with_a_turn(tmp_path: Path) -> tuple[FileCheckpoints, Path]:
    root = tmp_path / "project"
    root.mkdir()
    points = FileCheckpoints(tmp_path / "checkpoints", root)
    app, new = root / "app.py", root / "new.py"
    app.write_text("one\n", encoding="utf-8")
    points.record("t1", 1, app, "app.py", b"one\n", b"two\n")
    app.write_text("two\n", encoding="utf-8")
    points.record("t2", 2, app, "app.py", b"two\n", b"three\n")
    points.record("t2", 2, app, "app.py", b"three\n", f"four {KEY}\n".encode())
    app.write_text(f"four {KEY}\n", encoding="utf-8")
    points.record("t2", 2, new, "new.py", None, b"x = 1\n")
    new.write_text("x = 1\n", encoding="utf-8")
    return points, root


def test_the_last_turn_from_before_its_first_change_to_now(tmp_path: Path) -> None:
    points, root = checkpoints_with_a_turn(tmp_path)
    view = last_turn_diff(points, masked)
    assert view is not None
    assert view.title == "What the agent changed in turn 2"
    assert view.files == [FileChange("app.py", 1, 1), FileChange("new.py", 1, 0, "new")]
    assert "-two\n+four ****\n" in view.diff and KEY not in view.diff
    (root / "new.py").write_text("x = 2\n", encoding="utf-8")  # the person's edit since
    (root / "app.py").unlink()  # the agent wrote it: it did not delete it
    view = last_turn_diff(points, masked)
    assert view.files == [FileChange("app.py", 0, 1, "deleted since the agent wrote it"),
                          FileChange("new.py", 1, 0, "new, changed since the agent wrote it")]
    (root / "new.py").unlink()  # the file it made, gone: not 'new' with nothing in it
    assert last_turn_diff(points, masked).files[1] == FileChange(
        "new.py", 0, 0, "deleted since the agent wrote it")
    points.undo_last_turn()  # what /undo put back is no longer the last turn
    view = last_turn_diff(points, masked)
    assert view is not None and view.title == "What the agent changed in turn 1"


def test_no_turn_changed_a_file(tmp_path: Path) -> None:
    points = FileCheckpoints(tmp_path / "none", tmp_path)
    assert last_turn_diff(points, masked) is None


async def test_a_session_shows_its_last_turn_masked(paicli_home, project_dir) -> None:
    from agent_script import ScriptedClient, Step, call, drain

    from paicli_tui.config import load_settings
    from paicli_tui.core.agent.session import AgentSession
    from paicli_tui.core.contracts.asks import ApprovalDecision

    async def approve(request):
        return ApprovalDecision.ONCE

    settings = load_settings({}, {"PAICLI_HOME": str(paicli_home), "DEEPSEEK_API_KEY": KEY})
    (project_dir / "app.py").write_text("one\n", encoding="utf-8")
    client = ScriptedClient([
        Step(calls=[call("edit_file", path="app.py", old_string="one", new_string=KEY)]),
        Step(text="edited")])
    session = await AgentSession.start(settings, project_dir, client=client, approve=approve)
    assert await session.last_turn_diff() is None
    await drain(session.run_turn("put the key in"))
    view = await session.last_turn_diff()
    assert view is not None and view.files == [FileChange("app.py", 1, 1)]
    assert "-one\n+****\n" in view.diff and KEY not in view.diff
    await session.aclose()


def test_a_large_turn_is_cut_with_its_own_note(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    points = FileCheckpoints(tmp_path / "checkpoints", root)
    for number in range(3):  # three new files of 90,000 characters: 270,000 of diff
        path = root / f"table{number}.csv"
        data = ("x" * 89 + "\n").encode() * 1_000
        points.record("t1", 1, path, path.name, None, data)
        path.write_bytes(data)
    view = last_turn_diff(points, masked)
    assert view is not None and len(view.diff) <= MAX_DIFF_CHARS
    # each file: 3 lines of header (14 + 17 + 19 characters) and 1,000 lines of 91
    assert view.notes == [f"The diff is cut after {len(view.diff):,} characters (of 273,150); "
                          "the files themselves hold the rest (git is not asked: the turn "
                          "view works without it)."]


def test_a_filter_of_the_repository_above_the_project_is_refused(repo: Path) -> None:
    """The project is a folder inside the repository: its config lies outside the project,
    and git obeys it all the same."""
    marker = repo.parent / "ran"
    git(repo, "config", "filter.evil.clean", f"touch {marker}; cat")
    project = repo / "sub"
    project.mkdir()
    (project / ".gitattributes").write_text("*.py filter=evil\n", encoding="utf-8")
    (project / "a.py").write_text("one\n", encoding="utf-8")
    git(repo, "-c", "filter.evil.clean=cat", "add", "sub")
    git(repo, "-c", "filter.evil.clean=cat", "commit", "-qm", "sub")
    (project / "a.py").write_text("two\n", encoding="utf-8")
    with pytest.raises(GitUnavailable) as raised:
        diff_of(project)
    command = f"touch {marker}; cat"[:40]  # the start of it
    assert str(raised.value) == (
        "/diff does not run git in this project: the repository's git config filter.evil.clean "
        f"makes git run a program ({command}) on the files it compares.")
    assert not marker.exists()
