"""``/undo``: put back the files the agent changed in its last turn that changed any.

Every file ``write_file`` or ``edit_file`` writes (the main session's, a sub-agent's or a plan
task's) is recorded first: its bytes before (or that it did not exist) under
``PAICLI_HOME/history/checkpoints/<session>/``, and a digest of what was written. ``/undo``
takes the newest turn with changes not undone yet and, newest change first, puts each file
back — only when it still holds exactly what the agent wrote: a file changed since (by the
person, or by a later edit) is left as it is and named, so an undo never loses work. A file
the agent created is removed. The conversation is not rewound: the model is told, with the
person's next message, which files were put back.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

from ...private_files import write_private
from ...regular_files import read_regular
from .tools.edit import write_bytes_atomically

MAX_KEPT_BYTES = 20_000_000
"""A file larger than this before the change is not kept (an undo then names it)."""
INDEX = "changes.jsonl"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _newest_turn(entries: list[dict]) -> list[dict]:
    """The change records, oldest first, of the turn of the newest change not undone (the
    turn id, not its number: numbers restart on resume); [] when every change is undone."""
    undone = {e["undo"] for e in entries if "undo" in e}
    pending = [e for e in entries if "n" in e and e["n"] not in undone]
    if not pending:
        return []
    turn = max(pending, key=lambda e: e["n"])["turn"]
    return sorted((e for e in pending if e["turn"] == turn), key=lambda e: e["n"])


@dataclass
class UndoResult:
    turn: int | None = None
    """The turn whose changes were undone (None: there was nothing to undo)."""
    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    """Files the agent had created, removed again."""
    kept: list[tuple[str, str]] = field(default_factory=list)
    """(file, why it was left as it is)."""

    def summary(self) -> str:
        """What the person is told (and, with their next message, the model)."""
        if self.turn is None:
            return "Nothing to undo: the agent changed no file in this session (or every " \
                   "change is undone already)."
        parts = []
        if self.restored:
            parts.append(f"put back {', '.join(self.restored)}")
        if self.removed:
            parts.append(f"removed {', '.join(self.removed)} (created by the agent)")
        text = ("Undid the agent's file changes of turn " f"{self.turn}: "
                + ("; ".join(parts) if parts else "no file put back") + ".")
        if self.kept:
            text += " Left as they are: " + "; ".join(f"{path} ({why})"
                                                     for path, why in self.kept) + "."
        return text


class FileCheckpoints:
    """The record of one session's file changes (shared with its sub-agents)."""

    def __init__(self, folder: Path, project_root: Path) -> None:
        self.folder = folder
        self.root = project_root
        self._lock = threading.Lock()

    def record(self, turn_id: str, turn_number: int, path: Path, label: str,
               before: bytes | None, after: bytes) -> None:
        """Keep what ``path`` held before the agent wrote ``after`` (call it before the
        write: a change whose before could not be kept is still listed, as not undoable)."""
        with self._lock:
            self.folder.mkdir(parents=True, exist_ok=True)
            entries = self._entries()
            number = len(entries) + 1
            kept = ""
            if before is not None and len(before) <= MAX_KEPT_BYTES:
                kept = f"{number:05d}.before"
                write_private(self.folder / kept, before, follow_symlinks=False)
            entry = {"n": number, "turn": turn_id, "turn_number": turn_number,
                     "path": str(path), "label": label,
                     "existed": before is not None, "kept": kept, "after": digest(after)}
            write_private(self.folder / INDEX,
                          (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8"),
                          append=True, follow_symlinks=False)

    def _entries(self) -> list[dict]:
        try:
            text = (self.folder / INDEX).read_text(encoding="utf-8")
        except OSError:
            return []
        entries = []
        for line in text.splitlines():
            with contextlib.suppress(ValueError):
                entries.append(json.loads(line))
        return entries

    def last_turn_changes(self) -> tuple[int, list[dict]] | None:
        """The newest turn with changes not undone (what ``/undo`` would put back): its
        number and its change records, oldest first; None when there is none."""
        with self._lock:
            changes = _newest_turn(self._entries())
        return (int(changes[-1].get("turn_number", 0)), changes) if changes else None

    def kept_before(self, entry: dict) -> Path | None:
        """The file holding what ``entry``'s path held before the change (None: not kept)."""
        return self.folder / entry["kept"] if entry.get("kept") else None

    def undo_last_turn(self) -> UndoResult:
        """Put back the newest turn's changes (see the module docstring)."""
        with self._lock:
            changes = _newest_turn(self._entries())
            if not changes:
                return UndoResult()
            result = UndoResult(turn=int(changes[-1].get("turn_number", 0)))
            for entry in reversed(changes):
                self._put_back(entry, result)
                write_private(self.folder / INDEX,
                              (json.dumps({"undo": entry["n"]}) + "\n").encode("utf-8"),
                              append=True, follow_symlinks=False)
            return result

    def _put_back(self, entry: dict, result: UndoResult) -> None:
        label, path = entry["label"], Path(entry["path"])
        real = os.path.realpath(path.parent)
        if real != str(self.root) and not real.startswith(str(self.root) + os.sep):
            result.kept.append((label, "its folder now leads outside the project"))
            return
        if path.is_symlink():  # the agent writes the real file: a link is someone's since
            result.kept.append((label, "replaced by a link since the agent wrote it"))
            return
        try:
            now, whole = read_regular(path, MAX_KEPT_BYTES + 1)
        except FileNotFoundError:
            now, whole = None, True
        except OSError as exc:
            result.kept.append((label, f"cannot be read: {exc.strerror or exc}"))
            return
        if now is None or not whole or digest(now) != entry["after"]:
            why = "deleted since" if now is None else "changed since the agent wrote it"
            result.kept.append((label, why))
            return
        if entry["existed"] and not entry["kept"]:
            result.kept.append((label, "too large to have been kept"))
            return
        # the file is as the agent left it; putting it back can still fail (its kept copy
        # deleted from PAICLI_HOME, a folder made read-only, a full disk): that file is named
        # and the turn's other files are still put back
        try:
            if not entry["existed"]:
                path.unlink()
                result.removed.append(label)
                return
            before, _ = read_regular(self.folder / entry["kept"], MAX_KEPT_BYTES + 1)
            write_bytes_atomically(path, before)
        except OSError as exc:
            result.kept.append((label, f"could not be put back: {exc.strerror or exc}"))
            return
        if label not in result.restored:
            result.restored.append(label)
