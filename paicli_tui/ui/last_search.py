"""The code search's last query and mode, kept by the chat for the next time it opens.

F3 opened empty in hybrid mode: after Enter inserted one result's `path:line`, the next
reference from the same results meant typing the query (and choosing grep) again."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class LastSearch:
    query: str = ""
    mode: str = ""
    """The mode last chosen ("" at first: hybrid, or grep without an index)."""
