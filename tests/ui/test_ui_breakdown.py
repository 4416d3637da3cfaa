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
