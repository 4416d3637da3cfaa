"""One line under the input while the accept-edits mode is on (Shift+Tab switches it), so
the person never forgets that file changes are going ahead without a question; hidden when
the mode is off (it costs no row then)."""

from __future__ import annotations

from textual.widgets import Static

LONG = "» accept edits on · file changes go ahead unasked, commands still ask · Shift+Tab: off"
MEDIUM = "» accept edits on · commands still ask · Shift+Tab: off"
SHORT = "» accept edits on (Shift+Tab)"


def mode_text(width: int) -> str:
    """The longest wording that fits ``width`` cells (padding counted)."""
    for text in (LONG, MEDIUM):
        if len(text) + 2 <= width:
            return text
    return SHORT


class ModeLine(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.on = False

    def show_mode(self, on: bool) -> None:
        self.on = on
        self.display = on
        self._redraw()

    def on_resize(self) -> None:
        self._redraw()

    def _redraw(self) -> None:
        self.update(mode_text(self.size.width or 80) if self.on else "")
