"""Search hits from files that changed since the index was built.

The index is refreshed only by ``paicli-tui index`` or /index, while the agent and the
person keep editing: a hit's line range and source then describe the file as it was, and a
hit in a deleted file points at nothing. Each hit's file is checked against what the index
recorded of it (its size and time, then its content hash when those differ: a file saved
unchanged is not called changed), so the model and the person are told to read the file
rather than trust the lines. At most one stat, and one read of a file of up to 1 MB, per hit.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from ..text.fsnames import resolve_shown
from .hits import SearchHit

Change = Literal["", "changed", "deleted"]

CHANGED_NOTE = {
    "changed": "changed since the index was built: read the file, its lines may have moved",
    "deleted": "deleted since the index was built",
}
"""What a hit's mark means, as the model and the person read it."""


def mark_changed(root: Path, tables: Any, hits: list[SearchHit]) -> None:
    """Set ``changed`` on each hit whose file changed or went away since it was indexed."""
    from .ignore import read_listed_file
    from .indexer import file_digest
    from .lance_store import path_filter

    paths = sorted({hit.path for hit in hits})
    if not paths or tables.files is None:
        return
    recorded = {row["path"]: row for row in tables.files.search().where(path_filter(paths))
                .select(["path", "hash", "size", "mtime_ns"]).limit(len(paths)).to_list()}
    state: dict[str, Change] = {}
    for path, row in recorded.items():
        file = resolve_shown(root, path)
        try:
            info = os.stat(file)
        except FileNotFoundError:
            state[path] = "deleted"
            continue
        except OSError:  # cannot tell: say nothing rather than something wrong
            continue
        if (info.st_size, info.st_mtime_ns) == (row["size"], row["mtime_ns"]):
            continue
        data = read_listed_file(file)
        if data is None or file_digest(data) != row["hash"]:
            state[path] = "changed"
    for hit in hits:
        hit.changed = state.get(hit.path, "")
