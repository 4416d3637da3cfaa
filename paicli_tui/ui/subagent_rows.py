"""The context inspector's rows for the session's sub-agents: each with the numbers of its
own history — messages, tokens, compactions (the gauge and the categories are the main
history's). Narrow on purpose: the inspector's right column is about 34 cells at 80x24."""

from __future__ import annotations

from collections.abc import Sequence

from ..core.agent.subagent_record import SubAgentRecord
from .format import fmt_tokens

COLUMNS = (("", 1), ("sub-agent", 11), ("msgs", 4), ("tok", 4), ("cmp", 3))
NARROW_COLUMNS = (("", 1), ("sub-agent", 8), ("msgs", 4), ("tok", 4))
"""Below 70 columns the right side has 26 cells: the compactions column goes (a cut token
count read as another number)."""
ICONS = {"running": "◆", "done": "✓", "failed": "✗", "cancelled": "⊘"}


def subagent_row(record: SubAgentRecord, narrow: bool = False) -> tuple[str, ...]:
    name = record.task_id or record.label
    row = (ICONS.get(record.status, "?"), name, str(record.messages),
           fmt_tokens(record.history_tokens), str(record.compactions))
    return row[:len(NARROW_COLUMNS)] if narrow else row


def subagent_rows(records: Sequence[SubAgentRecord], narrow: bool = False
                  ) -> list[tuple[str, ...]]:
    """Newest first: the one just run is the one a person looks for."""
    return [subagent_row(r, narrow) for r in reversed(records)]
