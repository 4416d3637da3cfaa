"""Text shown on the screen never drives the terminal.

What the chat shows is mostly data: a file read by a tool, a command's output (a commit
message of a hostile repository through ``git log``), an error body, the model's words. Any of
it can hold an escape sequence: OSC 52 writes the person's clipboard, OSC 0 retitles the
window, ``ESC[2J`` clears the screen. Textual and Rich strip only BEL, BS, VT, FF and CR from
the text they draw and pass ESC and the other controls to the terminal as they are. Both read
one translation table for that (Textual's ``Content``, Rich's ``Text``), so the table is
extended once, when the app starts: ESC, the other C0 controls, DEL and the C1 controls
(0x9b is CSI on its own) are drawn as visible ``\\x1b`` / ``\\u009b`` text, the way tool
output shows control bytes in file names. Tab and line breaks stay what they are.
"""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)

KEPT = frozenset({9, 10})
"""Tab and line feed mean layout, not commands."""
REORDERING = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))
"""The bidirectional embedding, override and isolate controls (Trojan Source): a terminal
that lays out bidirectional text (VTE's, Konsole's) draws what follows one in another order,
so a command in the approval dialog could read as another. Shown as ``\\u202e`` text too."""


def shown_as(code: int) -> str:
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"


def show_control_characters() -> None:
    """Make Textual and Rich draw control characters as visible text (idempotent)."""
    import rich.control
    from textual import content

    for module in (content, rich.control):
        # a private table: a Textual release without it must not stop the app from starting
        table = getattr(module, "_CONTROL_STRIP_TRANSLATE", None)
        if not isinstance(table, dict):
            log.warning("%s has no control-character table: escape sequences in shown text "
                        "are not neutralised", module.__name__)
            continue
        for code in (*range(0x20), *range(0x7f, 0xa0), *REORDERING):
            if code not in KEPT and code not in table:  # BEL, BS, VT, FF, CR stay stripped
                table[code] = shown_as(code)
