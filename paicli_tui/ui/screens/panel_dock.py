"""Docking panels beside the chat (ChatScreen mixes this in).

At ≥ 140 columns F2 / F3 open the memory browser and the code search in a column on the
right, so a person can curate memory or look up code while the agent works; the chat, its
input and the context gauge stay on the left. F6 in a panel moves it between the dock and
full screen, and the choice is kept for the next panel of the session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events

from ..widgets.panel import DOCK_MIN_WIDTH, Panel, PanelDock

if TYPE_CHECKING:
    from .chat import ChatScreen


class PanelDockMixin:
    dock_wanted: bool = True
    """Open panels docked when the terminal is wide enough (F6 changes it)."""

    def docked_panel(self: ChatScreen) -> Panel | None:
        for dock in self.query(PanelDock):
            for panel in dock.query(Panel):
                return panel
        return None

    def can_dock(self: ChatScreen) -> bool:
        return self.app.size.width >= DOCK_MIN_WIDTH

    async def show_panel(self: ChatScreen, panel: Panel) -> None:
        """Docked when wide enough and wanted, else full screen. The same kind of panel
        already docked and focused closes instead (its key toggles it)."""
        current = self.docked_panel()
        if current is not None and type(current) is type(panel) and not _has_work(panel):
            if current.has_focus_within:
                await self.close_dock()
            else:
                current.focus_first()
            return
        if self.dock_wanted and self.can_dock():
            await self.dock(panel)
        else:
            self.app.push_screen(panel.as_screen())

    async def dock(self: ChatScreen, panel: Panel) -> None:
        await self.close_dock(refocus=False)
        await self.mount(PanelDock(panel, id="panel-dock"))
        panel.focus_first()

    async def close_dock(self: ChatScreen, refocus: bool = True) -> None:
        for dock in self.query(PanelDock):
            await dock.remove()
        if refocus:
            self.prompt.focus()

    async def on_resize(self: ChatScreen, event: events.Resize) -> None:
        await self.undock_when_narrow()

    async def on_screen_resume(self: ChatScreen, event: events.ScreenResume) -> None:
        await self.undock_when_narrow()  # narrowed while a dialog was on top

    async def undock_when_narrow(self: ChatScreen) -> None:
        """Narrowed below DOCK_MIN_WIDTH: a docked panel moves to full screen with its query,
        as F6 would (it kept half an 80-column screen, the chat left 40 columns). Not while
        a dialog is on top: that waits for the chat screen to come back."""
        panel = self.docked_panel()
        if panel is None or self.can_dock() or self.app.screen is not self:
            return
        fresh = panel.reopen()  # while the old one is still mounted: it reads its query
        await self.close_dock()
        self.app.push_screen(fresh.as_screen())

    async def on_panel_moved(self: ChatScreen, message: Panel.Moved) -> None:
        if message.panel is None:
            await self.close_dock()
        else:
            await self.toggle_dock(message.panel)

    async def toggle_dock(self: ChatScreen, panel: Panel) -> None:
        """F6: the dock to full screen or back."""
        fresh = panel.reopen()  # while the old one is still mounted: it reads its query
        if panel.docked:
            self.dock_wanted = False
            await self.close_dock(refocus=False)
            self.app.push_screen(fresh.as_screen())
            return
        if not self.can_dock():
            self.notify(f"Docking needs a terminal at least {DOCK_MIN_WIDTH} columns wide "
                        f"(this one has {self.app.size.width}).", title="panels")
            return
        self.dock_wanted = True
        self.app.pop_screen()
        await self.dock(fresh)


def _has_work(panel: Panel) -> bool:
    """A panel opened for a job (`/memory delete ID`, `/search QUERY`) always opens."""
    return bool(getattr(panel, "command", None) or getattr(panel, "initial_query", ""))
