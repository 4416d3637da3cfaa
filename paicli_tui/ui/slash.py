"""The slash commands (behaviour §18 plus the panels of the TUI), and parsing of a typed line.

One table feeds the input completion, the command palette, the help screen and docs/tui.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class SlashCommand:
    name: str
    """With the leading slash: ``/save``."""
    usage: str
    """Arguments, as shown in help: ``[--global] [--force] <fact>``."""
    help: str
    needs_args: bool = False
    """Choosing it from the palette puts it in the input instead of running it."""


SLASH_COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("/save", "[--global] [--force] <fact>", "Save a fact to long-term memory",
                 needs_args=True),
    SlashCommand("/memory", "[list|search|delete|verify|replace|clear] …",
                 "Open the memory browser, or run a memory operation"),
    SlashCommand("/compact", "", "Summarise older turns now (keeps the last user turn)"),
    SlashCommand("/context", "", "Open the context inspector: tokens by category, thresholds"),
    SlashCommand("/clear", "", "Clear the conversation history (the ledger keeps everything)"),
    SlashCommand("/copy", "", "Copy the model's last answer to the clipboard"),
    SlashCommand("/export", "[PATH]", "Write the conversation to a Markdown file"),
    SlashCommand("/diff", "[turn]", "What changed: the work tree against HEAD, or the "
                 "agent's last turn"),
    SlashCommand("/undo", "", "Put back the files the agent changed in its last turn"),
    SlashCommand("/resume", "[SESSION]", "Pick a previous session and reopen it"),
    SlashCommand("/index", "", "Build or refresh the code index of this project"),
    SlashCommand("/search", "[query]", "Open the code search panel"),
    SlashCommand("/graph", "<Class>", "Show a class's relations in the code graph",
                 needs_args=True),
    SlashCommand("/plan", "<goal>", "Plan mode: review a task graph, then run each task as a "
                 "sub-agent", needs_args=True),
    SlashCommand("/init", "", "Draft a PAI.md from the project's files, review it, then save"),
    SlashCommand("/skills", "", "List the skills the model can load, and broken ones"),
    SlashCommand("/mcp", "[approve|restart …]", "MCP servers: status, tools, last "
                 "error; approve .mcp.json; restart a server"),
    SlashCommand("/model", "[provider[:model]]", "Switch model; thresholds follow its window"),
    SlashCommand("/theme", "[dark|light]", "Switch between the dark and light theme"),
    SlashCommand("/help", "", "All keys and slash commands"),
    SlashCommand("/quit", "", "Leave paicli-tui"),
)

BY_NAME = {c.name: c for c in SLASH_COMMANDS}


def parse_slash(text: str) -> tuple[str, str] | None:
    """``("/name", "rest")`` for a line starting with a slash, else None (also for a
    line starting with a path such as ``/usr/bin/python3``: no command name has a slash).

    The name is lower-cased; the rest keeps its spacing inside but not at its ends.
    """
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    head, _, rest = stripped.partition(" ")
    if len(head) < 2 or "/" in head[1:]:  # "/usr/bin/python3 crashes": a path, a message
        return None
    name = head.lower()
    return ALIASES.get(name, name), rest.strip()


ALIASES = {"/exit": "/quit"}
"""Names that run one of ours: Claude Code and Codex quit with /exit."""

ELSEWHERE = {"/cost": "/context", "/usage": "/context", "/status": "/context",
             "/rewind": "/undo", "/new": "/clear"}
"""Other agents' commands (Claude Code, Codex) and ours that does that job: the spelling
guess answered /exit with /context, /rewind with /index and /usage with /save."""


def closest_command(name: str) -> str | None:
    """The command a mistyped name most likely meant (``/hlep`` → ``/help``), or ours for
    another agent's (``/cost`` → ``/context``), if any."""
    import difflib

    if name in ELSEWHERE:
        return ELSEWHERE[name]
    found = difflib.get_close_matches(name, list(BY_NAME), n=1, cutoff=0.6)
    return found[0] if found else None


def completions(prefix: str, more: Sequence[SlashCommand] = ()) -> list[SlashCommand]:
    """Commands (the program's, then ``more``: the skills) whose name starts with what was
    typed (only while typing the name)."""
    if not prefix.startswith("/") or " " in prefix or "\n" in prefix:
        return []
    low = prefix.lower()
    return [c for c in (*SLASH_COMMANDS, *more) if c.name.startswith(low)]
