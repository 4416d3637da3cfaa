"""Context thresholds by window: the behaviour §2 table, exactly."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paicli_tui.core.context.profile import ContextProfile


@pytest.mark.parametrize(
    ("window", "compaction", "clearing"),
    [
        (128_000, 95_000, 57_000),
        (200_000, 167_000, 100_000),
        (256_000, 223_000, 100_000),
        (1_000_000, 967_000, 100_000),
        (None, 95_000, 57_000),  # unknown model -> 128k
    ],
)
def test_spec_table(window: int | None, compaction: int, clearing: int) -> None:
    profile = ContextProfile.for_window(window)
    assert profile.compaction_trigger == compaction
    assert profile.clearing_trigger == clearing


@pytest.mark.parametrize(
    ("window", "reserve", "buffer", "compaction", "clearing", "budget"),
    [
        (128_000, 20_000, 13_000, 95_000, 57_000, 640),
        (1_000_000, 20_000, 13_000, 967_000, 100_000, 5_000),
        (8_000, 2_000, 1_000, 5_000, 3_000, 500),
        # below the reference's 8,000 floor the real window is honoured, never raised
        (7_999, 1_999, 1_000, 5_000, 3_000, 500),
        (4_000, 1_000, 1_000, 2_000, 1_200, 500),
        (3_000, 1_000, 1_000, 1_000, 600, 250),
        (2_048, 1_000, 1_000, 1_000, 600, 250),
        (32_000, 8_000, 4_000, 20_000, 12_000, 500),
        (64_000, 16_000, 8_000, 40_000, 24_000, 500),
    ],
)
def test_every_number(window: int, reserve: int, buffer: int, compaction: int, clearing: int,
                      budget: int) -> None:
    p = ContextProfile.for_window(window)
    assert (p.summary_reserve, p.buffer, p.compaction_trigger, p.clearing_trigger,
            p.memory_budget) == (reserve, buffer, compaction, clearing, budget)
    assert p.effective_window == window


@given(st.integers(min_value=2_048, max_value=10_000_000))
def test_invariants(window: int) -> None:
    p = ContextProfile.for_window(window)
    assert 1 <= p.clearing_trigger < p.compaction_trigger < p.effective_window == window
    assert p.compaction_trigger + p.buffer <= window  # room for the reply, always
    assert 250 <= p.memory_budget <= 5_000
    assert p.memory_budget <= p.compaction_trigger // 4 or window >= 8_000


@pytest.mark.parametrize("window", [1, 1_000, 2_047])
def test_too_small_window_is_refused_clearly(window: int) -> None:
    with pytest.raises(ValueError, match=r"too small: paicli-tui needs at least 2,048"):
        ContextProfile.for_window(window)


@pytest.mark.parametrize("bad", [0, -5, True, 1.5, "128000"])
def test_bad_window(bad: object) -> None:
    with pytest.raises(ValueError, match="positive number"):
        ContextProfile.for_window(bad)  # type: ignore[arg-type]
