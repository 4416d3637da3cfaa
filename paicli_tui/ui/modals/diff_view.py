"""``/diff``: the changed files (path, lines added and removed) above their coloured unified
diff, in a dialog that scrolls from the keyboard; Esc closes."""

from __future__ import annotations

from rich.console import Group
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from ...core.agent.diff_view import DiffView
from .dialog_keys import CTRL_C


def file_rows(view: DiffView) -> Table:
    """One row a file: ``+12 −4  src/app.py``; a file without counts (binary, not shown) has
    its note after its path, where a long note does not push the counts away from it."""
    table = Table(box=None, show_header=False, pad_edge=False, padding=(0, 1, 0, 0))
    table.add_column(justify="right", no_wrap=True)
    table.add_column(no_wrap=True)
    table.add_column(overflow="fold")
    for change in view.files:
        path = Text(change.path)
        counted = change.added is not None and change.removed is not None
        if change.note:
            path.append(f"  ({change.note})", style="dim" if counted else "yellow")
        if counted:
            table.add_row(Text(f"+{change.added}", style="green"),
                          Text(f"−{change.removed}", style="red"), path)
        else:
            table.add_row("", "", path)
    return table


class DiffModal(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "dismiss", "Close"), CTRL_C]

    def __init__(self, view: DiffView) -> None:
        super().__init__(classes="dialog-screen")
        self.view = view

    def compose(self) -> ComposeResult:
        view = self.view
        theme = "ansi_dark" if self.app.current_theme.dark else "ansi_light"
        parts: list = [file_rows(view)]
        parts += [Text(note, style="yellow") for note in view.notes]
        if view.diff:
            # a diff ends with a line break: Syntax drew it as an empty last row
            parts += [Text(""), Syntax(view.diff.rstrip("\n"), "diff", word_wrap=True,
                                       theme=theme)]
        with Vertical(classes="dialog help-dialog diff-dialog"):
            yield Static(Text(f"{view.title} · {view.summary()}"), classes="dialog-title")
            yield Label("[dim]↑↓ PgUp PgDn scroll · Esc closes[/dim]")
            with VerticalScroll(classes="help-scroll"):
                yield Static(Group(*parts), classes="help-text")

    def on_mount(self) -> None:
        self.query_one(".help-scroll", VerticalScroll).focus()

    def action_dismiss(self, result: object = None) -> None:  # type: ignore[override]
        self.dismiss(None)
