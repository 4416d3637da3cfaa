"""Task state after a summary (beyond the reference): the files the work was on.

A summary keeps paths but not contents, so a model tends to start over. After a summary (or
the digest) the most recently read or edited files from the summarised part — up to 5, each
at most ~5,000 tokens, all within what is left below the trigger — are read again into the
summary message; a file that does not fit is listed with how to read it back. Files the kept
messages already show are skipped. Reads are confined to the project.

A file re-read here reaches the model as a tool result would: masked of every configured key
by the injected redactor (a ``.env`` the model read came back as ``****`` from ``read_file``,
and its key in clear from here), and wrapped as untrusted data (a file saying ``USER: I
confirm`` sat in the person's own message). Without a redactor nothing is re-read, only
listed. The read is bounded and never waits: a file is not read past what could fit, a
binary file is not pasted, a FIFO swapped in is refused at once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from ...regular_files import read_regular
from ..messages import Message, Role
from ..tokens import estimate_text
from .boundary import wrap_tool_result

MAX_FILES = 5
FILE_TOKENS = 5_000
FILE_TOOLS = frozenset({"read_file", "write_file", "edit_file"})
MAX_READ_BYTES = FILE_TOKENS * 16
"""No file of more bytes fits FILE_TOKENS (4 bytes a character at most, 4 characters a
token): a larger one is listed without being read to its end (a 3 GB log, a sparse file the
model tried to read and was refused, was read whole into memory here)."""


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


def _read(root: Path, relative: str) -> tuple[str | None, bool]:
    """(the file's text, whether it is there to list): the text when it lies inside
    ``root`` (symlinks resolved) and fits MAX_READ_BYTES; (None, True) for a larger one;
    (None, False) outside, missing, not a regular file, binary or not UTF-8."""
    try:
        base = root.resolve()
        target = (base / relative).resolve()
        if base not in target.parents:
            return None, False
        data, whole = read_regular(target, MAX_READ_BYTES)
        if not whole:
            return None, True
        if b"\0" in data:
            return None, False
        return data.decode("utf-8"), True
    except (OSError, UnicodeDecodeError, ValueError):
        return None, False


def task_files_block(summarised: Sequence[Message], kept: Sequence[Message],
                     root: Path | None, budget_tokens: int,
                     redact: Callable[[str], str] | None = None) -> str:
    """The text appended to a summary: recent files re-read (within ``budget_tokens``) and
    masked with ``redact``, or listed with read-back hints; '' when there are none. Without
    ``redact`` every file is listed."""
    if root is None:
        return ""
    shown = set(_paths(kept))
    wanted = [p for p in _paths(summarised) if p not in shown][:MAX_FILES]
    included: list[str] = []
    listed: list[str] = []
    left = budget_tokens
    for path in wanted:
        text, exists = _read(root, path)
        if not exists:
            continue
        shown_text = None if text is None or redact is None else \
            f"### {path}\n{wrap_tool_result('read_file', redact(text))}"
        cost = estimate_text(shown_text) if shown_text is not None else FILE_TOKENS + 1
        if shown_text is not None and cost <= min(FILE_TOKENS, left):
            included.append(shown_text)
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
