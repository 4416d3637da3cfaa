"""Every on-disk location the program uses.

Files outside a project live under PAICLI_HOME (default ``~/.paicli``); files that belong to a
project live under ``<project>/.paicli/``. Nothing here touches the disk: callers create what
they write, when they write it.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .private_files import write_private
from .regular_files import read_regular_text
from .surrogates import without_surrogates


def normalise_project_root(path: str | os.PathLike[str]) -> Path:
    """One directory is one project however it was reached (relative, trailing slash, symlink)."""
    return Path(os.path.realpath(os.path.abspath(os.path.expanduser(os.fspath(path)))))


@functools.lru_cache(maxsize=64)
def stored_project_forms(root: str) -> frozenset[str]:
    """The forms a project folder's name takes once stored in a file: as it is and, when it
    holds bytes that are not UTF-8 (``caf\\xe9``, read as lone surrogates), with U+FFFD
    (the memory store) or '?' (the session ledger) in their place. A stored name in any of
    them is this folder's."""
    return frozenset({root, without_surrogates(root),
                      root.encode("utf-8", "replace").decode("utf-8")})


@dataclass(frozen=True)
class HomePaths:
    """Locations under PAICLI_HOME, shared by every project."""

    home: Path

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> HomePaths:
        env = os.environ if env is None else env
        raw = env.get("PAICLI_HOME") or "~/.paicli"
        return cls(Path(os.path.abspath(os.path.expanduser(raw))))

    @property
    def config_file(self) -> Path:
        return self.home / "config.toml"

    @property
    def memory_dir(self) -> Path:
        return self.home / "memory"

    @property
    def memory_file(self) -> Path:
        return self.memory_dir / "long_term_memory.json"

    @property
    def history_raw_dir(self) -> Path:
        return self.home / "history" / "raw"

    @property
    def input_history_file(self) -> Path:
        return self.home / "history" / "inputs.jsonl"

    def session_ledger(self, session_id: str) -> Path:
        return self.history_raw_dir / f"{session_id}.jsonl"

    def session_checkpoints(self, session_id: str) -> Path:
        """What the agent's file changes replaced, kept for ``/undo``."""
        return self.home / "history" / "checkpoints" / session_id

    @property
    def global_rules_file(self) -> Path:
        return self.home / "PAI.md"

    @property
    def skills_dir(self) -> Path:
        """The person's own skills, offered in every project."""
        return self.home / "skills"

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache"

    @property
    def jieba_cache_dir(self) -> Path:
        return self.cache_dir / "jieba"

    @property
    def logs_dir(self) -> Path:
        return self.home / "logs"


@dataclass(frozen=True)
class ProjectPaths:
    """Locations inside one project (its root is normalised on construction)."""

    root: Path

    @classmethod
    def for_dir(cls, path: str | os.PathLike[str]) -> ProjectPaths:
        return cls(normalise_project_root(path))

    @property
    def dot_dir(self) -> Path:
        return self.root / ".paicli"

    @property
    def tool_outputs_dir(self) -> Path:
        return self.dot_dir / "tool-outputs"

    def session_tool_outputs(self, session_id: str) -> Path:
        return self.tool_outputs_dir / session_id

    @property
    def index_dir(self) -> Path:
        return self.dot_dir / "index"

    def rules_files(self, home: HomePaths) -> list[Path]:
        """Project-rule files in the order they are concatenated (behaviour §10): the five
        PAI.md locations, then the files other agents read (AGENTS.md for Codex and others,
        CLAUDE.md for Claude Code), so a project set up for them works here unchanged."""
        return [
            home.global_rules_file,
            self.root / "PAI.md",
            self.dot_dir / "PAI.md",
            self.root / "PAI.local.md",
            self.dot_dir / "PAI.local.md",
            *self.other_agent_rules_files(),
        ]

    def skills_dirs(self, home: HomePaths) -> list[Path]:
        """Where skills live, the first one winning a name: the project's own, the
        project's Claude Code skills, then the person's."""
        return [self.dot_dir / "skills", self.root / ".claude" / "skills", home.skills_dir]

    def other_agent_rules_files(self) -> list[Path]:
        """AGENTS.md and CLAUDE.md locations, read after the PAI.md files."""
        return [
            self.root / "AGENTS.md",
            self.root / "CLAUDE.md",
            self.root / ".claude" / "CLAUDE.md",
        ]


DOT_DIR_IGNORE = "*\n"
"""``.paicli/.gitignore``: everything in it stays out of git status, this file included."""
_OLD_DOT_DIR_IGNORES = ("index/\nindex.lock\n",)
"""What earlier versions wrote there (replaced; a person's own file is left alone)."""


class LeadsOutside(OSError):
    """A path of the project's own (``.paicli/…``) leads out of the project through a link."""


def stay_inside(root: Path, path: Path) -> None:
    """Raise LeadsOutside when ``path``, named inside the project ``root``, resolves outside
    it: a project can ship ``.paicli -> ../..``, and what the program writes there (the index,
    its lock, a ``.gitignore`` holding ``*``) would land in a folder the project chose."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        raise LeadsOutside(f"{os.path.relpath(path, root)} leads outside the project (to "
                           f"{real}); the program writes there only inside the project "
                           "(set index_uri to keep the index elsewhere)")
    # Inside, but in git's own folder: `.paicli -> .git` made the index lock .git/index.lock,
    # git's own lock, left behind after the build (every git add / commit then failed).
    if ".git" in (part.lower() for part in os.path.relpath(real, real_root).split(os.sep)):
        raise LeadsOutside(f"{os.path.relpath(path, root)} leads into the repository's .git "
                           f"folder (to {real}); the program never writes there (set "
                           "index_uri to keep the index elsewhere)")


def keep_dot_dir_out_of_git(dot_dir: Path) -> None:
    """Make ``dot_dir`` (a project's ``.paicli``) invisible to git as a whole."""
    ignore = dot_dir / ".gitignore"
    try:
        stay_inside(dot_dir.parent, ignore)
        # a FIFO planted here held the first offload or index forever
        current = read_regular_text(ignore, 4096)[0] if ignore.exists() else None
        if current is None or current in _OLD_DOT_DIR_IGNORES:
            dot_dir.mkdir(parents=True, exist_ok=True)
            # never through a link planted at that name (a dangling one would be created)
            write_private(ignore, DOT_DIR_IGNORE.encode("utf-8"), mode=0o644,
                          follow_symlinks=False)
    except OSError:
        pass  # a read-only project: the files still work, git just lists them
