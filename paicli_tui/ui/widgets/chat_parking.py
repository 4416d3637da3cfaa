"""Blocks of the conversation far from the view are parked: their inner widgets are hidden
and the block keeps its height, so the scroll position and the scrollbar do not move.

Textual lays out every mounted widget of the screen on every layout change, visible or not.
An hour of chat holds thousands (each reply's paragraphs, list items and code blocks, each
tool call's title and preview), and a streamed reply changes the layout a few times a
second: measured, a 200-word reply took 3.8 s in an empty chat and 111 s under 60 earlier
turns (454 ms per layout). Parked, a block costs one widget however large it is.

A block is parked once it is more than ``PARK_SCREENS`` screen heights above or below the
view and nothing changes in it any more (not the reply being written, not a running tool
or sub-agent, not holding the focus); it is unparked as soon as the view comes within that
distance (scrolling, PgUp), and every block is unparked when the width changes (its height
would be stale).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from textual.css.scalar import Scalar
from textual.widget import Widget

PARK_SCREENS = 2
"""Screen heights kept live above and below the view."""
UNMEASURED_TRIES = 25
"""How many calls in a row (0.2 s apart) wait for a layout before giving up until the next
change (about five seconds)."""


@dataclass
class Parked:
    height: Scalar | None
    """The block's own inline height before it was parked (None: it had none)."""
    shown: list[tuple[Widget, bool]]
    """Its inner widgets and whether each was displayed."""


class ChatParking:
    """Parks and unparks the children of one scrolling conversation."""

    def __init__(self, log: Widget) -> None:
        self.log = log
        self.parked: dict[Widget, Parked] = {}
        self.width = 0
        self.unmeasured_tries = 0
        """Calls in a row that found the conversation or some block not laid out yet."""

    def window(self) -> tuple[int, int]:
        """The rows of the conversation kept live: the view and ``PARK_SCREENS`` around it."""
        log = self.log
        height = max(1, log.size.height)
        top = round(log.scroll_y)
        return top - PARK_SCREENS * height, top + height + PARK_SCREENS * height

    def update(self, live: Iterable[Widget]) -> bool:
        """Park what is far from the view, unpark what came near it. ``live``: blocks that
        may still change (never parked). True: call again after the next layout (the width
        changed: every block was unparked to be measured again)."""
        log = self.log
        if not log.is_mounted:
            return False
        if log.size.height <= 0:
            return self._again_after_layout()
        if log.size.width != self.width:
            self.unpark_all()
            self.width = log.size.width
            return True
        top, bottom = self.window()
        keep = set(live)
        focused = log.screen.focused if log.is_attached else None
        unmeasured = False
        for child in list(log.children):
            region = child.virtual_region
            near = region.bottom >= top and region.y <= bottom
            if child in self.parked:
                if near or child in keep:
                    self.unpark(child)
            elif region.width == 0 and child.display \
                    and any(inner.display for inner in child.children):
                # Not laid out yet: Textual has no place for it (an empty region, "near" the
                # top of an unscrolled view). Counted as near, a session drawn just before
                # this call parked nothing until the next scroll. A block laid out is as wide
                # as the conversation even at no height (a reply of blank lines): waiting
                # for that one kept a timer going and then used up the tries for good.
                unmeasured = True
            elif not near and child.display and child.children and child not in keep \
                    and (focused is None or child not in focused.ancestors_with_self):
                self.park(child, region.height)
        if unmeasured:
            return self._again_after_layout()
        self.unmeasured_tries = 0
        return False

    def _again_after_layout(self) -> bool:
        """True while the conversation or a block far from the view has not been laid out
        yet, a few times: a session drawn all at once could otherwise end its last call
        before the layout, and nothing would be parked until the next scroll (a bounded
        number of tries: a block that stays at no height must not keep a timer going)."""
        self.unmeasured_tries += 1
        return self.unmeasured_tries <= UNMEASURED_TRIES

    def unpark_near(self) -> None:
        """Unpark at once what the view came near (called on every scroll)."""
        if not self.parked:
            return
        top, bottom = self.window()
        for child in list(self.parked):
            region = child.virtual_region
            if region.bottom >= top and region.y <= bottom:
                self.unpark(child)

    def park(self, child: Widget, height: int) -> None:
        self.parked[child] = Parked(child.styles.inline.height,
                                    [(inner, inner.display) for inner in child.children])
        child.styles.height = height  # the outer height: padding and border included
        for inner in child.children:
            inner.display = False

    def unpark(self, child: Widget) -> None:
        parked = self.parked.pop(child)
        for inner, shown in parked.shown:
            inner.display = shown
        child.styles.height = parked.height

    def unpark_all(self) -> None:
        for child in list(self.parked):
            self.unpark(child)

    def forget(self) -> None:
        """The conversation was emptied (a new session, /clear)."""
        self.parked.clear()
