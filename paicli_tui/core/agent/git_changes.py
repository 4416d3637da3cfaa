"""``/diff``: the project's git work tree against HEAD, untracked files included (not the
ignored ones), as a :class:`~.diff_view.DiffView`.

git runs here in the person's terminal, outside any approval, so nothing of the repository
may make it run a program (security.md, git folders): no pager, no fsmonitor, no hooks (and
no index write that would fire one: ``GIT_OPTIONAL_LOCKS=0``), no external diff or textconv
driver, submodules' work trees not entered; a repository whose own configuration names a
filter (git runs a clean filter on a changed file to compare it) is not diffed at all, and
the person is told why. Every git call has a timeout and reads a bounded amount.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from ...regular_files import NotRegularFile, read_regular
from ..contracts.shell_files import ProjectFiles, Unreadable
from ..contracts.shell_git import git_runs
from ..text.fsnames import display_name
from .diff_view import MAX_DIFF_CHARS, MAX_FILE_BYTES, DiffView, FileChange, assemble, file_diff

GIT_TIMEOUT_S = 10.0
MAX_UNTRACKED = 500
"""Untracked files listed (a build folder nobody ignored can hold a hundred thousand)."""
SAFE_OPTIONS = ("--no-pager", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
                "-c", "core.quotePath=false", "-c", "diff.external=", "-c", "color.ui=false")
"""``core.quotePath=false``: a name in Chinese reads as written, not as octal bytes (git
still escapes a name's control characters, quotes and backslashes whatever the setting)."""
DIFF_OPTIONS = ("--no-renames", "--relative", "--ignore-submodules=dirty", "--no-ext-diff",
                "--no-textconv")
GIT_LFS_FILTERS = frozenset({"git-lfs clean -- %f", "git-lfs smudge -- %f",
                             "git-lfs filter-process"})
"""What ``git lfs install --local`` writes into a repository's config: the person's own
git-lfs, not a program the repository chose, so such a repository is still diffed."""
NOT_A_REPOSITORY = "This project is not in a git repository, so there is no work tree to diff."


class GitUnavailable(Exception):
    """Why the work tree cannot be diffed, in words for the person."""


def _kill_group(process: subprocess.Popen) -> None:
    """git and anything it started (its own session): a child left holding the pipe would
    keep the read waiting."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _run(args: list[str], root: Path, env: Mapping[str, str], limit: int
         ) -> tuple[bytes, bool, int]:
    """(git's first ``limit`` bytes of output, whether there was more, its exit code)."""
    try:
        process = subprocess.Popen(["git", *SAFE_OPTIONS, *args], cwd=root, env=dict(env),
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, start_new_session=True)
    except FileNotFoundError as exc:
        raise GitUnavailable("git is not installed (or not on PATH).") from exc
    timer = threading.Timer(GIT_TIMEOUT_S, _kill_group, (process,))
    timer.start()
    try:
        assert process.stdout is not None
        data = process.stdout.read(limit + 1)
        more = len(data) > limit
        if more:  # what is past the limit is not shown: no need to wait for it
            _kill_group(process)
        code = process.wait()
    finally:
        timer.cancel()
        if process.stdout is not None:
            process.stdout.close()
    if code < 0 and not more:
        raise GitUnavailable(f"git did not answer within {GIT_TIMEOUT_S:.0f} s.")
    return data[:limit], more, code


def _refusal(root: Path) -> str:
    """Why git must not run in this repository ("" when it may): a filter its configuration
    names (git would run it on every changed file), or a configuration it cannot read."""
    try:
        runs = git_runs(ProjectFiles(str(root)), str(root), [], "diff")
    except Unreadable as exc:
        return f"its git configuration cannot be checked ({exc})"
    for source, command in runs.commands:
        if "filter." in source and command.strip() not in GIT_LFS_FILTERS:
            return (f"the repository's {source} makes git run a program "
                    f"({display_name(command[:40])}) on the files it compares")
    return ""


def _filter_in_config(root: Path, env: Mapping[str, str]) -> str:
    """Why git must not run here ("" when it may), asked of git itself, so a repository
    whose folder lies above the project (a project opened in a sub-folder) is read too: a
    filter command set by the repository's own config (or a file it includes). The
    person's global and system filters are theirs and allowed."""
    listed, _, _ = _run(["config", "--show-scope", "--includes", "-z", "--get-regexp",
                         r"^filter\..*\.(clean|process|smudge)$"], root, env, 1_000_000)
    fields = listed.split(b"\0")
    for scope, entry in zip(fields[::2], fields[1::2], strict=False):
        key, _, value = os.fsdecode(entry).partition("\n")
        if scope in (b"local", b"worktree") and value.strip() not in GIT_LFS_FILTERS:
            return (f"the repository's git config {display_name(key)} makes git run a program "
                    f"({display_name(value[:40])}) on the files it compares")
    return ""


def _not_a_repository(root: Path, env: Mapping[str, str]) -> str:
    """Why git found no repository: none there, or one it refused. A project mounted into a
    container, or cloned by another user, is refused by git ('dubious ownership'), and 'not
    in a git repository' sent the person looking for a .git that is there."""
    ceilings = {Path(p) for p in env.get("GIT_CEILING_DIRECTORIES", "").split(os.pathsep) if p}
    for folder in (root, *root.parents):
        if folder in ceilings:  # git does not look at or above it either
            break
        if os.path.lexists(folder / ".git"):
            return (f"git does not use the repository at {display_name(str(folder))}: most "
                    "often it belongs to another user (git calls it dubious ownership; "
                    "`git status` in a terminal says why and how to trust it).")
    return NOT_A_REPOSITORY


def _numstat(output: bytes) -> dict[str, tuple[int | None, int | None]]:
    """``git diff --numstat -z``: path → (added, removed), None for a binary file."""
    counts: dict[str, tuple[int | None, int | None]] = {}
    for record in output.split(b"\0"):
        parts = record.split(b"\t", 2)
        if len(parts) == 3:
            added, removed = (int(p) if p.isdigit() else None for p in parts[:2])
            counts[os.fsdecode(parts[2])] = (added, removed)
    return counts


def _untracked(root: Path, name: str, room: bool) -> tuple[FileChange, str]:
    """A new file's row and diff (only while the diff has ``room``)."""
    path = root / name
    if path.is_symlink():
        return FileChange(display_name(name), note="new, a link"), ""
    if not room:
        return FileChange(display_name(name), note="new, not shown: the diff is full"), ""
    try:
        data, whole = read_regular(path, MAX_FILE_BYTES)
    except NotRegularFile:
        return FileChange(display_name(name), note="new, not a regular file"), ""
    except OSError as exc:
        return FileChange(display_name(name), note=f"new, unreadable: {exc.strerror}"), ""
    if not whole:
        return FileChange(display_name(name), note="new, too large to show"), ""
    return file_diff(name, None, data)


def working_tree_diff(root: Path, env: Mapping[str, str], redact: Callable[[str], str]
                      ) -> DiffView:
    """The work tree of the repository holding ``root`` (only what lies under ``root``)
    against HEAD, untracked files included; GitUnavailable says why not."""
    refusal = _refusal(root)
    if refusal:
        raise GitUnavailable(f"/diff does not run git in this project: {refusal}.")
    env = {**env, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat"}
    _, _, code = _run(["rev-parse", "--is-inside-work-tree"], root, env, 100)
    if code != 0:
        raise GitUnavailable(_not_a_repository(root, env))
    refusal = _filter_in_config(root, env)
    if refusal:
        raise GitUnavailable(f"/diff does not run git in this project: {refusal}.")
    _, _, code = _run(["rev-parse", "--verify", "-q", "HEAD^{commit}"], root, env, 200)
    base, title = "HEAD", "The work tree against HEAD, untracked files included"
    if code != 0:  # no commit yet: everything in the index is new
        empty, _, _ = _run(["hash-object", "-t", "tree", "--stdin"], root, env, 200)
        base, title = empty.decode().strip(), "The work tree (no commit yet: all of it is new)"
    stats, _, code = _run(["diff", "--numstat", "-z", *DIFF_OPTIONS, base, "--"], root, env,
                          4_000_000)
    patch, more, patch_code = _run(["diff", *DIFF_OPTIONS, base, "--"], root, env,
                                   MAX_DIFF_CHARS * 2)
    if code != 0 or (patch_code != 0 and not more):
        raise GitUnavailable(f"git diff failed (exit code {code or patch_code}).")
    files = [FileChange(display_name(path), added, removed,
                        "" if added is not None else "binary")
             for path, (added, removed) in _numstat(stats).items()]
    pieces = [patch.decode("utf-8", errors="replace")]
    listed, _, _ = _run(["ls-files", "-z", "--others", "--exclude-standard"], root, env,
                        4_000_000)
    names = [os.fsdecode(n) for n in listed.split(b"\0") if n]
    notes = []
    if len(names) > MAX_UNTRACKED:
        notes.append(f"{len(names) - MAX_UNTRACKED:,} more untracked files are not listed "
                     "(git status lists them; a .gitignore line would leave them out).")
    size = len(pieces[0])
    for name in names[:MAX_UNTRACKED]:
        row, text = _untracked(root, name, not more and size <= MAX_DIFF_CHARS)
        files.append(row)
        pieces.append(text)
        size += len(text)
    return assemble(title, files, pieces, redact, notes, more=more)
