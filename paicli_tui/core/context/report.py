"""What a compaction tier did, for the UI, the ledger and tests."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CompactionReport:
    """One tier's outcome. ``changed`` is False when the tier left the history as it was."""

    tier: str
    """``offload``, ``clearing`` or ``summary``."""
    changed: bool
    tokens_before: int
    tokens_after: int
    detail: str = ""
    """One human-readable line: what was done, or why nothing was."""
    summary: str | None = None
    """The summary text, for tier 3 when it succeeded."""

    @property
    def tokens_saved(self) -> int:
        return self.tokens_before - self.tokens_after

    def to_json(self) -> dict[str, object]:
        return {
            "tier": self.tier,
            "changed": self.changed,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "detail": self.detail,
            "summary": self.summary,
        }
