"""Search hits from files that changed since the index was built.

The index is refreshed only by ``paicli-tui index`` or /index, while the agent and the
person keep editing: a hit's line range and source then describe the file as it was, and a
hit in a deleted file points at nothing. Each hit's file is checked against what the index
recorded of it (its size and time, then its content hash when those differ: a file saved
unchanged is not called changed), so the model and the person are told to read the file
rather than trust the lines. At most one stat, and one read of a file of up to 1 MB, per file
shown (a search's hits, the files of a code-graph answer).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
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


def changed_paths(root: Path, tables: Any, paths: Iterable[str]) -> dict[str, Change]:
    """The ``paths`` (as the index stores them) whose file changed or went away since it was
    indexed, each with which; paths the index does not know are left out."""
    from .ignore import read_listed_file
    from .indexer import file_digest
    from .lance_store import path_filter

    wanted = sorted(set(paths))
    if not wanted or tables.files is None:
        return {}
    recorded = {row["path"]: row for row in tables.files.search().where(path_filter(wanted))
                .select(["path", "hash", "size", "mtime_ns"]).limit(len(wanted)).to_list()}
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
    return state


def mark_changed(root: Path, tables: Any, hits: list[SearchHit]) -> None:
    """Set ``changed`` on each hit whose file changed or went away since it was indexed."""
    state = changed_paths(root, tables, (hit.path for hit in hits))
    for hit in hits:
        hit.changed = state.get(hit.path, "")
