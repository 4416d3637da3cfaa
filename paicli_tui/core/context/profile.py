"""Context thresholds derived from the model's window (behaviour §2).

The reference raises every window below 8,000 tokens to 8,000, so a 4k local model
overflows without a word. Here a small window is honoured: the same formula runs on the
real window (its 1,000-token floors for the reserve and the buffer keep room to answer), and
a window too small for any request is refused with a clear error.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...config import window_problem

DEFAULT_WINDOW = 128_000
"""Window assumed for a model whose window is unknown."""
REFERENCE_FLOOR = 8_000
"""The reference's smallest window; from here up the thresholds are exactly its table."""


@dataclass(frozen=True)
class ContextProfile:
    """Every token threshold the context engine uses, for one window size."""

    window: int
    effective_window: int
    summary_reserve: int
    buffer: int
    compaction_trigger: int
    clearing_trigger: int
    memory_budget: int

    @classmethod
    def for_window(cls, window: int | None) -> ContextProfile:
        """The profile for ``window`` tokens (None: 128,000). Integer arithmetic throughout,
        so the table of behaviour §2 is reproduced exactly."""
        if window is None:
            window = DEFAULT_WINDOW
        if isinstance(window, bool) or not isinstance(window, int) or window <= 0:
            raise ValueError(f"context window must be a positive number of tokens, got {window!r}")
        problem = window_problem(window)
        if problem:
            raise ValueError(problem)
        effective = window
        reserve = min(20_000, max(1_000, effective // 4))
        buffer = min(13_000, max(1_000, effective // 8))
        compaction = min(max(effective - reserve - buffer, 1_000), effective - 1)
        clearing = max(1, min(min(100_000, compaction * 6 // 10), compaction - 1))
        memory_budget = max(500, min(5_000, window // 200))
        if window < REFERENCE_FLOOR:  # memories must not crowd out the conversation
            memory_budget = min(memory_budget, compaction // 4)
        return cls(
            window=window,
            effective_window=effective,
            summary_reserve=reserve,
            buffer=buffer,
            compaction_trigger=compaction,
            clearing_trigger=clearing,
            memory_budget=memory_budget,
        )

    def as_dict(self) -> dict[str, int]:
        """The profile as plain numbers (for ``--json`` output and the ledger)."""
        return {
            "window": self.window,
            "effective_window": self.effective_window,
            "summary_reserve": self.summary_reserve,
            "buffer": self.buffer,
            "compaction_trigger": self.compaction_trigger,
            "clearing_trigger": self.clearing_trigger,
            "memory_budget": self.memory_budget,
        }
