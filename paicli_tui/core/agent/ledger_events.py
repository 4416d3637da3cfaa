"""Reading a few kinds of event out of a session ledger without parsing the rest: only the
lines that name such an event are decoded (a plan's progress, the sub-agents it started)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..context.ledger_read import open_regular


def ledger_events(path: Path, kind_prefix: str) -> list[dict[str, Any]]:
    """The ``event`` records whose kind starts with ``kind_prefix``, oldest first. Torn or
    corrupt lines are skipped (the reader of the view reports them); OSError if the file
    cannot be read."""
    marker = b'"kind":"' + kind_prefix.encode()
    events = []
    with open_regular(path) as handle:
        for line in handle:
            if marker not in line:
                continue
            try:
                record = json.loads(line.decode("utf-8", "replace"))
            except (ValueError, RecursionError):
                continue
            if isinstance(record, dict) and record.get("type") == "event" and \
                    str(record.get("kind", "")).startswith(kind_prefix):
                events.append(record)
    return events
