"""``/copy``: which text is "the last answer", and the line that says what was copied."""

from __future__ import annotations

from collections.abc import Sequence

from ..core.messages import Message, Role
from ..core.plural import counted


def last_answer(history: Sequence[Message]) -> str | None:
    """The newest reply of the model that has words (a reply that only called tools is not
    an answer); None when there is none yet."""
    for message in reversed(history):
        if message.role is Role.ASSISTANT and message.content.strip():
            return message.content
    return None


def copied_line(text: str) -> str:
    """What the chat says after copying ``text``: how much, and the one condition for it to
    arrive (the terminal passes OSC 52 on)."""
    lines = len(text.splitlines()) or 1
    return (f"Copied the last answer to the clipboard: {counted(lines, 'line')}, "
            f"{counted(len(text), 'character')}. (Through the terminal, OSC 52: under tmux it "
            "needs `set -g set-clipboard on`.)")


NOTHING_TO_COPY = "Nothing to copy: the model has not answered yet in this conversation."
