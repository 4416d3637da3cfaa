"""The ``@`` word being typed in the chat input, and the project's files it may mean.

Typing ``@` `` then part of a path opens the same menu as ``/`` does for commands, listing
the project's files that match (core.agent.mentions.file_candidates); Tab or ↑↓ choose,
Enter puts the chosen path in and closes the menu. The file list is read in a worker (it
honours .gitignore and skips symlinks, as glob_files does) and read again when older than
STALE_S, so a file made a minute ago is offered too.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

from ...core.agent.mentions import FileIndex
from ..slash import SlashCommand

if TYPE_CHECKING:
    from textual.app import App
    from textual.widget import Widget

MAX_FILES = 50_000
"""Files listed at most: a huge tree (a vendored SDK) is offered its first ones."""
STALE_S = 30.0


@dataclass(frozen=True)
class MentionWord:
    """The ``@`` word that ends at the cursor: its row, where it starts (the ``@``) and
    the text typed after the ``@``."""

    row: int
    start: int
    end: int
    typed: str


def mention_at(line: str, row: int, column: int) -> MentionWord | None:
    """The ``@`` word ending at ``column`` of ``line`` (None when the cursor is not at the
    end of one: mid-word, or on ``me@host``, which does not start with ``@``)."""
    if column < len(line) and not line[column].isspace():
        return None
    start = column
    while start > 0 and not line[start - 1].isspace():
        start -= 1
    word = line[start:column]
    if not word.startswith("@") or '"' in word:
        return None
    return MentionWord(row, start, column, word[1:])


def menu_entries(paths: list[str]) -> list[SlashCommand]:
    """Files shown in the slash menu's place (their names start with ``@``); a path with a
    blank of any kind (a Chinese name's full-width 　, a no-break space) is quoted, as the
    mention reader expects: unquoted, the path would end at the blank."""
    return [SlashCommand(f'@"{path}"' if any(c.isspace() for c in path) else "@" + path,
                         "", "")
            for path in paths]


def _offerable(path: str) -> bool:
    """A name that can be typed: no undecodable bytes, no control characters, no quote."""
    return not any(ord(c) < 32 or 0xD800 <= ord(c) <= 0xDFFF or c == '"' for c in path)


class ProjectFiles:
    """The project's files for ``@`` completion, read in a worker and kept a while."""

    class Loaded(Message):
        """A new file list is ready: an open ``@`` menu is worked out again."""

    def __init__(self, app: App, root: Path, listener: Widget) -> None:
        self.app = app
        self.root = root
        self.listener = listener
        self.files = FileIndex([])
        self.read_at: float | None = None
        self.loading = False

    def current(self) -> FileIndex:
        """The files as last read; a read is started when there is none or it is stale."""
        stale = self.read_at is None or time.monotonic() - self.read_at > STALE_S
        if stale and not self.loading:
            self.loading = True
            self.app.run_worker(self._read, thread=True, group="project-files",
                                exit_on_error=False)
        return self.files

    def _read(self) -> None:
        from ...core.code.ignore import walk_project_files

        found: list[str] = []
        try:
            for path in walk_project_files(self.root):
                if not _offerable(path):
                    continue
                found.append(path)
                if len(found) >= MAX_FILES:
                    break
        except OSError:
            pass  # an unreadable folder: what was found is offered
        finally:
            self.files = FileIndex(found)
            self.read_at = time.monotonic()
            self.loading = False
        self.listener.post_message(ProjectFiles.Loaded())
