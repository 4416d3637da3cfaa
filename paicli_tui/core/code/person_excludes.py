"""The person's own excludes file, which git honours beside every .gitignore.

git reads ``core.excludesFile`` (default ``$XDG_CONFIG_HOME/git/ignore``, else
``~/.config/git/ignore``) for every repository: a person who keeps ``*.swp`` or ``.idea/``
there sees git leave those files out, and the agent's walk must too. git is not run to ask
(a walk starts often, and a repository's config can make git run programs): only the key
``core.excludesFile`` is read from the config files git reads, later ones winning as in git:

- the person's global config, ``$XDG_CONFIG_HOME/git/config`` (or ``~/.config/git/config``)
  then ``~/.gitconfig``, or only ``$GIT_CONFIG_GLOBAL`` when that is set;
- the repository's own ``config`` (a linked worktree's is the main repository's). git
  honours it, so a person's ``git config core.excludesFile …`` for one clone counts here
  too. A hostile repository could point it at any file; that file is only read (bounded,
  never a FIFO or a device) as ignore patterns, which can hide files from the walk and
  nothing more, as a committed .gitignore can.

``include.path`` is followed as git follows it (relative to the including file, ``~``
expanded, at most ten deep): a dotfiles ``~/.gitconfig`` often keeps its settings in an
included ``~/.gitconfig.local``. ``includeIf`` (a condition on the repository or the branch)
is not followed, and the system config is not read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ...regular_files import read_regular_text
from ..contracts.shell_git import config_entries
from .git_folders import git_folders

MAX_CONFIG_BYTES = 1_000_000
"""A git config file is read this far."""


def _home(env: Mapping[str, str]) -> str | None:
    return env.get("HOME") or None


def global_git_configs(env: Mapping[str, str]) -> list[str]:
    """The person's global config files in the order git reads them (the last value wins)."""
    if "GIT_CONFIG_GLOBAL" in env:  # set empty, git reads no global config at all
        return [env["GIT_CONFIG_GLOBAL"]] if env["GIT_CONFIG_GLOBAL"] else []
    home = _home(env)
    configs = []
    xdg = env.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if home else None)
    if xdg:
        configs.append(os.path.join(xdg, "git", "config"))
    if home:
        configs.append(os.path.join(home, ".gitconfig"))
    return configs


MAX_INCLUDE_DEPTH = 10
"""git's own limit: a file including itself is an error there, and read no deeper here."""
MAX_INCLUDED_FILES = 32
"""Included files read for one config file in all. A repository's config that includes
itself twice on each of ten levels would be read 2^10 times, a hundred times 100^10: the
walk would never end (git itself stops at the first level past ten). Their text counts
toward the MAX_CONFIG_BYTES of the file that includes them (32 files of a megabyte each took
8 s to read at every walk)."""


@dataclass
class _Budget:
    """What a config file and the files it includes may still bring, in all."""

    files: int = MAX_INCLUDED_FILES
    chars: int = MAX_CONFIG_BYTES


def config_file_entries(config: str, env: Mapping[str, str]) -> list[tuple[str, str]]:
    """The entries of one git config file as :func:`config_entries` gives them, with each
    ``include.path`` replaced by the entries of the file it names, where git reads them."""
    return _entries_with_includes(config, env, 0, _Budget())


def _entries_with_includes(config: str, env: Mapping[str, str], depth: int,
                           budget: _Budget) -> list[tuple[str, str]]:
    """:func:`config_file_entries` ``depth`` includes down, within ``budget``, shared by
    the whole tree of includes."""
    try:
        text, _ = read_regular_text(config, max(0, budget.chars))
    except OSError:  # missing, unreadable, a FIFO
        return []
    budget.chars -= len(text)
    entries: list[tuple[str, str]] = []
    for key, value in config_entries(text):
        if key != "include.path":
            entries.append((key, value))
        elif value and depth < MAX_INCLUDE_DEPTH and budget.files > 0 and budget.chars > 0:
            included = _home_expanded(value, env)
            if included is not None:
                budget.files -= 1
                entries += _entries_with_includes(
                    os.path.join(os.path.dirname(config), included), env, depth + 1, budget)
    return entries


def _configured(config: str, env: Mapping[str, str]) -> str | None:
    """The last ``core.excludesFile`` of one config file (its includes too), or None."""
    found = None
    for key, value in config_file_entries(config, env):
        if key == "core.excludesfile":
            found = value
    return found


def _home_expanded(value: str, env: Mapping[str, str]) -> str | None:
    """``value`` with a leading '~' (the home folder) or '~user' expanded as git expands it;
    None when it cannot be (no home, no such user)."""
    if value == "~" or value.startswith("~/"):
        home = _home(env)
        return None if home is None else home + value[1:]
    if value.startswith("~"):
        value = os.path.expanduser(value)
        return None if value.startswith("~") else value
    return value


def _expanded(value: str, env: Mapping[str, str], repo_root: Path) -> Path | None:
    """The path git makes of a configured value: '~' is the home folder, '~user' that
    user's, and a relative path is relative to the repository's root (where git runs)."""
    expanded = _home_expanded(value, env)
    return None if expanded is None else repo_root / expanded


def person_excludes_file(repo_root: Path, env: Mapping[str, str] | None = None) -> Path | None:
    """The excludes file git would read for the repository at ``repo_root``, or None."""
    env = os.environ if env is None else env
    value = None
    folders = git_folders(str(repo_root))
    local = [os.path.join(folders[1], "config")] if folders else []
    for config in [*global_git_configs(env), *local]:
        found = _configured(config, env)
        value = value if found is None else found
    if value == "":  # set empty: git reads no excludes file, not even the default
        return None
    if value is not None:
        return _expanded(value, env, repo_root)
    xdg = env.get("XDG_CONFIG_HOME")
    if xdg:
        return Path(xdg) / "git" / "ignore"
    home = _home(env)
    return Path(home) / ".config" / "git" / "ignore" if home else None
