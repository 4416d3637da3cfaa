"""How to connect a model, shown in the chat when none is configured (text from the
provider registry, kept verbatim: it is laid out in columns)."""

from __future__ import annotations

from textual.widgets import Static


class SetupNotice(Static):
    def __init__(self, text: str) -> None:
        super().__init__(text, markup=False, classes="notice notice-setup")
        self.kind = "setup"
