"""Pure display helpers shared by widgets: token numbers, gauge zones, short previews.

Nothing here imports Textual, so the rules are tested as plain functions.
"""

from __future__ import annotations

from typing import Literal

from ..core.plural import counted

Zone = Literal["ok", "near", "clearing", "compaction"]

NEAR_FRACTION = 0.9
"""The gauge warns once the estimate reaches this share of the clearing trigger."""


def fmt_tokens(n: int) -> str:
    """Compact token count, at most 4 characters below a billion: 950, 1.2k, 95k, 1.2M, 12M."""
    if n < 1_000:
        return str(n)
    if n < 10_000:  # cut, not rounded: 9,999 is 9.9k, never the five characters of 10.0k
        return f"{n // 100 / 10:.1f}k"
    if n < 1_000_000:
        return f"{n // 1_000}k"
    if n < 10_000_000:
        return f"{n // 100_000 / 10:.1f}M"
    return f"{n // 1_000_000}M"


def token_change(before: int, after: int) -> str:
    """``61k → 44k``; exact (``57,412 → 57,103``) when the short forms are the same: a
    clearing of a few hundred tokens read "Old tool results cleared: 57k → 57k", as if it
    had done nothing."""
    short = (fmt_tokens(before), fmt_tokens(after))
    if short[0] == short[1] and before != after:
        return f"{before:,} → {after:,}"
    return f"{short[0]} → {short[1]}"


def zone_for(tokens: int, clearing_trigger: int, compaction_trigger: int) -> Zone:
    """Which zone an estimate falls in: the gauge colours itself by it.

    ``near`` starts at 90% of the clearing trigger, ``clearing`` at the clearing trigger,
    ``compaction`` at the compaction trigger.
    """
    if compaction_trigger and tokens >= compaction_trigger:
        return "compaction"
    if clearing_trigger and tokens >= clearing_trigger:
        return "clearing"
    if clearing_trigger and tokens >= NEAR_FRACTION * clearing_trigger:
        return "near"
    return "ok"


def marker_column(value: int, window: int, width: int) -> int:
    """Column (0-based, within ``width``) at which a threshold marker is drawn."""
    if window <= 0 or width <= 0:
        return 0
    return max(0, min(width - 1, round(value / window * width) - 1))


def short_args(arguments: str, limit: int = 60) -> str:
    """One-line summary of a tool call's JSON arguments for a block title."""
    import json

    try:
        parsed = json.loads(arguments or "{}")
    except (ValueError, RecursionError):
        parsed = None
    if isinstance(parsed, dict):
        parts = []
        for key, value in parsed.items():
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            parts.append(f"{key}={text}")
        line = " ".join(parts)
    else:
        line = arguments or ""
    line = " ".join(line.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def left_truncate(text: str, width: int, *, keep_start: bool = False) -> str:
    """Fit ``text`` in ``width`` cells: paths keep their end (``…/app/Loader.java:12``),
    names keep their start when ``keep_start``."""
    if len(text) <= width:
        return text
    if keep_start:
        return text[: width - 1] + "…"
    return "…" + text[-(width - 1):]


def preview_lines(text: str, lines: int = 8, width: int = 200) -> str:
    """The first ``lines`` lines of a tool result, each cut to ``width`` characters."""
    out = []
    all_lines = text.splitlines()
    for line in all_lines[:lines]:
        out.append(line if len(line) <= width else line[: width - 1] + "…")
    if len(all_lines) > lines:
        out.append(f"… ({counted(len(all_lines) - lines, 'more line')})")
    return "\n".join(out)


COMPACTING = "compacting…"
"""The gauge's words while the compaction tiers run (until the request goes out)."""


def compaction_state(event: object) -> str | None:
    """The gauge's words after a compaction event: what went wrong (a failed summary, the
    model-free digest in use), "" once a real summary worked again, None: no change."""
    tier = getattr(event, "tier", "")
    if getattr(event, "outcome", "") == "failed":
        return f"{tier} failed"
    if tier == "digest":
        return "digest (no summary)"
    return "" if tier == "summary" else None


def context_state(event: object, current: str) -> str | None:
    """The gauge's words after any context event (``current``: its words now); None: no
    change. A summary coming ("summary next"), the tiers running ("compacting…", until the
    request is sent), "not yet" answered ("summary postponed"), and what a compaction
    left (:func:`compaction_state`)."""
    kind = getattr(event, "type", "")
    if kind == "context_compacting":
        return COMPACTING
    if kind == "context_summary_ahead":
        return "summary next"
    if kind == "context_summary_consent":
        return "summary postponed" if getattr(event, "answer", "") == "not_yet" else None
    if kind == "request_started":
        return "" if current == COMPACTING else None
    if kind in ("context_compacted", "context_compaction_failed"):
        return compaction_state(event)
    return None
