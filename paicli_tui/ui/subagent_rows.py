"""The context inspector's rows for the session's sub-agents: each with the numbers of its
own history — messages, tokens, compactions (the gauge and the categories are the main
history's). Narrow on purpose: the inspector's right column is about 34 cells at 80x24."""

from __future__ import annotations

from collections.abc import Sequence

from ..core.agent.subagent_record import SubAgentRecord
from .format import fmt_tokens

COLUMNS = (("", 1), ("sub-agent", 11), ("msgs", 4), ("tok", 5), ("cmp", 3))
ICONS = {"running": "◆", "done": "✓", "failed": "✗", "cancelled": "⊘"}


def subagent_row(record: SubAgentRecord) -> tuple[str, ...]:
    name = record.task_id or record.label
    return (ICONS.get(record.status, "?"), name, str(record.messages),
            fmt_tokens(record.history_tokens), str(record.compactions))


def subagent_rows(records: Sequence[SubAgentRecord]) -> list[tuple[str, ...]]:
    """Newest first: the one just run is the one a person looks for."""
    return [subagent_row(r) for r in reversed(records)]
