"""glob_files: list project files by glob, honouring .gitignore like grep_code does."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..text.fsnames import display_name
from .grep import GrepError, glob_matcher, safe_relative
from .ignore import walk_project_files
from .patterns import ScanControl

DEFAULT_MAX_FILES = 200
MAX_FILES_LIMIT = 2000


@dataclass
class GlobResult:
    paths: list[str]
    """Shown paths, sorted."""
    total: int
    text: str


def glob_files(root: Path, pattern: str, *, path: str = "",
               max_files: int = DEFAULT_MAX_FILES, control: ScanControl | None = None
               ) -> GlobResult:
    """Project files matching ``pattern`` (``**/*.java``; no '/' = any folder), sorted.

    Raises GrepError for an empty pattern or a path outside the project.
    """
    root = Path(root)
    matcher = glob_matcher(pattern)
    if matcher is None:
        raise GrepError("the glob pattern is empty")
    start = safe_relative(root, path)
    if start and not (root / start).exists():
        raise GrepError(f"path {path!r} does not exist in the project")
    found = sorted(rel for rel in walk_project_files(root, start, control=control)
                   if matcher.fullmatch(rel[len(start) + 1:] if start and rel != start else rel)
                   or matcher.fullmatch(rel))
    cap = max(1, min(max_files, MAX_FILES_LIMIT))
    shown = found[:cap]
    if not shown:
        text = f"No files match {pattern!r}."
    else:
        text = "\n".join(display_name(p) for p in shown)
        if len(found) > cap:
            text += f"\n[{len(found) - cap} more files not shown; narrow the pattern or path]"
    return GlobResult(shown, len(found), text)
