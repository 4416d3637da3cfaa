"""Help: every slash command and every key (from the same tables the app uses), in a
centred dialog that scrolls with ↑/↓, PgUp/PgDn, Home/End or the mouse."""

from __future__ import annotations

import re

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from ..keys import KEY_HELP
from ..slash import SLASH_COMMANDS
from .dialog_keys import CTRL_C


def help_markdown() -> str:
    """The help text as Markdown (also the source of the tables in docs/tui.md)."""
    lines = ["## Keys", "", "| key | action |", "|---|---|"]
    lines += [f"| `{key}` | {action} |" for key, action in KEY_HELP]
    lines += ["", "## Slash commands", "", "| command | what it does |", "|---|---|"]
    for command in SLASH_COMMANDS:
        usage = f"{command.name} {command.usage}".strip().replace("|", "\\|")
        lines.append(f"| `{usage}` | {command.help} |")
    return "\n".join(lines)


_USAGE_PIECES = re.compile(r"[^\s|]*\||[^\s|]+|\s+")
CONTINUATION = "  "
"""A usage's next lines are indented, so they read as one usage."""


def wrap_usage(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` cells, broken between words or after a ``|``
    (``[list|search|`` / ``delete|verify]``), inside a word only when it alone is too long."""
    lines: list[str] = []
    line = ""
    for piece in _USAGE_PIECES.findall(text):
        room = width - (len(CONTINUATION) if lines else 0)
        if piece.isspace():
            line += " " if line else ""
            continue
        if line and len(line) + len(piece) > room:
            lines.append(line.rstrip())
            line = ""
            room = width - len(CONTINUATION)
        line += piece
        while len(line) > room:  # one word longer than the column: fold it
            lines.append(line[:room])
            line = line[room:]
            room = width - len(CONTINUATION)
    if line.strip():
        lines.append(line.rstrip())
    return [lines[0], *(CONTINUATION + rest for rest in lines[1:])] if lines else [""]


class Usage:
    """A command's usage in the help table: wraps at sensible points for its column."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        longest = max((len(p) for p in _USAGE_PIECES.findall(self.text)), default=1)
        return Measurement(min(longest + len(CONTINUATION), len(self.text)), len(self.text))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text("\n".join(wrap_usage(self.text, max(4, options.max_width))))


def _table(title: str, left: str, right: str, rows: list[tuple[str, str]]) -> Table:
    """One row per entry (no separator lines); both columns wrap, the left one between the
    words of a usage."""
    table = Table(title=title, title_justify="left", title_style="bold reverse", box=None,
                  expand=True, show_header=False, pad_edge=False, padding=(0, 2, 0, 0))
    table.add_column(left, style="bold cyan", ratio=2, max_width=30)
    table.add_column(right, ratio=3)
    for first, second in rows:  # Text, not markup: "[list|search]" must stay literal
        table.add_row(Usage(first), Text(second))
    return table


def help_renderable() -> Group:
    """Slash commands first (what people look for), then the keys."""
    commands = [(f"{c.name} {c.usage}".strip(), c.help) for c in SLASH_COMMANDS]
    return Group(_table("Slash commands (type / in the input)", "command", "what it does",
                        commands),
                 Text(""),
                 _table("Keys", "key", "action", list(KEY_HELP)))


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,f1", "dismiss", "Close"), CTRL_C]

    def __init__(self) -> None:
        super().__init__(classes="dialog-screen")

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help-dialog"):
            yield Label("paicli-tui help  [dim](↑↓ PgUp PgDn scroll · Esc closes)[/dim]",
                        classes="dialog-title")
            with VerticalScroll(classes="help-scroll"):
                yield Static(help_renderable(), classes="help-text")

    def on_mount(self) -> None:
        self.query_one(".help-scroll", VerticalScroll).focus()

    def action_dismiss(self, result: object = None) -> None:  # type: ignore[override]
        self.dismiss(None)
