"""Token estimates for memory text (SPEC §1), shared with the context engine when present."""

from __future__ import annotations

import math


def estimate_tokens(text: str) -> int:
    """CJK characters (strictly between U+4E00 and U+9FFF) count 1/1.5 token, every other
    character 1/4; the sum is rounded up. Uses paicli_tui.core.tokens when it exists so both
    layers always agree."""
    try:
        from ..tokens import estimate_text
    except ImportError:
        return _local_estimate(text)
    return int(estimate_text(text))


def _local_estimate(text: str) -> int:
    cjk = sum(1 for ch in text if "\u4e00" < ch < "\u9fff")
    return math.ceil(cjk / 1.5 + (len(text) - cjk) / 4)
