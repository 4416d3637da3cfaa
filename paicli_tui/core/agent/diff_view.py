"""What ``/diff`` shows: a list of changed files (path, lines added and removed) and one
unified diff of them, bounded for a screen.

Both sources, the git work tree (:mod:`.git_changes`) and the agent's last turn
(:mod:`.checkpoints`), meet here: file names are shown with control characters as escapes, a
binary file is named and not dumped, the diff stops at :data:`MAX_DIFF_CHARS` with a note,
and the caller's redaction masks every configured key in the names and the text.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..plural import counted
from ..text.fsnames import display_name

MAX_DIFF_CHARS = 200_000
"""Characters of diff shown (a 5 MB diff would take seconds to colour and nobody reads it
on a screen; ``git diff`` in a terminal has the whole of it)."""
MAX_FILE_BYTES = 1_000_000
"""A file read for a diff of our own (a new file, the agent's last turn) up to this size;
a larger one is listed, not shown."""
BINARY_PROBE = 8_000
"""Bytes looked at for a NUL to call a file binary, as git does."""


@dataclass(frozen=True)
class FileChange:
    path: str
    """As shown: control characters as escapes."""
    added: int | None = None
    """Lines added (None: binary, or not counted)."""
    removed: int | None = None
    note: str = ""
    """``binary``, ``new``, ``deleted``, ``too large to show`` …"""

    def counts(self) -> str:
        if self.added is None or self.removed is None:
            return self.note or "?"
        text = f"+{self.added} −{self.removed}"
        return f"{text} ({self.note})" if self.note else text


@dataclass
class DiffView:
    title: str
    files: list[FileChange] = field(default_factory=list)
    diff: str = ""
    notes: list[str] = field(default_factory=list)
    """Said above the diff: what was cut, what was left out."""

    def summary(self) -> str:
        """``3 files · +12 −4``."""
        added = sum(f.added or 0 for f in self.files)
        removed = sum(f.removed or 0 for f in self.files)
        return f"{counted(len(self.files), 'file')} · +{added} −{removed}"


def is_binary(data: bytes) -> bool:
    return b"\0" in data[:BINARY_PROBE]


def file_diff(label: str, before: bytes | None, after: bytes | None) -> tuple[FileChange, str]:
    """The change of one file from ``before`` to ``after`` (None: the file is not there):
    its summary row and its unified diff (empty for a binary file)."""
    shown = display_name(label)
    note = "new" if before is None else "deleted" if after is None else ""
    if is_binary(before or b"") or is_binary(after or b""):
        return FileChange(shown, note=f"{note}, binary" if note else "binary"), ""
    old = (before or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
    new = (after or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
    lines = list(difflib.unified_diff(old, new, lineterm="",
                                      fromfile="/dev/null" if before is None else f"a/{shown}",
                                      tofile="/dev/null" if after is None else f"b/{shown}"))
    added = sum(1 for line in lines[2:] if line.startswith("+"))
    removed = sum(1 for line in lines[2:] if line.startswith("-"))
    text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    return FileChange(shown, added, removed, note), text


def assemble(title: str, files: Sequence[FileChange], pieces: Sequence[str],
             redact: Callable[[str], str], notes: Sequence[str] = (), *,
             more: bool = False, whole: str = "git diff in a terminal shows the whole of it"
             ) -> DiffView:
    """One view of ``files`` and their diffs, cut at :data:`MAX_DIFF_CHARS` (with a note
    saying how much was left out and where ``whole`` is), masked by ``redact``. ``more``:
    the pieces were already cut where they were read, so there is more than they hold."""
    diff = "".join(pieces)
    notes = list(notes)
    if len(diff) > MAX_DIFF_CHARS or more:
        cut = diff.rfind("\n", 0, MAX_DIFF_CHARS) + 1 or min(len(diff), MAX_DIFF_CHARS)
        total = "more than that" if more else f"{len(diff):,}"
        notes.append(f"The diff is cut after {cut:,} characters (of {total}); {whole}.")
        diff = diff[:cut]
    masked = [FileChange(redact(f.path), f.added, f.removed, f.note) for f in files]
    return DiffView(title, masked, redact(diff), [redact(n) for n in notes])
