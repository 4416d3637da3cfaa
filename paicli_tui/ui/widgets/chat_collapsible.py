"""A foldable block of the conversation that the program may open or fold without moving
the view. Textual's Collapsible scrolls itself into view on every change, which also stops
the conversation following its end: a denied call opening to show why left the reply after
it below the screen, and a resumed session opened at its first such block. A click on the
title still brings the block into view."""

from __future__ import annotations

from typing import Any

from textual.widgets import Collapsible


class ChatCollapsible(Collapsible):
    _quiet = False
    """The next scroll-into-view request is the program's own change: skip it."""

    def set_collapsed(self, collapsed: bool) -> None:
        """Open or fold the block from the program, leaving the view where it is."""
        if self.collapsed == collapsed:
            return
        self._quiet = self.is_mounted  # an unmounted block asks for no scroll
        self.collapsed = collapsed

    def scroll_visible(self, *args: Any, **kwargs: Any) -> None:
        if self._quiet:
            self._quiet = False
            return
        super().scroll_visible(*args, **kwargs)
