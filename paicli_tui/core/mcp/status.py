"""What is known of one configured MCP server while the session runs, and how a failure reads."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..contracts.secrets import scrub_secret_values
from ..contracts.tools import Tool
from .config import McpServerConfig


@dataclass
class ServerStatus:
    config: McpServerConfig
    state: str = "starting"
    """``starting``, ``running``, ``failed``, ``disabled`` or ``stopped``."""
    error: str | None = None
    """Why it failed to start, or the last failed call."""
    tools: list[Tool] = field(default_factory=list)
    log_path: Path | None = None
    session: Any = None


def describe_error(exc: BaseException) -> str:
    """One line for a failure, looking inside the exception groups the SDK raises."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    text = str(exc).strip() or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if type(exc).__name__ not in text else text


STDERR_TAIL_BYTES = 4096
STDERR_LINE_CHARS = 200
MIN_KNOWN_CHARS = 6
"""A configured value shorter than this ("1", "true", a port) is not taken for a secret."""


def stderr_tail(log_path: Path | None, start: int, known: Iterable[str] = ()) -> str:
    """The last line a server wrote to its log since ``start`` (its stderr this run), for a
    server that failed to start: "Connection closed" alone said nothing, while the log held
    why (a missing package, a bad token). ``known`` values (the server's configured ``env``:
    a password has no key shape) and key-shaped values are masked; "" when it wrote nothing
    or the log cannot be read."""
    if log_path is None:
        return ""
    try:
        with log_path.open("rb") as handle:
            end = handle.seek(0, 2)
            handle.seek(max(start, end - STDERR_TAIL_BYTES))
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    last = lines[-1]
    if len(last) > STDERR_LINE_CHARS:
        last = last[:STDERR_LINE_CHARS] + "…"
    for value in sorted(known, key=len, reverse=True):
        if len(value) >= MIN_KNOWN_CHARS:
            last = last.replace(value, "****")
    return f" (its stderr ended: {scrub_secret_values(last)})"


_MARKDOWN_ACTIVE = re.compile(r"([\\`*_\[\]<>&~!|])")


def markdown_literal(text: str) -> str:
    """``text`` to be read as it stands inside a line of the Markdown the chat shows (the
    startup warning, ``/mcp``): the characters Markdown acts on escaped and line breaks made
    spaces. A project's .mcp.json is quoted there before anyone trusted it; a server name
    ``x](https://…) **sign in again**`` must not become a link and bold words in the
    program's voice."""
    return _MARKDOWN_ACTIVE.sub(r"\\\1", " ".join(text.split()))
