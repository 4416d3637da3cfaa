"""The person's own message in the chat."""

from __future__ import annotations

from textual.widgets import Static


class UserMessage(Static):
    """Shows one user turn; markup is off so brackets in code stay literal."""

    def __init__(self, text: str) -> None:
        super().__init__(text, markup=False, classes="user-message")
