"""Token estimates for memory text (behaviour §1): the context engine's own rule, so a memory's
token count and the memory budget are measured exactly as the request estimate measures them.
"""

from __future__ import annotations

from ..tokens import estimate_text


def estimate_tokens(text: str) -> int:
    """CJK characters (strictly between U+4E00 and U+9FFF) count 1/1.5 token, every other
    character 1/4; the sum is rounded up."""
    return int(estimate_text(text))
