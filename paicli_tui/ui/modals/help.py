"""Help: every slash command and every key (from the same tables the app uses), in a
centred dialog that scrolls with ↑/↓, PgUp/PgDn, Home/End or the mouse."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from ..keys import KEY_HELP
from ..slash import SLASH_COMMANDS


def help_markdown() -> str:
    """The help text as Markdown (also the source of the tables in docs/tui.md)."""
    lines = ["## Keys", "", "| key | action |", "|---|---|"]
    lines += [f"| `{key}` | {action} |" for key, action in KEY_HELP]
    lines += ["", "## Slash commands", "", "| command | what it does |", "|---|---|"]
    for command in SLASH_COMMANDS:
        usage = f"{command.name} {command.usage}".strip().replace("|", "\\|")
        lines.append(f"| `{usage}` | {command.help} |")
    return "\n".join(lines)


def _table(title: str, left: str, right: str, rows: list[tuple[str, str]]) -> Table:
    """One row per entry (no separator lines); the right column wraps."""
    table = Table(title=title, title_justify="left", title_style="bold reverse", box=None,
                  expand=True, show_header=False, pad_edge=False, padding=(0, 2, 0, 0))
    table.add_column(left, style="bold cyan", overflow="fold", ratio=2, max_width=30)
    table.add_column(right, ratio=3)
    for first, second in rows:  # Text, not markup: "[list|search]" must stay literal
        table.add_row(Text(first), Text(second))
    return table


def help_renderable() -> Group:
    """Slash commands first (what people look for), then the keys."""
    commands = [(f"{c.name} {c.usage}".strip(), c.help) for c in SLASH_COMMANDS]
    return Group(_table("Slash commands (type / in the input)", "command", "what it does",
                        commands),
                 Text(""),
                 _table("Keys", "key", "action", list(KEY_HELP)))


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,f1", "dismiss", "Close")]

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
