"""What a local git command may run besides git itself (behaviour §16).

``git status`` is local only if the repository's own configuration does not make git run
something: ``core.fsmonitor``, filters, diff drivers, aliases starting with ``!``, an editor or
a pager, and the hooks a sub-command fires (``pre-commit``, ``post-checkout`` …). A crafted
project can ship its ``.git/config`` and ``.git/hooks``; this module reads them (when they
lie inside the project) and returns the commands and hook files git would run, for the
reader to judge. ``git -c key=value`` options are read the same way.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from .shell_files import ProjectFiles, Unreadable

# Configuration keys whose value is a command git runs (lower-case, subsection as '*').
_COMMAND_KEYS = re.compile(
    r"^(?:core\.(?:fsmonitor|editor|pager|sshcommand|askpass|gitproxy)|sequence\.editor"
    r"|diff\.external|diff\.\*\.(?:command|textconv)|filter\.\*\.(?:clean|smudge|process)"
    r"|merge\.\*\.driver|gpg\.(?:\*\.)?program|credential\.(?:\*\.)?helper|pager\.\w+"
    r"|interactive\.difffilter|uploadpack\.packobjectshook)$")
_INCLUDE_KEYS = re.compile(r"^(?:include|includeif\.\*)\.path$")
# post-index-change fires whenever git writes the index, and `git status` / `git diff`
# refresh it on their own (a touched file is enough).
_HOOKS = {
    "status": ("post-index-change",), "diff": ("post-index-change",),
    "add": ("post-index-change",), "rm": ("post-index-change",), "mv": ("post-index-change",),
    "commit": ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit",
               "post-rewrite"),
    "checkout": ("post-checkout",), "switch": ("post-checkout",), "clone": ("post-checkout",),
    "merge": ("pre-merge-commit", "post-merge", "prepare-commit-msg", "commit-msg"),
    "rebase": ("pre-rebase", "post-rewrite", "post-checkout"), "gc": ("pre-auto-gc",),
    "am": ("applypatch-msg", "pre-applypatch", "post-applypatch"),
    "cherry-pick": ("prepare-commit-msg", "commit-msg", "post-commit"),
    "revert": ("prepare-commit-msg", "commit-msg", "post-commit"),
    "worktree": ("post-checkout",), "push": ("pre-push",), "pull": ("post-merge",),
    "reset": ("reference-transaction",), "restore": (), "stash": ("post-checkout",),
}
for _writes_index in ("commit", "checkout", "switch", "clone", "merge", "rebase", "am",
                      "cherry-pick", "revert", "worktree", "pull", "reset", "restore", "stash"):
    _HOOKS[_writes_index] += ("post-index-change",)
_SECTION = re.compile(r'^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$')


@dataclass
class GitRuns:
    """What one git command line would run: shell command texts and hook files."""

    commands: list[tuple[str, str]] = field(default_factory=list)
    """(where it comes from, the command text)."""
    hooks: list[str] = field(default_factory=list)
    """Paths (relative to the command's directory) of hooks that exist."""


def _continues(line: str) -> bool:
    """The line's value ends with a backslash that escapes the line break (outside a
    comment): git joins the next line to the value."""
    text = line.strip()
    if not text or text.startswith(("#", ";")):
        return False
    if text.startswith("["):
        text = text.partition("]")[2]
    value = text.partition("=")[2]
    quoted = False
    index = 0
    while index < len(value):
        char = value[index]
        if char == "\\":
            if index == len(value) - 1:
                return True
            index += 2
            continue
        if char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            return False  # the rest is a comment, its backslash too
        index += 1
    return False


def _logical_lines(text: str) -> list[str]:
    """The config's lines as git reads them: only "\n" ends one (splitlines also broke at
    U+2028 inside a value), and a value ending in a backslash goes on on the next line
    ("foo = bar \\" then "[x]" is one value for git, not a section)."""
    lines: list[str] = []
    pending = ""
    for raw in text.split("\n"):
        line = pending + raw.removesuffix("\r")
        if _continues(line):
            pending = line.rstrip()[:-1]
            continue
        pending = ""
        lines.append(line)
    if pending:
        lines.append(pending)
    return lines


_SPACES = " \t\r\v\f"
"""What git's isspace() takes for a space in a config line (a lone CR too)."""


def _config_entries(text: str) -> list[tuple[str, str]]:
    """(key with subsection as '*', value) of a git config file, lower-case keys."""
    entries: list[tuple[str, str]] = []
    section = ""
    # read as git reads it: a BOM at the start is skipped (it hid the [core] header), lines
    # as _logical_lines says
    for raw in _logical_lines(text.removeprefix("\ufeff")):
        line = raw.strip(_SPACES)
        # git takes a header's rest as the next thing on the line, another header too
        # ('[a][core] excludesFile = x' is in [core])
        while (match := _SECTION.match(line)) is not None:
            name, sub, rest = match.groups()
            if "." in name and sub is None:  # [section.sub] old syntax
                name = name.split(".", 1)[0] + ".*"
            section = name.lower() + (".*" if sub is not None else "")
            line = rest.strip(_SPACES)
        if not line or line.startswith(("#", ";")):
            continue
        key, equals, value = line.partition("=")
        # a key without '=' is a boolean true; 'key =' is the empty value, which git keeps
        # (an empty core.excludesFile reads no file at all, not one named 'true')
        entries.append((f"{section}.{key.strip().lower()}",
                        _config_value(value) if equals else "true"))
    return entries


_VALUE_ESCAPES = {"n": "\n", "t": "\t", "b": "\b", "\\": "\\", '"': '"'}


def _config_value(raw: str) -> str:
    """A config value as git decodes it: quotes may wrap any part, a '#' or ';' outside them
    starts a comment, backslash escapes, spaces outside quotes trimmed at the ends ('x = ~/a
    # mine' is '~/a'; taking the text whole kept the comment in the path)."""
    out: list[str] = []
    spaces = ""
    quoted = False
    index = 0
    while index < len(raw):
        char = raw[index]
        index += 1
        if char in _SPACES and not quoted:
            spaces += " " if out else ""  # git keeps each as one space, a tab too
            continue
        if char in "#;" and not quoted:
            break
        out.append(spaces)
        spaces = ""
        if char == '"':
            quoted = not quoted
        elif char == "\\" and index < len(raw):
            out.append(_VALUE_ESCAPES.get(raw[index], raw[index]))
            index += 1
        else:
            out.append(char)
    return "".join(out)


def config_entries(text: str) -> list[tuple[str, str]]:
    """(key with subsection as '*', value) of a git config file's text, lower-case keys,
    read as git reads it."""
    return _config_entries(text)


def _is_bare_repository(folder: str) -> bool:
    """``folder`` is itself a git folder (a bare repository): git's own test, HEAD with
    objects/ and refs/. A cloned project can carry one (``vendor/x/{HEAD,config,objects,…}``)
    and ``git -C vendor/x log -p`` then obeys that folder's ``config``."""
    return (os.path.isfile(os.path.join(folder, "HEAD"))
            and os.path.isdir(os.path.join(folder, "objects"))
            and os.path.isdir(os.path.join(folder, "refs")))


def _git_dir(files: ProjectFiles, cwd: str | None) -> tuple[str, str] | None:
    """The repository's git folder when it lies inside the project, with the folder its
    hooks run in (the work tree's top; a bare repository's own folder). None: a folder the
    project did not bring, such as a worktree's main repository, is the person's own.
    Found the way git finds it: in each folder from ``cwd`` up, ``.git`` first, then the
    folder itself as a bare repository."""
    here = files.locate(cwd, ".")
    while not os.path.exists(os.path.join(here, ".git")):
        if _is_bare_repository(here):
            return (here, here) if files.inside(os.path.realpath(here)) else None
        if here == files.root or here == os.path.dirname(here):
            return None
        here = os.path.dirname(here)
    found = os.path.join(here, ".git")
    if os.path.isfile(found):  # a worktree or submodule: "gitdir: <path>"
        text = files.read(found, ".git")
        target = text.partition("gitdir:")[2].strip()
        found = os.path.realpath(os.path.join(os.path.dirname(found), target))
    return (found, here) if files.inside(os.path.realpath(found)) else None


def _common_dir(files: ProjectFiles, git_dir: str) -> str:
    """Where a linked worktree's repository keeps its config and hooks (``commondir``: the
    main ``.git``); the git folder itself for any other repository."""
    pointer = os.path.join(git_dir, "commondir")
    if not os.path.isfile(pointer):
        return git_dir
    common = os.path.realpath(os.path.join(git_dir, files.read(pointer, ".git/commondir")
                                           .strip()))
    if not files.inside(common):
        raise Unreadable("the worktree's repository lies outside the project")
    return common


# `git status` / `git diff` look into each submodule for changes, and git then obeys that
# submodule's own config and hooks (its core.fsmonitor runs): they live in the repository's
# modules/ folder (absorbed, nested ones in modules/a/modules/b) or in the submodule's own
# .git folder.
_RECURSE_INTO_SUBMODULES = ("status", "diff")
_SUBMODULES_READ = 64


def _submodule_git_dirs(files: ProjectFiles, common: str, top: str | None) -> list[str]:
    """Every submodule git folder inside the project that ``git status`` would enter."""
    found: list[str] = []
    modules = os.path.join(common, "modules")
    if os.path.isdir(modules):
        for folder, subfolders, names in os.walk(modules):
            subfolders[:] = [name for name in subfolders if name not in ("objects", "refs",
                                                                         "logs", "hooks")]
            if "config" in names and folder != modules:
                found.append(folder)
    listing = os.path.join(top or "", ".gitmodules")
    if top and os.path.isfile(listing):
        for key, value in _config_entries(files.read(listing, ".gitmodules")):
            own = os.path.join(top, value, ".git")
            if key == "submodule.*.path" and os.path.isdir(own):
                found.append(own)
    if len(found) > _SUBMODULES_READ:
        raise Unreadable(f"the repository has over {_SUBMODULES_READ} submodules")
    return [folder for folder in found if files.inside(os.path.realpath(folder))]


def git_runs(files: ProjectFiles, cwd: str | None, options: list[tuple[str, str]],
             subcommand: str | None) -> GitRuns:
    """The commands and hooks ``git [-c key=value …] subcommand`` would run."""
    runs = GitRuns()
    entries = [(re.sub(r"^([^.]+)\.(.+)\.([^.]+)$", r"\1.*.\3", key.lower())
                if key.count(".") >= 2 else key.lower(), value) for key, value in options]
    hooks_dir = None
    located = _git_dir(files, cwd) if files.root is not None and cwd is not None else None
    git_dir, top = located if located is not None else (None, cwd)
    if git_dir is not None:
        common = _common_dir(files, git_dir)
        for folder, name in ((common, "config"), (git_dir, "config.worktree")):
            config = os.path.join(folder, name)  # (the second with worktreeConfig)
            if os.path.isfile(config):
                entries = _config_entries(files.read(config, f".git/{name}")) + entries
        hooks_dir = os.path.join(common, "hooks")
    aliases = {key.split(".", 1)[1]: value for key, value in
               [(k, v) for k, v in options] + (entries if git_dir else [])
               if key.lower().startswith("alias.")}
    for key, value in entries:
        if _INCLUDE_KEYS.match(key):
            raise Unreadable("the repository's git configuration includes another file")
        if key == "core.hookspath":  # relative to where hooks run, not to git -C's folder
            hooks_dir = os.path.join(top or "", os.path.expanduser(value))
        elif _COMMAND_KEYS.match(key) and value.lower() not in ("true", "false", "", "cat"):
            runs.commands.append((f"git config {key}", value))
    if subcommand in aliases:
        value = aliases[subcommand]
        runs.commands.append((f"git alias {subcommand}",
                              value[1:] if value.startswith("!") else f"git {value}"))
    if hooks_dir is not None and subcommand in _HOOKS:
        for hook in _HOOKS[subcommand]:
            path = os.path.join(hooks_dir, hook)
            if os.path.isfile(path) and os.access(path, os.X_OK):
                runs.hooks.append(path)
    if git_dir is not None and subcommand in _RECURSE_INTO_SUBMODULES:
        for folder in _submodule_git_dirs(files, common, top):
            config = os.path.join(folder, "config")
            for key, value in (_config_entries(files.read(config, ".git/modules/config"))
                               if os.path.isfile(config) else []):
                if _INCLUDE_KEYS.match(key):
                    raise Unreadable("a submodule's git configuration includes another file")
                if key == "core.hookspath":
                    raise Unreadable("a submodule's git configuration moves its hooks")
                if _COMMAND_KEYS.match(key) and value.lower() not in ("true", "false", "",
                                                                       "cat"):
                    runs.commands.append((f"git config {key} (a submodule's)", value))
            for hook in _HOOKS[subcommand]:
                path = os.path.join(folder, "hooks", hook)
                if os.path.isfile(path) and os.access(path, os.X_OK):
                    runs.hooks.append(path)
    return runs
