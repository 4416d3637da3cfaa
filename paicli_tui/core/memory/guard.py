"""The external-content guard (behaviour §16).

Once a session has brought in outside content (web search or fetch, a browser, an ``mcp__``
tool, a network command), text an attacker controls may be in the context. From then on,
automatic extraction stops and ``save_memory`` works only when the person's own message this
turn asks to remember something.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from ..contracts.session_state import SessionState
from ..contracts.shell import is_network_command
from ..contracts.tools import ToolOutput
from .lexicon import asks_to_remember

EXTERNAL_TOOL_PREFIXES = ("mcp__",)
# Tool names that say they reach the web (ours, MCP servers' or plug-ins'): web_search,
# WebFetch, fetch_url, open_url, http_get, browser_*, tavily_search, google_search, scrape…
_EXTERNAL_TOOL_NAME = re.compile(
    r"(?i)(web[_-]?search|web[_-]?fetch|fetch[_-]?url|url[_-]?fetch|http[_-]?(get|request)"
    r"|browser|browse|playwright|puppeteer|selenium|search[_-]?web|download|crawl|scrape"
    r"|internet|(open|read|get|load)[_-]?url|tavily|serp|google|bing|duckduckgo|brave[_-]?search"
    r"|^fetch$)")


def is_external(tool_name: str, arguments: Mapping[str, Any], output: ToolOutput | None,
                project_root: str | os.PathLike[str] | None = None) -> bool:
    """True when this tool call brought content from outside the project into the session
    (for commands: when the command cannot be shown to stay local, see contracts.shell).

    A command is read again here, after it ran, with the project's scripts as they are now:
    a script the command changed while running is judged by what it became."""
    if output is not None and output.external:
        return True
    if tool_name.startswith(EXTERNAL_TOOL_PREFIXES) or _EXTERNAL_TOOL_NAME.search(tool_name):
        return True
    for key in ("command", "cmd", "script"):
        value = arguments.get(key)
        if isinstance(value, str) and is_network_command(value, project_root):
            return True
    return False


MAX_SOURCES = 5


def describe_source(tool_name: str, arguments: Mapping[str, Any]) -> str:
    """A short label of what brought content in: the tool and its address or command."""
    for key in ("url", "query", "command", "cmd", "script", "uri"):
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            text = " ".join(value.split())
            return f"{tool_name}: {text[:117] + '...' if len(text) > 120 else text}"
    return tool_name


def note_tool_result(session: SessionState, tool_name: str, arguments: Mapping[str, Any],
                     output: ToolOutput | None,
                     project_root: str | os.PathLike[str] | None = None) -> bool:
    """Mark the session once external content arrives (and remember what brought it, at most
    MAX_SOURCES labels); returns whether it is marked now."""
    if is_external(tool_name, arguments, output, project_root):
        session.external_content_used = True
        label = describe_source(tool_name, arguments)
        if label not in session.external_sources and len(session.external_sources) < MAX_SOURCES:
            session.external_sources.append(label)
    return session.external_content_used


def external_tags(session: SessionState | None) -> dict[str, str]:
    """Metadata for a memory saved while the session holds outside content (all strings, as
    the reference's file wants): ``external_context`` and the ``external_sources``."""
    if session is None or not session.external_content_used:
        return {}
    sources = session.external_sources or ["unknown"]
    return {"external_context": "true", "external_sources": " | ".join(sources)}


def clear_external_mark(session: SessionState) -> None:
    """/clear: the history no longer holds the outside content, so the mark goes too."""
    session.external_content_used = False
    session.external_sources.clear()


def save_refusal(session: SessionState, call_id: str = "") -> str | None:
    """Why ``save_memory`` must refuse now, or None when it may save. A call the model wrote
    as text unasked is held to the rule of a session with outside content: it may be a
    planted call the model read and wrote out, and save_memory asks nobody."""
    if asks_to_remember(session.current_user_input):
        return None
    if session.external_content_used:
        why = "this session has read outside content (web, MCP or a network command)"
    elif call_id and call_id in session.unasked_text_calls:
        why = "this call was written as text, not through the tool interface"
    else:
        return None
    return (f"Refused: {why}, so memories are saved only when the person's own message asks "
            "to remember something. Ask the person to tell you explicitly what to remember.")


def extraction_allowed(session: SessionState) -> bool:
    """Automatic extraction stops for good once the session consumed external content."""
    return not session.external_content_used
