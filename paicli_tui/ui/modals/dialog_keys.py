"""Ctrl+C in a dialog. A dialog shuts out the app's keys, so Ctrl+C there did nothing at all
(the quit hint too needs the app's keys); with this binding it copies a selection, cancels
the running turn in a dialog the turn opened (an approval), or says how to quit."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import OptionList

CTRL_C = Binding("ctrl+c,super+c", "app.dialog_ctrl_c", "Copy / cancel the turn", show=False)


def move_highlight(options: OptionList, step: int) -> None:
    """↑/↓ bound on a picker whose filter box keeps the focus: the list's highlight moves,
    stopping at either end."""
    if options.option_count:
        current = options.highlighted or 0
        options.highlighted = max(0, min(options.option_count - 1, current + step))
