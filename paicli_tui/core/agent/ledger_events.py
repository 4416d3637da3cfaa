"""Reading a few kinds of event out of a session ledger without parsing the rest: only the
lines that name such an event are decoded (a plan's progress, the sub-agents it started)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..context.ledger_read import open_regular, read_events


def ledger_events(path: Path, kind_prefix: str) -> list[dict[str, Any]]:
    """The ``event`` records whose kind starts with ``kind_prefix``, oldest first. Torn or
    corrupt lines are skipped (the reader of the view reports them); OSError if the file
    cannot be read."""
    with open_regular(path) as handle:
        return read_events(handle, kind_prefix, prefix=True)
