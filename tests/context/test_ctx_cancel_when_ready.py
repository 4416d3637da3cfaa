"""Esc during compaction (or during search's query rewrite) is heard even when the model's
answer is ready at that very moment.

On Python 3.11, ``asyncio.wait_for`` returns an inner result that is done when the cancel
arrives and drops the cancel: the turn went on as if Esc had not been pressed (the TUI's slow
loop in a long session makes that moment common, as the streaming clients showed). Each
model wait is bounded by ``asyncio.timeout`` instead; a completer that answers in the same
step as the cancel shows the difference.
"""

from __future__ import annotations

import asyncio

from ctx_fakes import VALID_SUMMARY

from paicli_tui.core.code.search import _bounded
from paicli_tui.core.context.summary import SummaryOptions, write_summary


def answering_as_cancelled(answer: str):
    """A completer that cancels the task awaiting it and answers in the same step."""
    holder: dict[str, asyncio.Task] = {}

    async def complete(system: str, user: str) -> str:
        holder["task"].cancel()
        return answer

    return complete, holder


async def test_a_cancel_as_the_summary_is_ready_stops_the_compaction() -> None:
    """(The summary's writer still awaits after the answer, so wait_for heard this one too;
    the bound is the same as the rewrite's so that no later change reopens the window.)"""
    complete, holder = answering_as_cancelled(VALID_SUMMARY)
    holder["task"] = asyncio.ensure_future(
        write_summary(["USER: fix the parser"], complete, SummaryOptions()))
    await asyncio.gather(holder["task"], return_exceptions=True)
    assert holder["task"].cancelled()


async def test_a_cancel_as_the_rewrite_is_ready_stops_the_search() -> None:
    complete, holder = answering_as_cancelled("parse tokens")
    holder["task"] = asyncio.ensure_future(_bounded(complete, 20.0)("system", "question"))
    await asyncio.gather(holder["task"], return_exceptions=True)
    assert holder["task"].cancelled()


async def test_a_slow_model_still_times_out() -> None:
    async def slow(system: str, user: str) -> str:
        await asyncio.sleep(5)
        return VALID_SUMMARY

    attempt = await write_summary(["USER: x"], slow, SummaryOptions(timeout_s=0.05))
    assert "timed out after 0.05 s" in attempt.reason
