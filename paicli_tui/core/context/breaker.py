"""The summary circuit breaker (beyond the reference).

A model that cannot write the four sections fails the same way every time; asking it again
before every request costs calls and time for nothing. After ``failures_to_open`` summaries
failed in a row the breaker opens: no summary is requested (the model-free digest is used)
until the history has taken in ``growth_tokens`` of new messages since it opened. Then one
attempt is allowed; success closes the breaker, a failure opens it again.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..messages import Message
from ..tokens import estimate_message

FAILURES_TO_OPEN = 3


class SummaryBreaker:
    """Counts consecutive failed summaries and says when to stop asking."""

    def __init__(self, failures_to_open: int = FAILURES_TO_OPEN) -> None:
        self.failures_to_open = failures_to_open
        self.failures = 0
        self._seen: frozenset[str] | None = None
        """Ids of the history when the breaker opened (None: closed)."""

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

    def failed(self, history_after: Sequence[Message]) -> bool:
        """Count a failure; True when this failure opened (or re-opened) the breaker.
        ``history_after``: the history as it stands after this compaction."""
        self.failures += 1
        if self.failures >= self.failures_to_open:
            self._seen = frozenset(m.id for m in history_after)
            return True
        return False
