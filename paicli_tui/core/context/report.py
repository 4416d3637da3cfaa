"""What a compaction tier did, for the UI, the ledger and tests."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Outcome = Literal["compacted", "failed", "skipped"]
"""``compacted``: the history changed. ``failed``: the tier tried and could not (a summary
the model did not write properly, an error, a timeout). ``skipped``: it had nothing to do,
or was not allowed to run (no model, the circuit breaker open)."""

TIERS = ("offload", "clearing", "summary", "digest")
"""``offload`` (a huge tool result or message saved to a file), ``clearing`` (old tool
results replaced by placeholders), ``summary`` (old turns summarised by the model),
``digest`` (old turns replaced by a model-free digest and a transcript file)."""


@dataclass(frozen=True)
class CompactionReport:
    """One tier's outcome. ``changed`` is False when the tier left the history as it was."""

    tier: str
    """One of :data:`TIERS`."""
    changed: bool
    tokens_before: int
    tokens_after: int
    detail: str = ""
    """One human-readable line: what was done, or why nothing was."""
    summary: str | None = None
    """The summary (or digest) text, for tiers 3 and 3b when they succeeded."""
    outcome: Outcome | None = None
    """None: derived from ``changed`` (compacted, else skipped)."""
    model_calls: int = 0
    """Model requests this tier made (summaries only)."""
    path: str | None = None
    """A file this tier wrote (the digest's transcript), project-relative."""
    no_gain: bool = False
    """The tier's result was not smaller than what it would replace. Automatic compaction
    counts that as a failure (the window is filling); a /compact of a short history reads
    it as nothing to gain yet."""

    @property
    def result(self) -> Outcome:
        """The outcome, derived when not set explicitly."""
        if self.outcome is not None:
            return self.outcome
        return "compacted" if self.changed else "skipped"

    @property
    def notable(self) -> bool:
        """True when the person should hear about it: a change, or a failure."""
        return self.changed or self.result == "failed"

    def to_json(self) -> dict[str, object]:
        return {
            "tier": self.tier,
            "changed": self.changed,
            "outcome": self.result,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "detail": self.detail,
            "summary": self.summary,
            "model_calls": self.model_calls,
            "path": self.path,
        }
