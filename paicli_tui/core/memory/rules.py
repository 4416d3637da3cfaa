"""Project rules from PAI.md files (behaviour §10), then AGENTS.md and CLAUDE.md.

Five PAI.md files are read in a fixed order and concatenated (later ones never override
earlier ones), then the files other agents read (AGENTS.md, CLAUDE.md, .claude/CLAUDE.md)
under the same rules. A file already read (CLAUDE.md often holds just ``@AGENTS.md``) is not
read twice. A line ``@relative/path`` includes another file, at most three levels deep and never
from outside the project (or PAICLI_HOME for the global file). The total is capped at 24,000
characters, and the result says which files were loaded.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ...paths import HomePaths, ProjectPaths
from ...regular_files import read_regular_text
from ..contracts.services import ProjectRules
from .textspans import FENCE_LINE

MAX_RULES_CHARS = 24_000
MAX_INCLUDE_DEPTH = 3
_INCLUDE = re.compile(r"^\s*@(\S+)\s*$")
_TRUNCATED_MARK = "\n[PAI.md text cut at 24,000 characters]"


@dataclass
class _Walk:
    files: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    """Includes inside the project whose file does not exist (yet)."""


def _inside(path: Path, base: Path) -> bool:
    try:
        path.relative_to(base)
    except ValueError:
        return False
    return True


def _read(path: Path) -> str | None:
    """The file's text, read no further than the whole rules text may use (a 1 GB sparse
    PAI.md took 4.8 s and 3 GB of memory to be cut to 24,000 characters); None for a FIFO or
    device (reading one waited forever) and for what cannot be read."""
    try:
        return read_regular_text(path, 4 * MAX_RULES_CHARS + 1)[0]
    except (OSError, ValueError):
        return None


def _expand(path: Path, base: Path, depth: int, stack: tuple[Path, ...], walk: _Walk) -> str:
    """The text of ``path`` with its @includes replaced, recorded in ``walk``."""
    text = _read(path)
    if text is None:
        return ""
    walk.files.append(str(path))
    out: list[str] = []
    in_fence = False
    for line in text.splitlines():
        if FENCE_LINE.match(line):
            in_fence = not in_fence
        # Inside a code block "@Override" or "@dataclass" is code, not an include.
        match = None if in_fence else _INCLUDE.match(line)
        if not match:
            out.append(line)
            continue
        target_text = match.group(1)
        target = Path(os.path.realpath(path.parent / target_text))
        reason = None
        if os.path.isabs(target_text) or not _inside(target, base):
            reason = "outside the project"
        elif depth >= MAX_INCLUDE_DEPTH:
            reason = f"deeper than {MAX_INCLUDE_DEPTH} levels"
        elif target in stack:
            reason = "includes itself"
        elif str(target) in walk.files:
            reason = "already included"
        elif not target.is_file():
            reason = "not found"
            walk.missing.append(str(target))
        if reason:
            walk.skipped.append(f"{target_text} ({reason})")
            out.append(f"[include @{target_text} skipped: {reason}]")
            continue
        out.append(_expand(target, base, depth + 1, stack + (target,), walk))
    return "\n".join(out)


def load_project_rules(project_root: str | os.PathLike[str], home: HomePaths) -> ProjectRules:
    """The concatenated PAI.md text for ``project_root`` and the files it came from.

    Missing files are skipped silently; unreadable includes leave a visible marker line so the
    person and the model can see what was left out.
    """
    project = ProjectPaths.for_dir(project_root)
    home_root = Path(os.path.realpath(home.home))
    walk = _Walk()
    parts: list[str] = []
    for location in project.rules_files(home):
        if not location.is_file():
            continue
        real = Path(os.path.realpath(location))
        base = home_root if location == home.global_rules_file else project.root
        if not _inside(real, base):
            walk.skipped.append(f"{location} (outside the project)")
            continue
        if str(real) in walk.files:  # e.g. CLAUDE.md a symlink to AGENTS.md
            continue
        text = _expand(real, base, 0, (real,), walk).strip()
        if text:
            parts.append(text)
    text = "\n\n".join(parts)
    truncated = len(text) > MAX_RULES_CHARS
    if truncated:
        text = text[:MAX_RULES_CHARS - len(_TRUNCATED_MARK)] + _TRUNCATED_MARK
    return ProjectRules(text=text, files=tuple(walk.files), truncated=truncated)


def project_instruction_files(project_root: str | os.PathLike[str]) -> frozenset[str]:
    """Real paths of the project's own rule files and of every file they include (``@docs/
    conventions.md`` in CLAUDE.md), an include not written yet too: all of them are read
    into every later session's prompt, so a write to any is asked about every time."""
    project = ProjectPaths.for_dir(project_root)
    walk = _Walk()
    locations = [project.root / "PAI.md", project.dot_dir / "PAI.md",
                 project.root / "PAI.local.md", project.dot_dir / "PAI.local.md",
                 *project.other_agent_rules_files()]
    for location in locations:
        real = Path(os.path.realpath(location))
        if location.is_file() and _inside(real, project.root) and str(real) not in walk.files:
            _expand(real, project.root, 0, (real,), walk)
    return frozenset(walk.files) | frozenset(walk.missing)
