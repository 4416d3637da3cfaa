""".gitignore semantics and the one project walk every code tool shares.

grep_code, glob_files and the index must agree on which files exist, so they all list files
through :func:`walk_project_files`. ``.git/`` and ``.paicli/`` are never entered.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ...regular_files import read_regular, read_regular_text
from .patterns import GlobPattern, ScanControl

ALWAYS_SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", ".paicli"})
"""Directory names never searched or indexed, whatever .gitignore says."""

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
    for raw in text.splitlines():
        line = raw.rstrip("\n\r")
        if not line or line.startswith("#"):
            continue
        # trailing spaces are ignored unless escaped with a backslash
        stripped = line.rstrip(" ")
        if stripped.endswith("\\") and len(stripped) < len(line):
            stripped += " "
        line = stripped
        negate = line.startswith("!")
        if negate:
            line = line[1:]
        elif line.startswith("\\!") or line.startswith("\\#"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        # never a backtracking blow-up, and lines git tolerates ([z-a]) never raise
        rules.append(IgnoreRule(base, GlobPattern(line, anywhere=not anchored), negate,
                                dir_only))
    return rules


@dataclass
class IgnoreRun:
    """Consecutive rules of one .gitignore with the same effect (base, negation, folders
    only), matched by one regex: a rule matches when any of them does. A repository's 1 MB
    .gitignore holds some 70,000 lines, and matching each path against each of them one by
    one took 50 ms a path (minutes for every grep, glob and index run of a few thousand
    files); the C engine rejects most paths against the joined regex at once. Each part is
    a pattern already safe for that engine, and a choice between them adds no backtracking
    across them."""

    base: str
    negate: bool
    dir_only: bool
    regex: re.Pattern[str]

    def matches(self, rel_path: str, is_dir: bool) -> bool:
        inside = _under(self.base, self.dir_only, rel_path, is_dir)
        return inside is not None and self.regex.fullmatch(inside) is not None


def joined_runs(rules: list[IgnoreRule]) -> list[IgnoreRule | IgnoreRun]:
    """``rules`` with each run of two or more consecutive rules of the same effect whose
    patterns the C engine may run joined into one :class:`IgnoreRun` (the last matching rule
    wins either way: within a run they all say the same)."""
    out: list[IgnoreRule | IgnoreRun] = []
    start = 0
    while start < len(rules):
        first = rules[start]
        end = start + 1
        if first.glob.regex_source is not None:
            while end < len(rules) and rules[end].glob.regex_source is not None and (
                    rules[end].base, rules[end].negate, rules[end].dir_only) == (
                    first.base, first.negate, first.dir_only):
                end += 1
        if end - start == 1:
            out.append(first)
        else:
            joined = "|".join(f"(?:{rule.glob.regex_source})" for rule in rules[start:end])
            out.append(IgnoreRun(first.base, first.negate, first.dir_only,
                                 re.compile(joined, re.DOTALL)))
        start = end
    return out


@dataclass
class IgnoreMatcher:
    """All .gitignore rules seen so far; the last matching rule wins (as in git)."""

    rules: list[IgnoreRule | IgnoreRun] = field(default_factory=list)

    def add_file(self, path: Path, base: str) -> None:
        try:  # a FIFO named .gitignore would hold every walk forever
            text, _ = read_regular_text(path, MAX_IGNORE_FILE_BYTES)
        except OSError:
            return
        self.rules.extend(joined_runs(parse_gitignore(text, base)))

    def is_ignored(self, rel_path: str, is_dir: bool) -> bool:
        ignored = False
        for rule in self.rules:
            if rule.matches(rel_path, is_dir):
                ignored = not rule.negate
        return ignored


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
                if not matcher.is_ignored(rel, False):
                    yield rel
        except OSError:
            continue
    for sub in subdirs:
        # rules of a sub-folder's .gitignore must not leak into its siblings
        saved = len(matcher.rules)
        yield from _walk_dir(root, sub, matcher, skip_dirs, control)
        del matcher.rules[saved:]
