"""``/diff turn``: what the agent changed in its last turn with changes (the turn ``/undo``
would put back), from the checkpoints kept before each write to what the files hold now."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ...regular_files import read_regular
from .checkpoints import FileCheckpoints, digest
from .diff_view import MAX_FILE_BYTES, DiffView, FileChange, assemble, file_diff


def _read(path: Path) -> tuple[bytes | None, str]:
    """(what ``path`` holds now, or None when it is gone; why it is not shown, or "")."""
    if path.is_symlink():
        return None, "replaced by a link since"
    try:
        data, whole = read_regular(path, MAX_FILE_BYTES)
    except FileNotFoundError:
        return None, ""
    except OSError as exc:
        return None, f"unreadable: {exc.strerror or exc}"
    return (data, "") if whole else (None, "too large to show")


def _file(checkpoints: FileCheckpoints, changes: list[dict]) -> tuple[FileChange, str]:
    """One file's row and diff: before the turn's first change of it, and now."""
    first, last = changes[0], changes[-1]
    label = first["label"]
    before: bytes | None = None
    if first["existed"]:
        kept = checkpoints.kept_before(first)
        if kept is None:
            return FileChange(label, note="too large before the change to have been kept"), ""
        before, why = _read(kept)
        if before is None:
            return FileChange(label, note=f"its copy from before is {why or 'gone'}"), ""
    now, why = _read(Path(first["path"]))
    if why:
        return FileChange(label, note=why), ""
    row, text = file_diff(label, before, now)
    if now is None:  # the agent wrote it (its tools never delete): someone removed it since
        row = FileChange(row.path, row.added, row.removed, "deleted since the agent wrote it")
    elif digest(now) != last["after"]:
        note = ", ".join(n for n in (row.note, "changed since the agent wrote it") if n)
        row = FileChange(row.path, row.added, row.removed, note)
    return row, text


def last_turn_diff(checkpoints: FileCheckpoints, redact: Callable[[str], str]
                   ) -> DiffView | None:
    """The agent's last turn with changes as a view; None when it changed no file (or every
    change is undone)."""
    found = checkpoints.last_turn_changes()
    if found is None:
        return None
    turn, changes = found
    by_path: dict[str, list[dict]] = {}
    for change in changes:
        by_path.setdefault(change["path"], []).append(change)
    rows, pieces = [], []
    for file_changes in by_path.values():
        row, text = _file(checkpoints, file_changes)
        rows.append(row)
        pieces.append(text)
    return assemble(f"What the agent changed in turn {turn}", rows, pieces, redact,
                    whole="the files themselves hold the rest (git is not asked: the turn "
                    "view works without it)")
