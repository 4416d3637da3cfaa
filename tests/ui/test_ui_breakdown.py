"""The context inspector shows one total: its categories add up to the session's estimate."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st


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


@pytest.mark.parametrize("width,names,fixed", [
    (60, ["compaction"], 22), (69, ["compaction"], 31), (70, ["compaction"], 20),
    (80, ["compaction"], 30), (99, ["compaction"], 49),
    (100, ["tier", "tokens", "time", "detail"], 22), (119, ["tier", "tokens", "time", "detail"], 22),
    (120, ["tier", "tokens", "time", "detail"], 41), (160, ["tier", "tokens", "time", "detail"], 41),
])
def test_history_columns_fit_beside_the_categories(width, names, fixed) -> None:
    """Below 100 columns one stacked column takes what the left side leaves (27 cells at
    60 columns, less the padding and the scrollbar); above, the fixed columns."""
    from paicli_tui.ui.breakdown import history_columns

    columns = history_columns(width)
    assert [name for name, _ in columns] == names
    assert sum(cells for _, cells in columns if cells) == fixed


@hypothesis_settings(max_examples=300, deadline=None)
@given(width=st.integers(40, 240), tier=st.sampled_from(["offload", "clearing", "summary",
                                                         "digest"]),
       before=st.integers(0, 999_999_999), after=st.integers(0, 999_999_999))
def test_every_history_cell_fits_its_column(width, tier, before, after) -> None:
    """Found in tmux at 80 columns: a 5 MB reply's offload read '642k→4.' (the tokens cell
    was 7 wide). Whatever the numbers and the width, each cell of a row fits its column
    whole (the detail column takes what is left and may be cut)."""
    from paicli_tui.ui.breakdown import STACKED_BELOW, event_row, history_columns, stacked_row

    columns = history_columns(width)
    event = {"ts": "2026-11-29T10:02:11", "tier": tier, "tokens_before": before,
             "tokens_after": after, "detail": "x"}
    if width < STACKED_BELOW:  # its first line, tier and tokens, fits the column whole
        [(_, cells)] = columns  # (from 60 columns, the smallest screen the layout is for)
        assert cells is not None
        assert width < 60 or len(stacked_row(event).split("\n")[0]) <= cells
        return
    row = event_row(event, compact=width < 120)
    assert len(row) == len(columns)
    for cell, (name, cells) in zip(row, columns, strict=True):
        assert cells is None or len(cell) <= cells, (name, cell, cells)


@hypothesis_settings(max_examples=200, deadline=None)
@given(narrow=st.booleans(), messages=st.integers(0, 9_999),
       tokens=st.integers(0, 999_999_999), compactions=st.integers(0, 999))
def test_every_number_of_a_subagent_row_fits_its_column(narrow, messages, tokens,
                                                        compactions) -> None:
    """Seen at 60x20: the sub-agents table's token cell read '7.' for 7.1k (the table was
    wider than the 26 cells there). Narrow rows drop the compactions column; every number
    left fits whole (a name may be cut: it is text)."""
    from paicli_tui.core.agent.subagent_record import SubAgentRecord
    from paicli_tui.ui.subagent_rows import COLUMNS, NARROW_COLUMNS, subagent_row

    columns = NARROW_COLUMNS if narrow else COLUMNS
    row = subagent_row(SubAgentRecord("s.sub-1", "explore", status="done", messages=messages,
                                      history_tokens=tokens, compactions=compactions), narrow)
    assert len(row) == len(columns)
    for cell, (name, cells) in zip(row, columns, strict=True):
        assert name == "sub-agent" or len(cell) <= cells, (name, cell, cells)
    if narrow:
        assert sum(cells for _, cells in columns) + 2 * len(columns) <= 26


def test_shares_are_never_over_the_whole() -> None:
    """Found in tmux: after the provider reported fewer prompt tokens than counted, the
    inspector read 'tool schemas 2,210 · 120%' and 'calibration, framing -1,929 · -105%'
    (shares of a total the calibration had shrunk). Then each category's share is of what
    the categories count together and the calibration row has none; a positive calibration
    keeps its share of the total."""
    from paicli_tui.ui.breakdown import ADJUSTMENT, reconciled, shares

    rows = reconciled({"system prompt": 1_250, "tool schemas": 2_210, "conversation": 249},
                      1_840)
    assert shares(rows) == {"system prompt": "34%", "tool schemas": "60%",
                            "conversation": "7%", ADJUSTMENT: ""}
    rows = reconciled({"system prompt": 364, "conversation": 436}, 8_000)
    assert shares(rows) == {"system prompt": "5%", "conversation": "5%", ADJUSTMENT: "90%"}
