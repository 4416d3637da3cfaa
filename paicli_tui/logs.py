"""The program's log: a rotating file under PAICLI_HOME/logs/, never a secret in it.

In the TUI nothing may write to the terminal, so without a handler the core's warnings and
exceptions would vanish (or, through Python's last-resort handler, garble the screen). Every
record goes to ``paicli-tui.log`` (1 MB, 3 older files kept) after the settings' secrets and
anything shaped like an API key are masked; the errors of this run are counted so the TUI
footer can say that something went wrong and where to read about it.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
from pathlib import Path

from .config import Settings
from .private_files import open_private

LOG_FILE = "paicli-tui.log"
MAX_BYTES = 1_000_000
BACKUPS = 3
FORMAT = "%(asctime)s %(levelname)s %(name)s [%(process)d]: %(message)s"
QUIET_LIBRARIES = ("httpx", "httpcore", "jieba", "markdown_it", "asyncio")
"""Chatty below warning even when the person asks for debug: their records are noise here."""


class RedactingFormatter(logging.Formatter):
    """Formats a record, traceback included, then masks every secret in the whole text."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(FORMAT)
        self._secrets = settings.secrets()

    def format(self, record: logging.LogRecord) -> str:
        from .core.llm.redact import redact

        return redact(super().format(record), *self._secrets)


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """The log file and each one it rotates to are readable by the person only (0600): they
    quote paths, commands and errors of the person's work, like the session ledger (0600)."""

    def _open(self):  # type: ignore[no-untyped-def]
        fd = open_private(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        return os.fdopen(fd, "a", encoding=self.encoding, errors=self.errors)

    broken = False
    """The file could not be written once: the log is best effort, it stops trying."""

    def emit(self, record: logging.LogRecord) -> None:
        if not self.broken:
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        # a file it cannot open or write (a read-only PAICLI_HOME) printed '--- Logging
        # error ---' and a traceback into the person's output at every record; a record
        # that does not format (a library's '%s %s' with one value) is only that record
        if isinstance(sys.exc_info()[1], OSError):
            self.broken = True


class ErrorTally(logging.Handler):
    """Counts the records at ERROR or above written in this run (``handle`` holds the
    handler's lock around ``emit``, so threads count safely)."""

    def __init__(self, path: Path) -> None:
        super().__init__(logging.ERROR)
        self.path = path
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


_installed: list[logging.Handler] = []
_tally: ErrorTally | None = None
_levels_before: dict[str, int] = {}


def start_logging(settings: Settings) -> ErrorTally:
    """Send the root logger to the log file at ``settings.log_level``; returns the tally of
    this run's errors. Calling it again replaces the previous set-up (tests, a second run)."""
    global _tally
    stop_logging()
    path = settings.home.logs_dir / LOG_FILE
    handlers: list[logging.Handler] = []
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a PAICLI_HOME it cannot write: the command runs without a log
        print(f"paicli-tui: no log file: cannot write {path.parent} ({exc})", file=sys.stderr)
    else:
        file_handler = PrivateRotatingFileHandler(
            path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8", delay=True)
        file_handler.setFormatter(RedactingFormatter(settings))
        handlers.append(file_handler)
    tally = ErrorTally(path)
    root = logging.getLogger()
    for name in ("", *QUIET_LIBRARIES):
        _levels_before[name] = logging.getLogger(name or None).level
    root.setLevel(settings.log_level.upper())
    for handler in (*handlers, tally):
        root.addHandler(handler)
        _installed.append(handler)
    for name in QUIET_LIBRARIES:
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
    _tally = tally
    return tally


def stop_logging() -> None:
    """Remove what :func:`start_logging` installed, close the file, restore the levels."""
    global _tally
    root = logging.getLogger()
    while _installed:
        handler = _installed.pop()
        root.removeHandler(handler)
        handler.close()
    for name, level in _levels_before.items():
        logging.getLogger(name or None).setLevel(level)
    _levels_before.clear()
    _tally = None


def error_tally() -> ErrorTally | None:
    """This run's error count and log path, when logging was started."""
    return _tally
