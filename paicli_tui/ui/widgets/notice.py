"""A one-paragraph notice in the chat: info, warning, error, or the no-model guide."""

from __future__ import annotations

from textual.widgets import Markdown


class ChatNotice(Markdown):
    """Program text in the chat (not from the model). ``kind`` picks the style."""

    def __init__(self, text: str, kind: str = "info") -> None:
        super().__init__(text, classes=f"notice notice-{kind}")
        self.kind = kind
