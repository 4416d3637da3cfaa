"""Program text laid out by the program and shown verbatim: how to connect a model (from the
provider registry, in columns) or the welcome line of a new session."""

from __future__ import annotations

from textual.widgets import Static


class SetupNotice(Static):
    def __init__(self, text: str) -> None:
        super().__init__(text, markup=False, classes="notice notice-setup")
        self.kind = "setup"


class WelcomeLine(Static):
    """Folder, model, memories, index state and the keys to start with."""

    def __init__(self, text: str) -> None:
        super().__init__(text, markup=False, classes="notice notice-welcome")
        self.kind = "welcome"
