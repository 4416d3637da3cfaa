"""What is known of one configured MCP server while the session runs, and how a failure reads."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..contracts.events import McpServerChanged
from ..contracts.secrets import scrub_secret_values
from ..contracts.tools import Tool
from .config import McpServerConfig


@dataclass
class ServerStatus:
    config: McpServerConfig
    state: str = "starting"
    """``starting``, ``running``, ``restarting``, ``failed``, ``disabled`` or ``stopped``."""
    error: str | None = None
    """Why it failed to start or stopped, or the last failed call."""
    tools: list[Tool] = field(default_factory=list)
    log_path: Path | None = None
    session: Any = None
    restart_done: asyncio.Event | None = None
    """Set while the person's restart runs: a call waits for it instead of failing."""
    restarts: int = 0
    """Restarts asked for so far: a call that saw another number lost its process to one."""


def describe_error(exc: BaseException) -> str:
    """One line for a failure, looking inside the exception groups the SDK raises."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    if isinstance(exc, NotADirectoryError):
        return f"its cwd is not a folder: {exc.filename or exc}"
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    text = str(exc).strip() or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if type(exc).__name__ not in text else text


STDERR_TAIL_BYTES = 4096
STDERR_LINE_CHARS = 200
MIN_KNOWN_CHARS = 6
"""A configured value shorter than this ("1", "true", a port) is not taken for a secret."""


_NOT_WHY = re.compile(r"^(at .+:\d+(:\d+)?\)? ?\{?|\.\.\. \d+ more|Node\.js v[\d.]+)$")
"""Lines of a crash that do not say why: a stack frame (Node's ``at f (file.js:3:9)``, Java's
``at a.B(B.java:3)``, ``... 4 more``) and the version line Node ends an uncaught error with."""
_WHY = re.compile(r"^([\w.]*(error|exception)\b|(fatal|panic)\b)", re.IGNORECASE)
"""A line that names the failure (``Error: Cannot find module 'zod'``, ``ModuleNotFoundError:
…``, ``Exception in thread …``, ``fatal: …``, Go's ``panic: …``): Node prints the error's
fields after its frames (``code: 'MODULE_NOT_FOUND'``, ``}``), which say less."""


def stderr_tail(log_path: Path | None, start: int, known: Iterable[str] = ()) -> str:
    """The last line a server wrote to its log since ``start`` (its stderr this run) that
    says why, for a server that failed: "Connection closed" alone said nothing, while the log
    held why (a missing package, a bad token). A Node server's crash ends with stack frames,
    the error's fields and ``Node.js v20.11.0``, which were quoted instead of its error: the
    last line naming an error is quoted, else the last that is no stack frame.
    ``known`` values (the server's configured ``env``: a password has no key shape) and
    key-shaped values are masked before the line is cut (a value cut in two was no longer
    found, and its first half was shown); "" when it wrote nothing or the log cannot be read."""
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
    said = [line for line in lines if not _NOT_WHY.match(line)] or lines
    last = next((line for line in reversed(said) if _WHY.match(line)), said[-1])
    for value in sorted(known, key=len, reverse=True):
        if len(value) >= MIN_KNOWN_CHARS:
            last = last.replace(value, "****")
    last = scrub_secret_values(last)
    if len(last) > STDERR_LINE_CHARS:
        last = last[:STDERR_LINE_CHARS] + "…"
    return f" (its stderr ended: {last})"


_MARKDOWN_ACTIVE = re.compile(r"([\\`*_\[\]<>&~!|])")


def markdown_literal(text: str) -> str:
    """``text`` to be read as it stands inside a line of the Markdown the chat shows (the
    startup warning, ``/mcp``): the characters Markdown acts on escaped and line breaks made
    spaces. A project's .mcp.json is quoted there before anyone trusted it; a server name
    ``x](https://…) **sign in again**`` must not become a link and bold words in the
    program's voice."""
    return _MARKDOWN_ACTIVE.sub(r"\\\1", " ".join(text.split()))


def not_running(status: ServerStatus) -> str:
    """What a call to a server that is not running answers: the model is told why and that
    the person can start it again (the model cannot run the command itself)."""
    name = status.config.name
    why = f": {status.error}" if status.error else ""
    return (f"The MCP server {name!r} is not running{why}. Its tools cannot be called until "
            f"the person restarts it with `/mcp restart {name}`; tell them.")


def change_notice(event: McpServerChanged, *, markdown: bool = True) -> str:
    """The line said for a server that changed state by itself or was restarted: Markdown
    for the chat (a failure's words shown as text, how to restart it), plain for ``exec``,
    which has no ``/mcp restart``."""
    name = f"`{event.server}`"
    if event.state == "running":
        return f"MCP server {name} restarted: {event.tools} tools, offered from the next request."
    detail = markdown_literal(event.detail) if markdown else event.detail
    again = f" `/mcp restart {event.server}` starts it again." if markdown else ""
    if event.cause == "exited":
        return f"MCP server {name} stopped: {detail}; calls to its tools fail.{again}"
    did = "did not restart" if event.cause == "restart" else "did not start"
    return f"MCP server {name} {did}: {detail}.{again}"


def mcp_change_note(event: McpServerChanged) -> str:
    """What the model is told with the person's next message when a server it had tools of
    stopped or came back: its tools vanish from (or return to) the list without a word
    otherwise."""
    name = event.server
    if event.state == "running":
        return f"The MCP server {name!r} runs again: its tools are offered again."
    return (f"The MCP server {name!r} stopped: {event.detail}. Its tools are not offered until "
            f"the person restarts it with `/mcp restart {name}`; tell them if they need it.")
