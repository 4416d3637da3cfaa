"""Editing keys that act in order with the letters typed around them.

Textual inserts a typed letter as soon as its key arrives, but runs an editing key's binding
(Backspace, ←, Ctrl+W…) only after the key has travelled up to the app. When keys come faster
than the screen handles them (a quick typist, a loaded machine, a terminal delivering several
keys in one read) the two reorder: Backspace then T deleted the T, ← then a letter put the
letter before the move. Found typing into the chat in tmux.
"""

from __future__ import annotations

from textual import events
from textual.widget import Widget
from textual.widgets import Input

from .graphemes import character_start, next_boundary, previous_boundary

EDITING_KEYS = frozenset({
    "backspace", "delete", "ctrl+w", "ctrl+u", "ctrl+k", "alt+backspace", "ctrl+backspace",
    "alt+delete", "left", "right", "up", "down", "home", "end", "ctrl+left", "ctrl+right",
    "shift+left", "shift+right", "shift+up", "shift+down", "shift+home", "shift+end",
    "ctrl+z", "ctrl+y"})


LINE_KEYS = EDITING_KEYS - {"up", "down", "shift+up", "shift+down"}
"""In a one-line input ↑ and ↓ are not editing: they go on to the panel (↓ reaches the
results)."""


async def edit_now(widget: Widget, event: events.Key,
                   keys: frozenset[str] = EDITING_KEYS) -> bool:
    """Run the widget's own binding for an editing key at once; True when there was one
    (the key is then used up)."""
    if event.key not in keys:
        return False
    for binding in widget._bindings.key_to_bindings.get(event.key, []):
        event.stop()
        event.prevent_default()
        await widget.run_action(binding.action)
        return True
    return False


class TypedInput(Input):
    """A one-line input whose editing keys keep their place among the letters, and which
    takes a paste of several lines whole."""

    async def _on_key(self, event: events.Key) -> None:
        if not await edit_now(self, event, LINE_KEYS):
            await super()._on_key(event)

    # ← / → and Backspace / Delete step over a whole character as a person sees it (an
    # emoji of joined characters, a flag, a combining accent), as in the chat input
    def action_cursor_left(self, select: bool = False) -> None:
        if select or not self.selection.is_empty or self.password:
            super().action_cursor_left(select)
        else:
            self.cursor_position = previous_boundary(self.value, self.cursor_position)

    def action_cursor_right(self, select: bool = False) -> None:
        if select or not self.selection.is_empty or self.password or self.cursor_at_end:
            super().action_cursor_right(select)  # at the end: a suggestion is accepted
        else:
            self.cursor_position = next_boundary(self.value, self.cursor_position)

    def action_delete_left(self) -> None:
        if not self.selection.is_empty or self.password:
            super().action_delete_left()
        else:
            self.delete(previous_boundary(self.value, self.cursor_position),
                        self.cursor_position)

    def action_delete_right(self) -> None:
        if not self.selection.is_empty or self.password:
            super().action_delete_right()
        else:
            self.delete(self.cursor_position,
                        next_boundary(self.value, self.cursor_position))

    def _cell_offset_to_index(self, offset: int) -> int:
        # a click: by cells, and the joiners of 👨‍👩‍👧 take none (as in the chat input)
        return character_start(self.value, super()._cell_offset_to_index(offset))

    def _on_paste(self, event: events.Paste) -> None:
        """A paste of several lines is kept whole, its lines joined by spaces: Textual keeps
        only the first, so a three-line note pasted as a new memory was saved as its first
        line (found in tmux)."""
        event.stop()
        event.prevent_default()  # Input's own handler would insert the first line as well
        joined = " ".join(line.strip() for line in event.text.splitlines() if line.strip())
        super()._on_paste(events.Paste(joined))
