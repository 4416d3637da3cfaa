"""Messages the UI posts between workers, widgets and screens ("messages up")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

from ..core.contracts.events import AgentEvent

if TYPE_CHECKING:
    from ..core.agent.port import SessionPort


class AgentEventPosted(Message):
    """A worker received one event from the agent session; the chat screen renders it."""

    def __init__(self, event: AgentEvent) -> None:
        super().__init__()
        self.event = event


class TurnEnded(Message):
    """The turn worker finished (normally, cancelled or with an exception)."""

    def __init__(self, reason: str, error: str | None = None, *, what: str = "Turn",
                 note: str = "") -> None:
        super().__init__()
        self.reason = reason
        self.error = error
        self.what = what
        """What ran as the turn ("Compaction" for /compact), for the notice that it stopped."""
        self.note = note
        """A line for the chat once it ended ("Nothing compacted: …"): the worker posts it,
        the handler shows it (workers do not change widgets)."""


class SessionReady(Message):
    """The agent session is started (or failed to start: ``session`` is None)."""

    def __init__(self, session: SessionPort | None, error: str | None = None, *,
                 resumed: str | None = None, welcome: str = "") -> None:
        super().__init__()
        self.session = session
        self.error = error
        self.resumed = resumed
        """The id of the session reopened (None: a new one)."""
        self.welcome = welcome
        """The welcome line for a new session (folder, model, memories, index, keys)."""


class InsertIntoInput(Message):
    """Put text at the cursor of the chat input (a code reference, a command)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
