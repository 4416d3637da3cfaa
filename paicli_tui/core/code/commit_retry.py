"""Commit conflicts between writers of one index: re-applied on the latest version, bounded.

Lance commits optimistically: a write reads version N and commits N+1; when another writer
committed in between, Lance either rebases the write itself (compatible changes), or refuses
it: a *retryable* conflict (both touched the same rows or fragments, or inserted the same
keys: the tables mark their key column as Lance's primary key so concurrent inserts of one
key are caught), an *incompatible* one (the other writer replaced the table), or too much
contention after its own retries. Each index write step here is idempotent (a file's
chunks are replaced by exactly its rows, a delete deletes what matches, the full-text index
is replaced), so after a refusal the step is simply run again on the table's latest version:
at most :data:`ATTEMPTS` times with full-jitter exponential backoff, each retry logged and
counted (the index summary shows "N commit conflicts retried"), then a clear error.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

ATTEMPTS = 8
"""Tries of one step before giving up (7 retries: ~6 s of backoff at most)."""
BASE_DELAY_S = 0.05
MAX_DELAY_S = 2.0

CONFLICT_MARKERS = (
    "commit conflict",  # Lance's CommitConflict / RetryableCommitConflict
    "incompatible transaction",  # the other writer replaced the table (Overwrite, Restore)
    "too much write contention",  # Lance's own retries ran out
    "conflicts with concurrent transaction",
)


class IndexCommitConflictError(RuntimeError):
    """A write step kept conflicting with other writers of the index; nothing of that step
    was committed (the files table only records a file after its chunks)."""


def is_commit_conflict(exc: BaseException) -> bool:
    """True for Lance's commit-conflict errors (raised by lancedb as RuntimeError or
    OSError with Lance's message), False for anything else."""
    if not isinstance(exc, (RuntimeError, OSError, ValueError)) or isinstance(
            exc, IndexCommitConflictError):
        return False
    text = str(exc).lower()
    return any(marker in text for marker in CONFLICT_MARKERS)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]


@dataclass
class CommitRetry:
    """Runs index write steps, re-applying one after a commit conflict; counts retries."""

    attempts: int = ATTEMPTS
    base_delay_s: float = BASE_DELAY_S
    max_delay_s: float = MAX_DELAY_S
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = field(default_factory=random.Random)
    retried: int = 0
    """Commit conflicts retried so far (all steps)."""

    def delay(self, attempt: int) -> float:
        """Full jitter: uniform in [0, min(max, base * 2**attempt)] — writers that collided
        once do not collide again in lock step."""
        return self.rng.uniform(0.0, min(self.max_delay_s, self.base_delay_s * 2 ** attempt))

    def merged(self, what: str, result: object) -> None:
        """Count the conflicts Lance itself resolved inside one merge (it re-runs a merge
        refused by a retryable conflict: ``num_attempts`` > 1), so the summary shows them."""
        extra = max(0, int(getattr(result, "num_attempts", 1) or 1) - 1)
        if extra:
            self.retried += extra
            log.warning("commit conflict while %s: merged again on the latest version %s",
                        what, "once" if extra == 1 else f"{extra} times")

    def run(self, what: str, step: Callable[[], T], refresh: Callable[[], None]) -> T:
        """``step()``; after a commit conflict ``refresh()`` (re-open the tables at their
        latest version) and ``step()`` again, up to ``attempts`` tries in all."""
        for attempt in range(1, self.attempts + 1):
            try:
                return step()
            except Exception as exc:
                if not is_commit_conflict(exc):
                    raise
                if attempt >= self.attempts:
                    raise IndexCommitConflictError(
                        f"{what}: still conflicting with another writer of this index after "
                        f"{self.attempts} tries ({_first_line(exc)}); nothing of this step "
                        "was written: run `paicli-tui index` again") from exc
                self.retried += 1
                log.warning("commit conflict while %s (try %d of %d), re-applied on the "
                            "latest version: %s", what, attempt, self.attempts,
                            _first_line(exc))
                self.sleep(self.delay(attempt))
                refresh()
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises
