"""Files of the work tree that git runs as hooks (for the write tools' approval).

A write into ``.git/`` is asked about every time because git runs its hooks on the person's
next commit. Hooks need not live there: ``core.hooksPath`` names a folder of the work tree
(``.githooks/``, husky's ``.husky/_``, whose scripts run ``.husky/<hook>``), tracked like
code, and the pre-commit framework's hook runs what ``.pre-commit-config.yaml`` says
(``language: system`` is any command), lefthook's what ``lefthook.yml`` says. A write there
runs the same way, in the person's own terminal, out of reach of any approval here.

Read at write time, without running git: the repository's ``config`` (and
``config.worktree``) and the person's global ``~/.gitconfig`` /
``$XDG_CONFIG_HOME/git/config`` (or ``$GIT_CONFIG_GLOBAL``), the repository's value last,
each with the files it includes (``include.path``).

A git folder need not be named ``.git``: a bare repository kept in the project
(``vendor/x.git``), or a submodule's folder kept outside ``.git``, is one as soon as it has what
git looks for (:func:`git_folder_holding`); git runs its hooks and its config on a command run
there, so a write into it is asked about like one into ``.git/``.
"""

from __future__ import annotations

import os
from pathlib import Path

from ....regular_files import read_regular
from ...code.git_folders import git_folders
from ...code.person_excludes import config_file_entries, global_git_configs

_HOOK_BYTES = 4_096
_LEFTHOOK_CONFIGS = tuple(f"{dot}lefthook{local}.{ext}" for dot in ("", ".")
                          for local in ("", "-local") for ext in ("yml", "yaml", "toml", "json"))
_HOOK_RUNNERS: tuple[tuple[tuple[bytes, ...], tuple[str, ...]], ...] = (
    ((b"pre-commit.com", b"pre_commit"), (".pre-commit-config.yaml",)),
    ((b"lefthook",), _LEFTHOOK_CONFIGS),
)
"""(what a hook manager writes into the hooks it installs, the work-tree files whose commands
those hooks run): the pre-commit framework, lefthook."""


def _read(path: str, limit: int) -> bytes:
    try:
        data, _ = read_regular(Path(path), limit)
    except OSError:  # NotRegularFile too (a FIFO is not read)
        return b""
    return data


def _work_tree(project_root: Path) -> tuple[str, str, str] | None:
    """(work tree top, git folder, the folder its worktrees share) of the repository holding
    the project, found the way git finds it (``.git`` in the project's folder or one above;
    a ``.git`` file names the git folder of a worktree or a submodule)."""
    here = os.path.realpath(project_root)
    while True:
        folders = git_folders(here)
        if folders is not None:
            return here, *folders
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _hooks_path(git_dir: str, common: str) -> str | None:
    """core.hooksPath as git would take it: the person's global config, then the
    repository's (a linked worktree keeps its config in the main repository's folder)."""
    value = None
    for config in (*global_git_configs(os.environ), os.path.join(common, "config"),
                   os.path.join(git_dir, "config.worktree")):
        for key, found in config_file_entries(config, os.environ):  # its includes too
            if key == "core.hookspath":
                value = found
    return value


def git_hook_paths(project_root: Path) -> tuple[frozenset[str], frozenset[str]]:
    """(folders, files), real paths: what git runs as hooks of the project's repository,
    outside its git folder (the git folder is asked about anyway)."""
    located = _work_tree(project_root)
    if located is None:
        return frozenset(), frozenset()
    top, git_dir, common = located
    folders: set[str] = set()
    hooks = os.path.join(common, "hooks")  # a linked worktree runs the shared hooks
    configured = _hooks_path(git_dir, common)
    if configured:
        hooks = os.path.realpath(os.path.join(top, os.path.expanduser(configured)))
        folders.add(hooks)
        if os.path.basename(hooks) == "_" and os.path.basename(os.path.dirname(hooks)) \
                == ".husky":
            folders.add(os.path.dirname(hooks))  # .husky/_/pre-commit runs .husky/pre-commit
    return frozenset(folders), frozenset(_runner_configs(top, hooks))


def _runner_configs(top: str, hooks: str) -> set[str]:
    """The configs (real paths) of the hook managers whose hooks are installed in ``hooks``."""
    try:
        names = os.listdir(hooks)
    except OSError:
        names = []
    heads = [_read(os.path.join(hooks, name), _HOOK_BYTES) for name in names[:64]]
    return {os.path.realpath(os.path.join(top, config))
            for marks, configs in _HOOK_RUNNERS
            if any(mark in head for head in heads for mark in marks)
            for config in configs}


def runs_as_git_hook(path: Path, hook_paths: tuple[frozenset[str], frozenset[str]]) -> bool:
    """Whether git runs ``path`` (or reads it to decide what to run) as a hook."""
    folders, files = hook_paths
    real = os.path.realpath(path)
    return real in files or any(real == folder or real.startswith(folder + os.sep)
                                for folder in folders)


def _is_git_folder(folder: str, written: str) -> bool:
    """Whether ``folder`` is a git repository's own folder once ``written`` is: a ``HEAD``
    file, and ``objects/`` with ``refs/`` (or the ``commondir`` file of a linked worktree's
    folder), what git checks before it takes a folder for one. The write counts: the one
    that completes the shape (``refs/heads/main`` last) makes it a repository too. Names are
    compared without case (a case-insensitive disk finds ``head`` as ``HEAD``)."""
    lowered = written.lower()

    def made_here(name: str, folder_too: bool) -> bool:
        target = os.path.join(folder, name).lower()
        return lowered == target if not folder_too else lowered.startswith(target + os.sep)

    def has_file(name: str) -> bool:
        return os.path.isfile(os.path.join(folder, name)) or made_here(name, False)

    def has_folder(name: str) -> bool:
        return os.path.isdir(os.path.join(folder, name)) or made_here(name, True)

    return has_file("HEAD") and ((has_folder("objects") and has_folder("refs"))
                                 or has_file("commondir"))


def git_folder_holding(path: Path, project_root: Path) -> str | None:
    """The project-relative folder, holding ``path`` (up to the project root itself), that
    is a git repository's own folder once ``path`` is written (see :func:`_is_git_folder`),
    or None."""
    root = os.path.realpath(project_root)
    written = os.path.realpath(path)
    folder = os.path.dirname(written)
    while folder == root or folder.startswith(root + os.sep):
        if _is_git_folder(folder, written):
            return os.path.relpath(folder, root)
        if folder == root:
            return None
        folder = os.path.dirname(folder)
    return None
