"""A dialog that can open by itself while the person types answers only once the keyboard
has been quiet for a moment after it opened.

The agent asks when it gets there, often while the person is typing their next message: the
`y` of "yaml" approved a command nobody had read, `a` of "any" would have allowed every later
one, the Enter that sent a line pressed the focused button. Until the keyboard has been quiet
for ``ARM_AFTER_S`` the dialog's buttons are disabled and its keys do nothing; what is typed
meanwhile goes on where it was going (the chat input, through ``typed``), so nothing is lost.

Quiet is read from when each key was pressed, not from when the app got to it: with the event
loop held up (an index build's thread, a long redraw) keys typed on time waited in the queue
while the timer ran out, and the `y` of a word read after the dialog armed approved it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import events
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Button

from .dialog_keys import CTRL_C

try:  # the clock every Textual message is stamped with (a private module of Textual's)
    from textual._time import get_time
except ImportError:  # moved in a later Textual: its clock is the monotonic one
    from time import monotonic as get_time

Typed = Callable[[events.Key | events.Paste], None]
"""Receives a key typed before the dialog answers keys, or a paste no field of the dialog
took (the chat input's typing)."""


class QuietStart(ModalScreen[Any]):
    """Call :meth:`start_quiet` from ``on_mount`` with the widget to focus once armed."""

    BINDINGS: list[Binding] = [CTRL_C]

    ARM_AFTER_S = 0.5
    """Seconds without a key press, after opening, before the dialog takes keys."""

    def __init__(self, *, typed: Typed | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.armed = False
        self._typed = typed
        self._arm_timer: Timer | None = None
        self._armed_focus: Widget | None = None
        self.armed_at = 0.0
        """When it armed, on Textual's clock: a key pressed before then is still typing."""

    def start_quiet(self, focus: Widget) -> None:
        self._armed_focus = focus
        if self.ARM_AFTER_S <= 0:
            self.arm()
            return
        self._wait_for_quiet()

    def _wait_for_quiet(self) -> None:
        self.armed = False
        for button in self.query(Button):
            button.disabled = True
        self._arm_timer = self.set_timer(self.ARM_AFTER_S, self.arm)

    def arm(self) -> None:
        self.armed = True
        self.armed_at = get_time()
        for button in self.query(Button):
            button.disabled = False
        if self._armed_focus is not None:
            self._armed_focus.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "decide" and not self.armed:
            return False
        return super().check_action(action, parameters)

    def on_key(self, event: events.Key) -> None:
        if self.armed and event.time >= self.armed_at:
            return
        event.stop()
        event.prevent_default()
        if self.armed:  # pressed before the dialog armed, read only now: still typing
            self._wait_for_quiet()
        elif self._arm_timer is not None:
            self._arm_timer.reset()  # still typing: wait for the keyboard to rest
        if self._typed is not None:
            self._typed(event)

    def on_paste(self, event: events.Paste) -> None:
        """A paste no field of the dialog took (the approval has none) was meant for the
        message being written; it vanished before, armed or not."""
        event.stop()
        if not self.armed and self._arm_timer is not None:
            self._arm_timer.reset()  # pasting is typing: wait for the keyboard to rest
        if self._typed is not None:
            self._typed(event)
