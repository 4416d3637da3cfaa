"""Tokens of the current history by category, for the context inspector (pure, no Textual)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..core.messages import InternalKind, Message, Role
from .format import fmt_tokens

CATEGORIES = ("system prompt", "tool schemas", "project rules", "memories", "conversation",
              "live tool results", "cleared tool results", "summary")


def categorise(message: Message) -> str:
    """Which category a message's tokens count under."""
    from ..core.context.clearing import is_cleared

    if message.role is Role.SYSTEM:
        return "system prompt"
    if message.role is Role.TOOL:
        return "cleared tool results" if is_cleared(message) else "live tool results"
    if message.internal is InternalKind.SUMMARY or message.meta.get("summary"):
        return "summary"
    return "conversation"


def token_breakdown(history: Sequence[Message], tool_schemas: Sequence[dict] = (),
                    rules_text: str = "") -> dict[str, int]:
    """Estimated tokens per category (before calibration); nothing is counted twice.

    Project rules live inside the system prompt and the per-turn block (date and retrieved
    memories) opens each user message; their share is moved out of those categories.
    """
    from ..core.tokens import estimate_message, estimate_text

    out = dict.fromkeys(CATEGORIES, 0)
    for message in history:
        tokens = estimate_message(message)
        words = message.meta.get("user_input")
        if message.role is Role.USER and isinstance(words, str) and words != message.content:
            # the turn-context block (date, retrieved memories) opens the person's message
            block = min(tokens, estimate_text(message.content[: -len(words) or None]))
            out["memories"] += block
            tokens -= block
        out[categorise(message)] += tokens
    if tool_schemas:
        out["tool schemas"] = estimate_text(json.dumps(list(tool_schemas), ensure_ascii=False))
    if rules_text:
        rules = estimate_text(rules_text)
        moved = min(rules, out["system prompt"])
        out["system prompt"] -= moved
        out["project rules"] = moved
    return out


ADJUSTMENT = "calibration, framing"
"""The row that makes the categories add up to the session's own estimate (the provider's
reported prompt tokens calibrate it; request framing is not in any message)."""


def reconciled(parts: dict[str, int], estimate: int) -> dict[str, int]:
    """The categories plus, when they do not add up to ``estimate``, one row with the
    difference (negative when the calibration is below the raw count): one total."""
    out = dict(parts)
    difference = estimate - sum(parts.values())
    if difference:
        out[ADJUSTMENT] = difference
    return out


def shares(rows: dict[str, int]) -> dict[str, str]:
    """Each row's share of the request: of the calibrated total, or, when the provider
    counted fewer tokens than the categories do (a negative calibration row), of what the
    categories count, with no share for that row: a share of the shrunk total read 120%
    for the tool schemas and -105% for the calibration."""
    counted = sum(tokens for name, tokens in rows.items() if name != ADJUSTMENT)
    whole = max(sum(rows.values()), counted) or 1
    return {name: "" if tokens < 0 else f"{tokens / whole:.0%}"
            for name, tokens in rows.items()}


def event_row(event: dict[str, Any], *, compact: bool = False) -> tuple[str, str, str, str]:
    """(tier, before → after, time, detail) for one ledger compaction event; ``compact``
    (a narrow screen): ``61k → 44k`` and the time of day only."""
    stamp = str(event.get("time") or event.get("ts") or event.get("at") or "")
    time = (stamp[11:16] if compact else stamp[5:16]).replace("T", " ")
    tier = str(event.get("tier", "?"))
    before, after = event.get("tokens_before"), event.get("tokens_after")
    if isinstance(before, int) and isinstance(after, int):
        exact = not compact and max(before, after) < 10_000_000  # fits 21 cells
        change = f"{before:,} → {after:,}" if exact \
            else f"{fmt_tokens(before)}→{fmt_tokens(after)}"
    else:
        change = "—"
    detail = str(event.get("detail", ""))
    return tier, change, time, detail


STACKED_BELOW = 100
"""Below this many columns the compaction history is stacked: one column, each compaction
on its own lines (tier, tokens and time, then its whole detail, wrapped). Beside the
categories a detail column got about 4 cells at 80 columns ('3 to')."""


def stacked_cells(width: int) -> int:
    """The stacked history column's cells on a screen ``width`` wide: what is left beside
    the categories (45 cells, 33 below 70 columns) after the right side's padding (2), the
    cell's padding (2) and the table's scrollbar (1, panels.tcss)."""
    return max(12, width - (33 if width < 70 else 45) - 5)


def stacked_row(event: dict[str, Any]) -> str:
    """One compaction in the stacked history: ``clearing 61k→44k`` (fits the narrowest
    column whole), and under it ``10:02 · 3 tool results cleared`` (wrapped by the table)."""
    tier, change, time, detail = event_row(event, compact=True)
    under = " · ".join(part for part in (time, detail) if part)
    return f"{tier} {change}" + (f"\n{under}" if under else "")


def history_columns(width: int) -> list[tuple[str, int | None]]:
    """The compaction history's columns for a screen ``width`` wide: stacked in one column
    below STACKED_BELOW; below 120 columns the numbers are short (``150k→120k``,
    ``642k→4.5k``) and the date is left out; the detail takes what is left."""
    if width < STACKED_BELOW:
        return [("compaction", stacked_cells(width))]
    if width < 120:
        return [("tier", 8), ("tokens", 9), ("time", 5), ("detail", None)]
    return [("tier", 9), ("tokens", 21), ("time", 11), ("detail", None)]
