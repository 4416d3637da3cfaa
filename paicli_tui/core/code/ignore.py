""".gitignore semantics and the one project walk every code tool shares.

grep_code, glob_files and the index must agree on which files exist, so they all list files
through :func:`walk_project_files`. ``.git/`` and ``.paicli/`` are never entered.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ...regular_files import read_regular, read_regular_text
from .git_folders import git_folders
from .patterns import GlobPattern, ScanControl
from .person_excludes import person_excludes_file

ALWAYS_SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", ".paicli"})
"""Directory names never searched or indexed, whatever .gitignore says."""
GIT_POINTER = ".git"
"""A linked worktree's or a submodule's ``.git`` is a file naming its git folder: git never
lists it, and neither does the walk."""

MAX_FILE_BYTES = 1_000_000
"""Files larger than this are skipped by grep and the index (generated or data files)."""
MAX_IGNORE_FILE_BYTES = 1_000_000
"""A .gitignore is read this far (its rules are matched against every path of a walk)."""


@dataclass(frozen=True)
class IgnoreRule:
    base: str
    """Directory of the .gitignore file, project-relative ('' for the root)."""
    glob: GlobPattern
    negate: bool
    dir_only: bool

    def matches(self, rel_path: str, is_dir: bool) -> bool:
        inside = _under(self.base, self.dir_only, rel_path, is_dir)
        return inside is not None and self.glob.fullmatch(inside)


def _under(base: str, dir_only: bool, rel_path: str, is_dir: bool) -> str | None:
    """``rel_path`` relative to a .gitignore's folder ``base``, or None when a rule there
    cannot apply to it (outside ``base``, or a file for a folders-only rule)."""
    if dir_only and not is_dir:
        return None
    if base:
        prefix = base + "/"
        if not rel_path.startswith(prefix):
            return None
        rel_path = rel_path[len(prefix) :]
    return rel_path


def parse_gitignore(text: str, base: str = "") -> list[IgnoreRule]:
    """Rules of one .gitignore file whose directory is ``base`` (project-relative)."""
    rules: list[IgnoreRule] = []
    # git skips a UTF-8 byte order mark (a Windows editor's): it hid the first rule
    for raw in text.removeprefix("\ufeff").splitlines():
        line = raw.rstrip("\n\r")
        if not line or line.startswith("#"):
            continue
        line = _without_trailing_spaces(line)
        negate = line.startswith("!")
        if negate:
            line = line[1:]
        elif line.startswith("\\!") or line.startswith("\\#"):
            line = line[1:]
        # git takes one slash off each end ('a//' is a folder matching 'a/', which no
        # name is; '//a' is anchored to match '/a', nothing)
        dir_only = line.endswith("/")
        line = line.removesuffix("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.removeprefix("/")
        # never a backtracking blow-up, and lines git tolerates ([z-a]) never raise
        rules.append(IgnoreRule(base, GlobPattern(line, anywhere=not anchored), negate,
                                dir_only))
    return rules


def _without_trailing_spaces(line: str) -> str:
    """``line`` without its trailing spaces, as git trims them: a backslash keeps the
    character after it ('a\\ ' ends in a space), so 'a\\\\ ' (an escaped backslash) loses its
    space."""
    last_space = None
    i = 0
    while i < len(line):
        char = line[i]
        if char == " ":
            last_space = i if last_space is None else last_space
        else:
            last_space = None
            i += char == "\\"  # the escaped character is never trailing space
        i += 1
    return line if last_space is None else line[:last_space]


KEY_CHARS = 8
"""An indexed rule is filed under at most this many characters of the literal text every
path it matches contains."""


def _same_rule(rule: IgnoreRule) -> tuple[str, bool, bool, bool]:
    """What makes two lines of one .gitignore the same rule."""
    return rule.glob.pattern, rule.glob.anywhere, rule.negate, rule.dir_only


@dataclass
class IgnoreIndex:
    """The rules of one .gitignore, each filed under a piece of literal text a path must
    contain for it to match (``*name123*`` under ``name123``): a path is tried only against
    the rules filed under its own substrings (and those without any literal text), newest
    first, so a path costs a few look-ups per character, not one match per rule. Tried one
    by one, 20,000 rules such as ``*name123*`` (three wildcards: walked state by state, never
    by the C engine) took 0.4 s a path; 70,000 plain ones, joined into regexes, 3 ms."""

    base: str
    rules: list[IgnoreRule]
    by_key: dict[str, list[int]]
    key_lengths: tuple[int, ...]
    unkeyed: list[int]

    @classmethod
    def build(cls, rules: list[IgnoreRule], base: str) -> IgnoreIndex:
        by_key: dict[str, list[int]] = {}
        unkeyed: list[int] = []
        # a line repeated decides nothing its last copy does not: only that copy is filed
        # (50,000 copies of '*.log' all filed under '.log' were each tried on 'a.log.txt')
        last = {_same_rule(rule): index for index, rule in enumerate(rules)}
        for index, rule in enumerate(rules):
            if last[_same_rule(rule)] != index:
                continue
            key = rule.glob.required[-KEY_CHARS:]
            if key:
                by_key.setdefault(key, []).append(index)
            else:
                unkeyed.append(index)
        return cls(base, rules, by_key, tuple(sorted({len(k) for k in by_key})), unkeyed)

    def last_match(self, rel_path: str, is_dir: bool) -> IgnoreRule | None:
        """The last rule of the file matching ``rel_path``, or None."""
        inside = _under(self.base, False, rel_path, is_dir)
        if inside is None:
            return None
        candidates = set(self.unkeyed)
        for length in self.key_lengths:
            for start in range(len(inside) - length + 1):
                filed = self.by_key.get(inside[start : start + length])
                if filed:
                    candidates.update(filed)
        for index in sorted(candidates, reverse=True):
            if self.rules[index].matches(rel_path, is_dir):
                return self.rules[index]
        return None


@dataclass
class IgnoreMatcher:
    """All .gitignore rules seen so far; the last matching rule wins (as in git)."""

    rules: list[IgnoreRule | IgnoreIndex] = field(default_factory=list)
    """One index per .gitignore file, outermost first (or single rules, in order)."""

    def add_file(self, path: Path, base: str) -> None:
        try:  # a FIFO named .gitignore would hold every walk forever
            text, _ = read_regular_text(path, MAX_IGNORE_FILE_BYTES)
        except OSError:
            return
        self.rules.append(IgnoreIndex.build(parse_gitignore(text, base), base))

    def is_ignored(self, rel_path: str, is_dir: bool) -> bool:
        for rule in reversed(self.rules):  # the newest rule that matches decides
            found = rule.last_match(rel_path, is_dir) if isinstance(rule, IgnoreIndex) \
                else rule if rule.matches(rel_path, is_dir) else None
            if found is not None:
                return not found.negate
        return False


def read_listed_file(path: Path) -> bytes | None:
    """The bytes of a file the walk listed, or None when it is no longer one to read: gone,
    grown past MAX_FILE_BYTES, or swapped for a FIFO or a device since it was listed. The walk
    saw a small regular file; the read came later and believed it (a file a build was still
    writing was read to its end, however large; a FIFO put in its place held the scan for
    good)."""
    try:
        data, whole = read_regular(path, MAX_FILE_BYTES)
    except OSError:
        return None
    return data if whole else None


def is_binary_bytes(data: bytes) -> bool:
    """A NUL byte anywhere means binary (the rule ripgrep uses too)."""
    return b"\0" in data


def git_excludes_files(root: Path) -> list[Path]:
    """The files of ignore rules git reads besides the .gitignore files, the lowest first:
    the person's excludes file, then the repository's own ``info/exclude``; every
    .gitignore wins over both, as in git."""
    person = person_excludes_file(root)
    folders = git_folders(str(root))  # a linked worktree's is the main repository's
    return ([person] if person is not None else []) \
        + ([Path(folders[1]) / "info" / "exclude"] if folders else [])


def walk_project_files(root: Path, start: str = "",
                       skip_dirs: frozenset[str] = ALWAYS_SKIPPED_DIRS, *,
                       control: ScanControl | None = None) -> Iterator[str]:
    """Project-relative paths ('/'-separated) of every non-ignored regular file.

    ``start`` limits the walk to a sub-folder or one file (project-relative); the .gitignore
    files of its parents still apply. Symlinks are skipped, as ripgrep does by default (no
    loops, no escape from the project). Order: a folder's files, then its sub-folders.
    Names are ``os.fsdecode`` strings: bytes that are not UTF-8 come through as surrogate
    escapes (see :mod:`.names`). ``control``: the walk stops (ScanCancelled) when cancelled.
    """
    root = Path(root)
    matcher = IgnoreMatcher()
    start = start.strip("/")
    # .gitignore files on the way down to ``start`` apply to it as well
    parts = [p for p in start.split("/") if p] if start else []
    for excludes in git_excludes_files(root):
        matcher.add_file(excludes, "")
    matcher.add_file(root / ".gitignore", "")
    for depth in range(1, len(parts)):
        base = "/".join(parts[:depth])
        matcher.add_file(root / base / ".gitignore", base)
    for depth in range(1, len(parts) + 1):
        rel = "/".join(parts[:depth])
        if parts[depth - 1] in skip_dirs:
            return
        is_dir = (root / rel).is_dir()
        if matcher.is_ignored(rel, is_dir):
            return
    first = root / start if start else root
    if first.is_file():
        yield start
        return
    yield from _walk_dir(root, start, matcher, skip_dirs, control)


def _walk_dir(root: Path, rel_dir: str, matcher: IgnoreMatcher,
              skip_dirs: frozenset[str], control: ScanControl | None) -> Iterator[str]:
    if control is not None:
        control.check()
    directory = root / rel_dir if rel_dir else root
    if rel_dir:
        matcher.add_file(directory / ".gitignore", rel_dir)
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return
    subdirs: list[str] = []
    for entry in entries:
        rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
        try:
            if entry.is_dir(follow_symlinks=False):
                if entry.name in skip_dirs or matcher.is_ignored(rel, True):
                    continue
                subdirs.append(rel)
            elif entry.is_file(follow_symlinks=False):
                if entry.name != GIT_POINTER and not matcher.is_ignored(rel, False):
                    yield rel
        except OSError:
            continue
    for sub in subdirs:
        # rules of a sub-folder's .gitignore must not leak into its siblings
        saved = len(matcher.rules)
        yield from _walk_dir(root, sub, matcher, skip_dirs, control)
        del matcher.rules[saved:]
