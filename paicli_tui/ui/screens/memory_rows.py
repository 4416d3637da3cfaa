"""The memory browser's rows: the scope and word filters, a ranking's order, the table's
columns at a width, and the words for an id typed and an operation done (no widgets)."""

from __future__ import annotations

from ...core.plural import counted
from ..backend import MemoryRow
from ..memory_decision import quoted

SCOPES = [("all scopes", "all"), ("inbox", "inbox"), ("project", "project"),
          ("global", "global")]


def in_scope(row: MemoryRow, scope: str) -> bool:
    """The row belongs to the chosen scope (``inbox``: awaiting review)."""
    return scope == "all" or row.scope == scope or (scope == "inbox" and row.pending)


def filter_rows(rows: list[MemoryRow], scope: str, text: str) -> list[MemoryRow]:
    """Rows of the chosen scope whose text or id contains every word typed (any case)."""
    words = text.lower().split()
    return [r for r in rows
            if in_scope(r, scope) and all(w in f"{r.content} {r.id}".lower() for w in words)]


def ranked_rows(rows: list[MemoryRow], scope: str, ids: list[str]) -> list[MemoryRow]:
    """The rows of ``ids`` (a ranking, best first) in that order, within the scope, at most
    RANKED_LIMIT."""
    by_id = {r.id: r for r in rows}
    return [by_id[i] for i in ids if i in by_id and in_scope(by_id[i], scope)][:RANKED_LIMIT]


NO_WORD_MATCH = " · no word match · Enter: by meaning"
"""Why the word filter shows nothing, and the way on: "testing framework" holds no word of
"测试用 pytest", which a ranking by meaning (as `memory search`) finds."""
READING = "Reading the memories…"
"""The status line until the store is read (its list is empty until then, not the store)."""
RANKED_LIMIT = 20
"""Memories a ranking by meaning lists at most (those that pass the relevance bars)."""
RANKED_ASKED = 100
"""Memories a ranking asks for, whatever the scope: the list is cut to RANKED_LIMIT within
the chosen scope (asked for 20, the global memories ranked after 20 project ones were lost
to the global scope, which then said none was relevant enough)."""
LISTED_AT_MOST = 1_000
"""Rows the table holds at once: with 10,000 memories every key typed in the filter filled
it again with thousands of rows, 0.3 s of the screen standing still per key."""

NOT_VERIFIED = "not yet"
"""The verified column of an automatic memory awaiting review (y accepts, and verifies, it)."""

FIXED_COLUMNS = (("scope", "scope", 7), ("written", "written", 10),
                 ("verified", "verified", 10), ("mark", "!", 3), ("source", "source", 8))
WIDE_FROM = 100
"""Below this many columns the "written" date is left out (the text needs the room)."""


def memory_columns(width: int) -> list[tuple[str, str, int]]:
    """(key, label, width) of the table's columns for a panel ``width`` cells wide: the
    memory text gets the rest (each column pads one cell both sides; 2 for the scrollbar)."""
    fixed = [c for c in FIXED_COLUMNS if width >= WIDE_FROM or c[0] != "written"]
    rest = width - sum(size + 2 for _, _, size in fixed) - 2 - 2
    columns = [*fixed[:1], ("content", "memory", max(16, rest)), *fixed[1:]]
    return columns


def status_counts(shown: int, total: int, how: str, pending: int, stale: int) -> str:
    """The browser's status line: how many memories show of how many, ``how`` they were
    chosen, and how many wait for review or may be stale ("1 of 1 memories" read as if the
    browser could not count)."""
    listed = f" · the first {LISTED_AT_MOST:,} listed, type to narrow" \
        if shown > LISTED_AT_MOST else ""
    return (f"{shown:,} of {counted(total, 'memory', 'memories')}" + how + listed
            + (f" · {pending:,} awaiting review (y accepts, n rejects)" if pending else "")
            + (f" · {stale:,} possibly stale (v verifies)" if stale else ""))


def project_memories(rows: list[MemoryRow]) -> str:
    """How many of ``rows`` belong to the project, in words ("1 project memory")."""
    return counted(sum(r.scope == "project" for r in rows), "project memory",
                   "project memories")


def resolve_id(rows: list[MemoryRow], typed: str) -> tuple[MemoryRow | None, str]:
    """The one row an id (or a unique prefix of one) names, else why not."""
    exact = [r for r in rows if r.id == typed]
    found = exact or [r for r in rows if r.id.startswith(typed)]
    if len(found) == 1:
        return found[0], ""
    if not found:
        return None, f"No memory with id {typed} here (F2 lists them)."
    return None, f"{typed} could be {len(found):,} memories: type more of the id."


def done_message(action: str, content: str, new_text: str = "") -> str:
    """What a memory operation did, in words, quoting (the start of) the memory."""
    said = quoted(content)
    return {
        "verify": f"Verified {said}: checked today, no longer possibly stale.",
        "accept": f"Accepted {said}: it is yours now and used in turns.",
        "delete": f"Deleted {said}.",
        "reject": f"Rejected and deleted {said}.",
        "replace": f"Replaced {said} with {quoted(new_text)}.",
    }.get(action, f"{action}: {said}")
