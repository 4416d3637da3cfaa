"""Ctrl+A / Ctrl+E / Ctrl+U / Ctrl+K on the whole line, as in a shell (and Claude Code).

Textual's TextArea moves and deletes by the row shown: in a message that wraps, Ctrl+A
stopped at the start of its last row and Ctrl+U left the rows above it (found typing a long
message in tmux). Home and End keep the row shown, as in an editor.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import TextArea


def line_start(area: TextArea) -> None:
    area.move_cursor((area.cursor_location[0], 0))


def line_end(area: TextArea) -> None:
    row = area.cursor_location[0]
    area.move_cursor((row, len(area.document.get_line(row))))


def delete_to_line_start(area: TextArea) -> None:
    """At the start of a line it joins the line above, as Textual's Ctrl+U does."""
    row, column = area.cursor_location
    if column == 0:
        area.action_delete_left()
    else:
        area.delete((row, 0), (row, column), maintain_selection_offset=False)


def delete_to_line_end(area: TextArea) -> None:
    """At the end of a line it joins the next one, as Ctrl+K does in a shell's editor."""
    row, column = area.cursor_location
    end = len(area.document.get_line(row))
    if column == end:
        area.action_delete_right()
    else:
        area.delete((row, column), (row, end), maintain_selection_offset=False)


WHOLE_LINE_KEYS: dict[str, Callable[[TextArea], None]] = {
    "ctrl+a": line_start, "ctrl+e": line_end,
    "ctrl+u": delete_to_line_start, "ctrl+k": delete_to_line_end}
