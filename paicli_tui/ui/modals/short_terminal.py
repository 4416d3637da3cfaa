"""Dialogs on a short terminal: one-row buttons and less padding, so the buttons stay on
screen (at 60×20 the approval dialog's buttons were below the last row)."""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Button

SMALL_HEIGHT = 26
"""Below this many rows a dialog's buttons are drawn compact (one row each)."""


def fit_buttons_to_height(screen: Screen, height: int) -> bool:
    """Mark ``screen`` ``-small`` and make its buttons compact when ``height`` is short;
    True when it is."""
    small = height < SMALL_HEIGHT
    screen.set_class(small, "-small")
    for button in screen.query(Button):
        button.compact = small
    return small
