"""A panel full screen: header, the panel, the footer."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Header

from ..widgets.app_footer import AppFooter
from ..widgets.panel import Panel


class PanelScreen(Screen[None]):
    def __init__(self, panel: Panel, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.panel = panel

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        yield self.panel
        yield AppFooter()

    def on_mount(self) -> None:
        self.sub_title = self.panel.title
