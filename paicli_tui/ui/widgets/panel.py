"""A panel (memory browser, code search) that works full screen or docked beside the chat.

The panel does not know where it sits beyond ``docked``: Esc leaves it (full screen: back to
the chat; docked: focus back to the chat input, the panel stays), Ctrl+W closes it, F6 moves
it between full screen and the dock (the chat screen does the moving, with a fresh panel
carrying the same query).
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message

DOCK_MIN_WIDTH = 140
"""Columns from which a panel opens docked beside the chat instead of full screen."""


class PanelDock(Vertical):
    """The right-hand column of the chat screen that holds a docked panel."""


class Panel(Vertical):
    BINDINGS = [
        Binding("escape", "leave", "Back"),
        Binding("f6", "toggle_dock", "Dock/full"),
        Binding("ctrl+w", "close", "Close", show=False),
    ]
    title = ""
    """The sub-title of its full screen."""

    @property
    def docked(self) -> bool:
        return isinstance(self.parent, PanelDock)

    def reopen(self) -> Panel:
        """A new panel in the same state (same query), for moving it."""
        raise NotImplementedError

    def as_screen(self) -> Any:
        """This panel inside its full screen."""
        raise NotImplementedError

    def chat(self) -> Any:
        """The chat screen (under this panel's screen, or this panel's own screen)."""
        return self.app._chat_screen()  # type: ignore[attr-defined]

    def action_leave(self) -> None:
        if self.docked:
            self.chat().prompt.focus()
        else:
            self.app.pop_screen()

    def focus_first(self) -> None:
        """Focus the widget a person starts with (a list, a query box)."""

    class Moved(Message):
        """Ctrl+W (``panel`` None: close the dock) or F6 (move ``panel`` between the dock and
        full screen). Posted to the chat screen, which does the moving: its handler outlives
        this panel's own screen being popped."""

        bubble = False

        def __init__(self, panel: Panel | None) -> None:
            super().__init__()
            self.panel = panel

    def action_close(self) -> None:
        if self.docked:
            self.chat().post_message(Panel.Moved(None))
        else:
            self.app.pop_screen()

    def action_toggle_dock(self) -> None:
        self.chat().post_message(Panel.Moved(self))

    def to_chat_input(self, message: Any) -> None:
        """Hand a message to the chat (a reference to insert); a full-screen panel closes."""
        chat = self.chat()
        if not self.docked:
            self.app.pop_screen()
        chat.post_message(message)
