"""What is known of one configured MCP server while the session runs, and how a failure reads."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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


_MARKDOWN_ACTIVE = re.compile(r"([\\`*_\[\]<>&~!|])")


def markdown_literal(text: str) -> str:
    """``text`` to be read as it stands inside a line of the Markdown the chat shows (the
    startup warning, ``/mcp``): the characters Markdown acts on escaped and line breaks made
    spaces. A project's .mcp.json is quoted there before anyone trusted it; a server name
    ``x](https://…) **sign in again**`` must not become a link and bold words in the
    program's voice."""
    return _MARKDOWN_ACTIVE.sub(r"\\\1", " ".join(text.split()))
