"""The memory inbox: memories saved automatically that the person has not accepted yet.

Those written since the person last opened the memory browser are *new*: the browser marks
them and every footer counts them. When the person last looked is kept per project in
``PAICLI_HOME/memory/inbox_seen.json``. Accepting verifies a memory, rejecting deletes it.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message
from textual.signal import Signal

from ..core.contracts import events as ev
from ..core.plural import counted
from ..file_locks import locked
from ..private_files import replace_private
from .backend import Backend, MemoryRow

if TYPE_CHECKING:
    from textual.app import App


def _moment(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def new_since(rows: Sequence[MemoryRow], seen: datetime | None) -> list[MemoryRow]:
    """Rows awaiting review written after ``seen`` (all of them when never looked)."""
    out = []
    for row in rows:
        if not row.pending:
            continue
        written = _moment(row.created)
        if seen is None or written is None or written > seen:
            out.append(row)
    return out


def inbox_text(new: int) -> str:
    """The footer's words for the inbox, "" when nothing is new."""
    if not new:
        return ""
    return f"✉ {counted(new, 'new memory', 'new memories')} (F2)"


def inbox_texts(new: int) -> tuple[str, ...]:
    """The footer's words for the inbox, longest first (the short one for a narrow footer);
    () when nothing is new."""
    return (inbox_text(new), f"✉ {new:,} new (F2)") if new else ()


class SeenTimes:
    """When the memory browser was last opened, per project (a small JSON file)."""

    def __init__(self, path: Path, project: Path) -> None:
        self.path = path
        self.project = str(project)

    def _all(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return {}  # missing or unreadable: everything counts as new, nothing is lost
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def get(self) -> datetime | None:
        return _moment(self._all().get(self.project, ""))

    def mark(self, moment: datetime) -> None:
        """Remember ``moment`` for this project (under the file's lock: two apps marking
        at once each kept only their own project)."""
        # a read-only home: the count just stays
        with contextlib.suppress(OSError), locked(self.path):
            data = self._all()
            data[self.project] = moment.isoformat()
            # project paths and times: the person's own, like the prompt history
            replace_private(self.path, json.dumps(data, ensure_ascii=False,
                                                  indent=1).encode("utf-8"))


class MemoryInbox:
    """The app's count of new memories, refreshed after turns and browser changes."""

    def __init__(self, app: App, backend: Backend) -> None:
        self.app = app
        self.backend = backend
        self.seen = SeenTimes(backend.settings.home.memory_dir / "inbox_seen.json",
                              backend.project_root)
        self.new = 0
        self.changed: Signal[int] = Signal(app, "memory-inbox")
        self.stored: Signal[int] = Signal(app, "memory-count")
        """How many memories the store holds, each time they are counted."""

    def after_event(self, event: object) -> None:
        if isinstance(event, ev.MemoryNotice):
            self.refresh()

    def refresh(self) -> None:
        self.app.run_worker(self._count, thread=True, group="memory-inbox", exclusive=True,
                            exit_on_error=False)

    class Counted(Message):
        """The count :meth:`refresh` made in its thread; the app hands it to :meth:`counted`."""

        def __init__(self, new: int, total: int) -> None:
            super().__init__()
            self.new = new
            self.total = total

    def _count(self) -> None:
        try:
            rows = self.backend.memory().rows()
        except Exception:  # an unreadable memory file: the browser says why
            return
        self.app.post_message(MemoryInbox.Counted(len(new_since(rows, self.seen.get())),
                                                  len(rows)))

    def counted(self, message: Counted) -> None:
        self._set(message.new)
        self.stored.publish(message.total)

    def looked(self) -> datetime | None:
        """The browser is open: from now on nothing seen so far is new. Returns when the
        person looked before, so the browser can still mark what is new to them."""
        before = self.seen.get()
        self.seen.mark(datetime.now(UTC))
        self._set(0)
        return before

    def _set(self, count: int) -> None:
        self.new = count
        self.changed.publish(count)
