"""Help: every key and every slash command (from the same tables the app uses)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Markdown

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


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,f1", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help-dialog"):
            yield Label("paicli-tui help", classes="dialog-title")
            yield Markdown(help_markdown(), classes="help-text")

    def action_dismiss(self, result: object = None) -> None:  # type: ignore[override]
        self.dismiss(None)
