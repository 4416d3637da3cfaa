"""Text a sub-command prints for a person's terminal: data from the project, the model or a
server can hold escape sequences (OSC 52 writes the clipboard, OSC 0 retitles the window,
``ESC[2J`` clears the screen), so control characters are written out as ``\\xNN``; line
breaks and tabs are kept, a CRLF is the line break it is. --json output keeps every text
exactly (JSON escapes it)."""

from __future__ import annotations


def printable(text: str) -> str:
    """``text`` with its control characters shown, not sent."""
    from ..core.text.fsnames import display_name

    return "\n".join("\t".join(display_name(part) for part in line.split("\t"))
                     for line in text.replace("\r\n", "\n").split("\n"))
