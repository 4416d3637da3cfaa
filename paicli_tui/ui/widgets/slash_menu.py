"""The vertical list of slash commands shown above the input while a command name is typed:
name, arguments and what it does, the highlighted one marked (its description whole). It
only renders; the input decides what is highlighted (Tab / Shift+Tab / ↑ / ↓ move it)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from ..slash import SlashCommand

VISIBLE = 6
"""Rows shown at once; the window scrolls with the highlight."""


class SlashMenu(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, classes="slash-menu")
        self.matches: list[SlashCommand] = []
        self.highlighted = 0

    def show_matches(self, matches: Sequence[SlashCommand], highlighted: int) -> None:
        self.matches = list(matches)
        self.highlighted = highlighted
        self.display = bool(self.matches)
        if self.matches:
            self.update(self.renderable())

    def renderable(self, width: int | None = None) -> Group:
        width = width or self.size.width or 80
        table = Table.grid(padding=(0, 1), expand=True)
        table.add_column(width=1, no_wrap=True)
        files = all(command.name.startswith("@") for command in self.matches)
        # a file path takes the whole row: it has no description beside it
        table.add_column(no_wrap=True, overflow="ellipsis",
                         max_width=None if files else max(16, width // 2))
        table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        first = max(0, min(self.highlighted - VISIBLE + 1, len(self.matches) - VISIBLE))
        window = self.matches[first:first + VISIBLE]
        for offset, command in enumerate(window, start=first):
            chosen = offset == self.highlighted
            shown = command.name
            if files and len(shown) > width - 4:  # a long path keeps its file name
                shown = "…" + shown[-max(8, width - 5):]
            name = Text(shown, style="bold")
            if command.usage:
                name.append(" " + command.usage, style="" if chosen else "dim")
            # the highlighted command's description wraps whole: at 80 columns five of the
            # first six were cut ("Summarise older turns now (keeps th…"), at 60 all but one
            help_text = Text(command.help, no_wrap=False) if chosen else \
                Text(command.help, style="dim")
            table.add_row("❯" if chosen else " ", name, help_text,
                          style="reverse" if chosen else "")
        above, below = first, len(self.matches) - first - len(window)
        where = [f"{above} above"] * bool(above) + [f"{below} below"] * bool(below)
        keys = "Tab / ↑↓ choose · Enter " + ("picks" if files else "runs") + " · Esc closes"
        hint = " · ".join([*where, keys])
        return Group(table, Text(hint, style="dim italic", no_wrap=True,
                                 overflow="ellipsis"))

    def on_resize(self) -> None:
        if self.matches:
            self.update(self.renderable())
