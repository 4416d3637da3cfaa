"""The context inspector shows one total: its categories add up to the session's estimate."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(("parts", "estimate", "extra"), [
    ({"system prompt": 1_000, "conversation": 2_102}, 3_025, -77),
    ({"system prompt": 1_000, "conversation": 2_000}, 3_000, None),
    ({"system prompt": 900}, 1_200, 300),
])
def test_inspector_categories_add_up_to_the_estimate(parts, estimate, extra) -> None:
    from paicli_tui.ui.breakdown import ADJUSTMENT, reconciled

    rows = reconciled(parts, estimate)
    assert sum(rows.values()) == estimate
    assert rows.get(ADJUSTMENT) == extra


@pytest.mark.parametrize("compact,row", [
    (False, ("clearing", "61,000 → 44,000", "11-29 10:02", "3 tool results cleared")),
    (True, ("clearing", "61k→44k", "10:02", "3 tool results cleared")),
])
def test_history_rows_wide_and_compact(compact, row) -> None:
    from paicli_tui.ui.breakdown import event_row

    event = {"ts": "2026-11-29T10:02:11", "tier": "clearing", "tokens_before": 61_000,
             "tokens_after": 44_000, "detail": "3 tool results cleared"}
    assert event_row(event, compact=compact) == row


@pytest.mark.parametrize("width,fixed", [(60, 20), (80, 20), (119, 20), (120, 37), (160, 37)])
def test_history_columns_fit_beside_the_categories(width, fixed) -> None:
    """Tier, tokens and time (plus a cell of padding each side) fit in what the narrow
    left side leaves: 26 cells at 60 columns."""
    from paicli_tui.ui.breakdown import history_columns

    columns = history_columns(width)
    assert [name for name, _ in columns] == ["tier", "tokens", "time", "detail"]
    assert sum(cells for _, cells in columns if cells) == fixed
    if width < 120:
        assert fixed + 3 * 2 == 26  # tier, tokens, time and their padding: not a cell cut
