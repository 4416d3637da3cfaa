"""The context inspector's rows for the session's sub-agents: each with the numbers of its
own history (the gauge and the categories are the main history's)."""

from __future__ import annotations

from collections.abc import Sequence

from ..core.agent.subagent_record import SubAgentRecord

COLUMNS = (("sub-agent", 16), ("status", 9), ("msgs", 5), ("tokens", 8), ("compact", 7),
           ("req", 4), ("tools", 5))


def subagent_row(record: SubAgentRecord) -> tuple[str, ...]:
    name = f"{record.task_id}" if record.task_id else record.label
    return (name, record.status, str(record.messages), f"{record.history_tokens:,}",
            str(record.compactions), str(record.requests), str(record.tool_calls))


def subagent_rows(records: Sequence[SubAgentRecord]) -> list[tuple[str, ...]]:
    """Newest first: the one just run is the one a person looks for."""
    return [subagent_row(r) for r in reversed(records)]
