"""The summary circuit breaker (beyond the reference).

A model that cannot write the four sections fails the same way every time; asking it again
before every request costs calls and time for nothing. After ``failures_to_open`` summaries
failed in a row the breaker opens: no summary is requested (the model-free digest is used)
until the history has taken in ``growth_tokens`` of new messages since it opened. Then one
attempt is allowed; success closes the breaker, a failure opens it again.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..messages import InternalKind, Message
from ..tokens import estimate_message

FAILURES_TO_OPEN = 3


class SummaryBreaker:
    """Counts consecutive failed summaries and says when to stop asking."""

    def __init__(self, failures_to_open: int = FAILURES_TO_OPEN) -> None:
        self.failures_to_open = failures_to_open
        self.failures = 0
        self._seen: frozenset[str] | None = None
        """Ids of the history when the breaker opened (None: closed)."""
        self.last_id: str | None = None
        """Id of the newest message when it opened (kept in the digest, for --resume)."""

    @classmethod
    def from_history(cls, messages: Sequence[Message]) -> SummaryBreaker:
        """The breaker as the newest summary marker left it: a session resumed in another
        process (``exec --resume``) keeps counting instead of starting over."""
        breaker = cls()
        marker = next((m for m in reversed(messages) if m.internal is InternalKind.SUMMARY),
                      None)
        if marker is None:
            return breaker
        breaker.failures = int(marker.meta.get("failed_summaries") or 0)
        last_id = marker.meta.get("breaker_last_id")
        ids = [m.id for m in messages]
        if breaker.failures >= breaker.failures_to_open and last_id in ids:
            breaker.last_id = str(last_id)
            breaker._seen = frozenset(ids[: ids.index(last_id) + 1])
        return breaker

    def state(self) -> dict[str, object]:
        """What the digest records so :meth:`from_history` can rebuild this breaker."""
        return {"failed_summaries": self.failures, "breaker_last_id": self.last_id}

    @property
    def is_open(self) -> bool:
        return self._seen is not None

    def new_tokens(self, messages: Sequence[Message]) -> int:
        """Tokens of the messages added since the breaker opened (0 when closed)."""
        if self._seen is None:
            return 0
        return sum(estimate_message(m) for m in messages if m.id not in self._seen)

    def allows(self, messages: Sequence[Message], growth_tokens: int) -> bool:
        """True when a summary may be requested now."""
        return self._seen is None or self.new_tokens(messages) >= growth_tokens

    def succeeded(self) -> None:
        self.failures = 0
        self._seen = None
        self.last_id = None

    def failed(self, history_after: Sequence[Message]) -> bool:
        """Count a failure; True when this failure opened (or re-opened) the breaker.
        ``history_after``: the history as it stands after this compaction."""
        self.failures += 1
        if self.failures >= self.failures_to_open:
            self._seen = frozenset(m.id for m in history_after)
            self.last_id = history_after[-1].id if history_after else None
            return True
        return False
