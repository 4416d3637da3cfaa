"""The one rule for lone surrogates: each becomes U+FFFD.

A byte that is not UTF-8 (a folder named ``caf\\xe9``, a Latin-1 file piped in, a word typed
in a Latin-1 terminal) reaches Python as a lone surrogate (``caf\\udce9``), and valid JSON can
hold one too (``"\\ud800"``). No UTF-8 file, JSON line, terminal or request body can carry
it, so every place that writes such text out replaces it the same way, through this function.
"""

from __future__ import annotations

import re

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def without_surrogates(text: str) -> str:
    """``text`` with each lone surrogate as U+FFFD (one for each); ``text`` itself when it
    has none."""
    return _LONE_SURROGATE.sub("\ufffd", text) if _LONE_SURROGATE.search(text) else text
