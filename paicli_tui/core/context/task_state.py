"""Task state after a summary (beyond the reference): the files the work was on.

A summary keeps paths but not contents, so a model tends to start over. After a summary (or
the digest) the most recently read or edited files from the summarised part — up to 5, each
at most ~5,000 tokens, all within what is left below the trigger — are read again into the
summary message; a file that does not fit is listed with how to read it back. Files the kept
messages already show are skipped. Reads are confined to the project.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from ..messages import Message, Role
from ..tokens import estimate_text

MAX_FILES = 5
FILE_TOKENS = 5_000
FILE_TOOLS = frozenset({"read_file", "write_file", "edit_file"})


def _paths(messages: Sequence[Message]) -> list[str]:
    """File paths of read/write/edit calls, newest first, each once."""
    found: list[str] = []
    for message in reversed(messages):
        if message.role is not Role.ASSISTANT:
            continue
        for call in reversed(message.tool_calls):
            if call.name not in FILE_TOOLS:
                continue
            try:
                path = json.loads(call.arguments or "{}").get("path")
            except (ValueError, AttributeError, RecursionError):
                continue
            if isinstance(path, str) and path.strip() and path not in found:
                found.append(path.strip())
    return found


def _read(root: Path, relative: str) -> str | None:
    """The file's text if it lies inside ``root`` (symlinks resolved), else None."""
    try:
        base = root.resolve()
        target = (base / relative).resolve()
        if base not in target.parents or not target.is_file():
            return None
        return target.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def task_files_block(summarised: Sequence[Message], kept: Sequence[Message],
                     root: Path | None, budget_tokens: int) -> str:
    """The text appended to a summary: recent files re-read (within ``budget_tokens``), or
    listed with read-back hints; '' when there are none."""
    if root is None:
        return ""
    shown = set(_paths(kept))
    wanted = [p for p in _paths(summarised) if p not in shown][:MAX_FILES]
    included: list[str] = []
    listed: list[str] = []
    left = budget_tokens
    for path in wanted:
        text = _read(root, path)
        if text is None:
            continue
        cost = estimate_text(text) + 20
        if cost <= min(FILE_TOKENS, left):
            included.append(f"### {path}\n```\n{text}\n```")
            left -= cost
        else:
            listed.append(f'- {path}: read_file(path="{path}")')
    if not included and not listed:
        return ""
    parts = ["Files you were working on before this summary, as they are now:"]
    parts += included
    if listed:
        parts.append("Also recently used (too big to include; read them again if needed):")
        parts += listed
    return "\n\n".join(parts)
