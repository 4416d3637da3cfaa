"""Optional background summary (behaviour §5 fast path, off by default).

From 60% of the compaction trigger a summary of the part before the current cut is prepared
in the background, and refreshed after every 4,000 new tokens. When the trigger is reached
the manager uses it if it is ready, valid, its first kept message is still in the history,
and the messages before that point are the ones it summarised; otherwise the normal summary
runs.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass

from ..contracts.llm import TextCompleter
from ..messages import Message, Role
from .summary import SummaryOptions, find_cut, render_entries, write_summary

START_FRACTION = 0.6
REFRESH_TOKENS = 4_000


@dataclass(frozen=True)
class ReadySummary:
    first_kept_id: str
    covered_ids: tuple[str, ...]
    summary: str
    tokens: int


def _covered(messages: Sequence[Message], cut: int) -> tuple[str, ...]:
    return tuple(m.id for m in messages[:cut] if m.role is not Role.SYSTEM)


class SummaryCache:
    """Holds at most one background summary and the task preparing the next."""

    def __init__(self) -> None:
        self.ready: ReadySummary | None = None
        self._task: asyncio.Task[None] | None = None
        self._started_at_tokens: int | None = None

    def take(self, messages: Sequence[Message]) -> tuple[int, str] | None:
        """(cut index, summary) when the prepared summary still fits ``messages``."""
        ready = self.ready
        if ready is None:
            return None
        for index, message in enumerate(messages):
            if message.id == ready.first_kept_id:
                if _covered(messages, index) == ready.covered_ids:
                    self.ready = None
                    self._started_at_tokens = None  # the history is rebuilt: start afresh
                    return index, ready.summary
                break
        return None

    def maybe_refresh(self, messages: Sequence[Message], tokens: int, trigger: int,
                      complete: TextCompleter, options: SummaryOptions) -> None:
        """Start a background summary when the history is past 60% of the trigger and has
        moved 4,000 tokens since the last attempt (never two at once).

        A failed attempt also waits for 4,000 new tokens, so a failing model is not asked
        again before every request; a compaction (a large drop) allows a fresh start.
        """
        if tokens < START_FRACTION * trigger:
            return
        if self._task is not None and not self._task.done():
            return
        if self._started_at_tokens is not None \
                and abs(tokens - self._started_at_tokens) < REFRESH_TOKENS:
            return
        cut = find_cut(messages, options.keep_user_turns)
        if cut is None:
            return
        snapshot = list(messages)
        self._started_at_tokens = tokens
        self._task = asyncio.get_running_loop().create_task(
            self._prepare(snapshot, cut, tokens, complete, options))

    async def _prepare(self, messages: list[Message], cut: int, tokens: int,
                       complete: TextCompleter, options: SummaryOptions) -> None:
        entries = render_entries(messages[:cut])
        if not entries:
            return
        attempt = await write_summary(entries, complete, options)
        if attempt.text is not None:
            self.ready = ReadySummary(messages[cut].id, _covered(messages, cut), attempt.text,
                                      tokens)

    async def wait(self) -> None:
        """Wait for the background summary in progress (tests, shutdown)."""
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def aclose(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
        await self.wait()
