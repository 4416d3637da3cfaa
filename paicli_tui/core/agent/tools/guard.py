"""Path guard and argument helpers shared by the file tools.

Every path a tool touches must stay inside the project: no ``..`` escape, no absolute path
elsewhere, no symlink whose target lies outside (behaviour §3). The check resolves symlinks, so a
link inside the project pointing out is refused like a plain outside path.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ...text.fsnames import display_name, resolve_shown


class ToolArgumentError(ValueError):
    """An argument the tool cannot accept; the message is shown to the model as is."""


def resolve_in_project(project_root: Path, raw: Any, *, must_exist: bool = False) -> Path:
    """The real path of ``raw`` (relative to the project, or absolute inside it).

    Raises ToolArgumentError when the path is empty, leaves the project (directly, through
    ``..`` or through a symlink), or is missing while ``must_exist``.
    """
    if not isinstance(raw, str) or not raw.strip():
        raise ToolArgumentError("path is required (relative to the project root)")
    if "\x00" in raw:  # no file name holds one (the path functions raised ValueError)
        raise ToolArgumentError(f"path {raw!r} holds a NUL byte; no file has such a name")
    root = Path(os.path.realpath(project_root))
    candidate = Path(os.path.expanduser(raw.strip()))
    if not candidate.is_absolute():
        # a name the tools showed escaped (caf\xe9.py) finds the file with those bytes
        candidate = resolve_shown(root, raw.strip())
    real = Path(os.path.realpath(candidate))
    if real != root and root not in real.parents:
        raise ToolArgumentError(
            f"path {raw!r} is outside the project ({root}); only files inside it can be used")
    if must_exist and not real.exists():
        raise ToolArgumentError(f"{raw!r} does not exist")
    return real


def relative_label(project_root: Path, path: Path) -> str:
    """``path`` as the model should write it: relative to the project root, with ``/``
    (bytes that are not UTF-8 and control characters escaped, see :mod:`fsnames`)."""
    root = Path(os.path.realpath(project_root))
    try:
        return display_name(path.relative_to(root).as_posix() or ".")
    except ValueError:
        return display_name(str(path))


def int_argument(arguments: dict[str, Any], name: str, *, default: int | None, low: int,
                 high: int) -> int | None:
    """An integer argument clamped to [low, high]; a clear error for non-numbers."""
    value = arguments.get(name)
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        raise ToolArgumentError(f"{name} must be an integer, got {value!r}")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ToolArgumentError(f"{name} must be an integer, got {value!r}") from None
    return max(low, min(high, number))


def looks_binary(sample: bytes) -> bool:
    """NUL bytes or undecodable UTF-8 in the first block mean a binary file."""
    if b"\x00" in sample:
        return True
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte character cut at the end of the sample is not a sign of binary.
        return exc.start < len(sample) - 3
    return False
