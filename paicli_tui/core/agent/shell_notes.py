"""What a ``!command`` of the person's leaves for the model: the command, its exit code and
its output, and how the next message carries them (core.agent.shell_line runs them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..context.boundary import wrap_data

MAX_PENDING = 10
"""Commands whose output waits for the next message at most; older ones are dropped."""
CARRIED = "shell_carried"
"""Ledger event: the waiting commands went with a message."""
DROPPED = "shell_dropped"
"""Ledger event: /clear dropped the waiting commands."""

COMMAND_TITLE_MARK = "!"
"""Starts the title of a session named after its first ``!command`` (no message of the
person's starts so: such a line runs as a command), so their first message names it."""


def titled_by_command(title: str) -> bool:
    """The session's title came from a ``!command``, not from the person's words."""
    return title.startswith(COMMAND_TITLE_MARK)


@dataclass(frozen=True)
class ShellNote:
    """One command the person ran, as the model will read it."""

    command: str
    exit_code: int | None
    output: str


def shell_block(notes: Sequence[ShellNote]) -> str:
    """The commands and their output, each wrapped as data, for the next message."""
    parts = [wrap_data("shell_output",
                       {"command": note.command.replace("\n", " "),
                        "exit": "killed" if note.exit_code is None else str(note.exit_code)},
                       note.output)
             for note in notes]
    return ("The person ran these commands in the project before writing (their output, "
            "for you to read):\n\n" + "\n\n".join(parts)) if parts else ""


def keep_waiting(pending: list[ShellNote], notes: list[ShellNote]) -> None:
    """``notes`` added to the commands waiting for the next message, the oldest dropped
    past MAX_PENDING."""
    pending.extend(notes)
    dropped = len(pending) - MAX_PENDING
    if dropped > 0:
        del pending[:dropped]


def waiting_notes(records: list[dict[str, Any]]) -> list[ShellNote]:
    """The commands of a resumed session still waiting for a message, from its ledger's
    ``shell_`` events: those run after the last message carried (or /clear dropped) them.
    A record from before outputs were kept has none to give and is left out."""
    notes: list[ShellNote] = []
    for record in records:
        if record.get("kind") in (CARRIED, DROPPED):
            notes = []
        elif record.get("kind") == "shell_line" and isinstance(record.get("output"), str):
            code = record.get("exit_code")
            keep_waiting(notes, [ShellNote(str(record.get("command", "")),
                                           code if isinstance(code, int) else None,
                                           record["output"])])
    return notes
