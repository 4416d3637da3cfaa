"""The optional background summary (behaviour §5 fast path): when it starts and refreshes."""

from __future__ import annotations

import pytest
from ctx_fakes import VALID_SUMMARY
from doubles.completers import ScriptedCompleter

from paicli_tui.core.context.fastpath import REFRESH_TOKENS, START_FRACTION, SummaryCache
from paicli_tui.core.context.summary import SummaryOptions
from paicli_tui.core.messages import Message

TRIGGER = 10_000


def _history() -> list[Message]:
    msgs = [Message.system("s")]
    for i in range(5):
        msgs += [Message.user(f"question {i} " + "w" * 200), Message.assistant(f"answer {i}")]
    return msgs


def test_spec_numbers() -> None:
    assert START_FRACTION == 0.6 and REFRESH_TOKENS == 4_000


@pytest.mark.parametrize(
    ("steps", "calls"),
    [
        ([5_999], 0),                 # below 60% of the trigger: nothing
        ([6_000], 1),                 # from 60%: one background summary
        ([6_000, 9_999], 1),          # 3,999 new tokens: no refresh yet
        ([6_000, 10_000], 2),         # 4,000 new tokens: refresh
    ],
)
async def test_start_and_refresh(steps: list[int], calls: int) -> None:
    cache, fake = SummaryCache(), ScriptedCompleter(VALID_SUMMARY)
    for tokens in steps:
        cache.maybe_refresh(_history(), tokens, TRIGGER, fake, SummaryOptions())
        await cache.wait()
    assert len(fake.calls) == calls


async def test_a_failing_model_is_not_asked_before_every_request() -> None:
    cache, fake = SummaryCache(), ScriptedCompleter(RuntimeError("down"))
    for tokens in (6_000, 6_500, 7_000, 9_999):
        cache.maybe_refresh(_history(), tokens, TRIGGER, fake, SummaryOptions())
        await cache.wait()
    assert len(fake.calls) == 1 and cache.ready is None
    cache.maybe_refresh(_history(), 10_000, TRIGGER, fake, SummaryOptions())
    await cache.wait()
    assert len(fake.calls) == 2


async def test_taking_the_summary_starts_afresh() -> None:
    cache, fake = SummaryCache(), ScriptedCompleter(VALID_SUMMARY)
    history = _history()
    cache.maybe_refresh(history, 9_000, TRIGGER, fake, SummaryOptions())
    await cache.wait()
    assert cache.take(history) is not None
    cache.maybe_refresh(history, 6_000, TRIGGER, fake, SummaryOptions())
    await cache.wait()
    assert len(fake.calls) == 2
