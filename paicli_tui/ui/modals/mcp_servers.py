"""/mcp: the session's MCP servers, one row each, and `r` to start the highlighted one again.

`/mcp` writes its report in the chat (tools, notes, the log paths to copy), then opens this
view over it: a failed server could only be restarted by typing its name; here, as in
Claude Code's /mcp, the person moves to it and presses a key. The screen answers the name to
restart (the chat then runs `/mcp restart NAME`), or None."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from ...core.mcp.status import ServerStatus
from ...core.plural import counted
from .dialog_keys import CTRL_C
from .short_terminal import SMALL_HEIGHT

DETAIL_CHARS = 300
"""Characters of a server's last error shown under the list (the log has it all)."""


def server_row(status: ServerStatus, wide: int) -> str:
    """Name, state and tools, the names padded to ``wide`` (the longest one's)."""
    tools = counted(len(status.tools), "tool") if status.state == "running" else ""
    return f"{status.config.name:<{wide}}  {status.state:<10} {tools}".rstrip()


def server_detail(status: ServerStatus) -> str:
    """What the row does not say: the last error and the log, or why `r` does nothing."""
    if status.state == "disabled":
        return "disabled in config.toml: set enabled = true, then start a new session"
    lines = []
    if status.error:
        error = status.error
        lines.append("last error: " + (error[:DETAIL_CHARS] + "…" if len(error) > DETAIL_CHARS
                                       else error))
    if status.log_path is not None:
        lines.append(f"log: {status.log_path}")
    return "\n".join(lines)


class McpServersScreen(ModalScreen[str | None]):
    """One row per configured server; `r` answers the highlighted one's name (Enter does
    not: a running server is not restarted by a key pressed to look at it)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel"), CTRL_C,
                Binding("r", "restart", "Restart", show=False)]

    def __init__(self, statuses: list[ServerStatus]) -> None:
        super().__init__(classes="dialog-screen")
        self.statuses = statuses

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog picker-dialog"):
            yield Label("MCP servers", classes="dialog-title")
            wide = max((len(s.config.name) for s in self.statuses), default=0)
            yield OptionList(*[Option(server_row(s, wide), id=s.config.name)
                               for s in self.statuses], id="mcp-servers")
            yield Label("", id="mcp-detail", classes="dim", markup=False)
            yield Label("↑↓ choose · r restarts · Esc closes", classes="dim dialog-keys")

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.height < SMALL_HEIGHT, "-small")

    def on_mount(self) -> None:
        self.set_class(self.size.height < SMALL_HEIGHT, "-small")
        options = self.query_one(OptionList)
        # on the first failed server: the one a person most likely came for
        options.highlighted = next((i for i, s in enumerate(self.statuses)
                                    if s.state == "failed"), 0)
        options.focus()

    def _highlighted(self) -> ServerStatus | None:
        index = self.query_one(OptionList).highlighted
        return self.statuses[index] if index is not None else None

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        status = self._highlighted()
        self.query_one("#mcp-detail", Label).update(server_detail(status) if status else "")

    def action_restart(self) -> None:
        status = self._highlighted()
        if status is not None and status.state != "disabled":
            self.dismiss(status.config.name)

    def action_cancel(self) -> None:
        self.dismiss(None)
