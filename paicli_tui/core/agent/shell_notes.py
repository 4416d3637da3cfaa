"""What a ``!command`` of the person's leaves for the model: the command, its exit code and
its output, and how the next message carries them (core.agent.shell_line runs them)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..context.boundary import clean_text, escape_content

_TAG_INSIDE = re.compile(r"<(/?shell_output)", re.IGNORECASE)


@dataclass(frozen=True)
class ShellNote:
    """One command the person ran, as the model will read it."""

    command: str
    exit_code: int | None
    output: str


def shell_block(notes: Sequence[ShellNote]) -> str:
    """The commands and their output, each wrapped as data, for the next message."""
    parts = []
    for note in notes:
        command = clean_text(note.command).replace("&", "&amp;").replace('"', "&quot;") \
            .replace("<", "&lt;").replace("\n", " ")
        code = "killed" if note.exit_code is None else str(note.exit_code)
        body = _TAG_INSIDE.sub(r"&lt;\1", escape_content(clean_text(note.output)))
        parts.append(f'<shell_output command="{command}" exit="{code}" '
                     f'trust="untrusted-data">\n{body}\n</shell_output>')
    return ("The person ran these commands in the project before writing (their output, "
            "for you to read):\n\n" + "\n\n".join(parts)) if parts else ""
