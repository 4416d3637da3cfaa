"""Reading a session ledger (schema 1 and 2) back into the view the model saw.

Schema 1: ``view_checkpoint`` records hold the whole view (``{"ref": id}`` for a message
already written); messages written after the last checkpoint join it.

Schema 2 records what changed: a ``message`` record joins the view (an append implies its
checkpoint), a ``view_change`` holds the splices of a rewrite (what it replaced, by what), and
now and then a full ``view_checkpoint`` holds every message of the view inline, with the
session's running state (``state``: messages recorded, title, external content). Resume finds
the last full checkpoint by scanning the file backwards and reads only from there; a file
whose tail cannot be read that way (no full checkpoint, a reference that does not resolve,
a damaged full checkpoint) is read from the top, as schema 1 always is.

Nothing here writes. Files that are not regular (a FIFO, a link to a device) are refused
before they are read, so a planted ``*.jsonl`` cannot hang a listing.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from .ledger_splices import apply_splices

SCHEMA_VERSION = 2
# Every full checkpoint we write starts its line with exactly these bytes (the key order is
# fixed), and JSON text never holds a raw newline, so "newline + mark" finds them.
FULL_MARK = b'{"schema_version":2,"type":"view_checkpoint",'
MESSAGES_KEY = b',"messages":['
_BLOCK = 1 << 18
EVENT_HEAD = 400
"""An event's kind is within this many bytes of its line's start (the writer puts it right
after the version, type and time stamp; a hand-edited line has room for a few more keys)."""


class NotRegular(OSError):
    """The path is a FIFO, device, directory... (never opened for reading)."""


def open_regular(path: os.PathLike[str] | str) -> BinaryIO:
    """Open ``path`` for reading only if it is a regular file (symlinks followed). Opened
    non-blocking first, so a FIFO swapped in after the check cannot block the open."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegular(f"{path} is not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def find_last_full(handle: BinaryIO, size: int) -> int | None:
    """Byte offset of the last schema-2 full checkpoint line, reading backwards in blocks."""
    mark = b"\n" + FULL_MARK
    end = size
    while end > 0:
        start = max(0, end - _BLOCK)
        handle.seek(start)
        block = handle.read(min(size, end + len(mark) - 1) - start)  # marks across blocks
        found = block.rfind(mark)
        if found >= 0:
            return start + found + 1
        end = start
    return None


def stripped(record: dict[str, Any]) -> dict[str, Any]:
    """The record as a view keeps it: images left out (counted), as checkpoints always did."""
    images = record.get("images")
    if not images:
        return record
    out = {k: v for k, v in record.items() if k != "images"}
    out["images_stripped"] = len(images) if isinstance(images, list) else 1
    return out


@dataclass
class LedgerScan:
    """What a read of the ledger found (the view as records, not yet Messages)."""

    warnings: list[str] = field(default_factory=list)
    title: str | None = None
    project: str | None = None
    created: str | None = None
    view: list[dict[str, Any]] = field(default_factory=list)
    latest: dict[str, dict[str, Any]] = field(default_factory=dict)
    external_content_used: bool = False
    message_count: int = 0
    full_offset: int | None = None  # where the last full checkpoint starts (schema 2)
    full_bytes: int = 0
    size: int = 0
    from_tail: bool = False
    unresolved: bool = False  # a reference did not resolve: a tail read must start over
    newer_warned: bool = False


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


class LedgerReader:
    """One pass over a ledger file, from the top or from its last full checkpoint."""

    def __init__(self, handle: BinaryIO, size: int) -> None:
        self.handle = handle
        self.size = size

    # -- records -----------------------------------------------------------------------------
    def _records(self, scan: LedgerScan, offset: int
                 ) -> Iterator[tuple[str, int, dict[str, Any]]]:
        """(where, offset, record) for every readable line from ``offset``."""
        self.handle.seek(offset)
        raw = self.handle.read(self.size - offset)
        at = offset
        for number, line in enumerate(raw.split(b"\n"), start=1):
            here, at = at, at + len(line) + 1
            if not line.strip():
                continue
            where = f"byte {here}" if scan.from_tail else f"line {number}"
            try:
                record = json.loads(line.decode("utf-8", "replace"))
                if not isinstance(record, dict):
                    raise ValueError("not an object")
            except (ValueError, RecursionError):
                scan.warnings.append(f"{where}: unreadable record (torn or corrupt), skipped")
                continue
            version = record.get("schema_version")
            if type(version) is int and version > SCHEMA_VERSION and not scan.newer_warned:
                scan.newer_warned = True
                scan.warnings.append(f"written by a newer paicli-tui (schema {version}); "
                                     "reading only what this version understands")
            yield where, here, record

    def _resolve(self, scan: LedgerScan, entries: list[Any], where: str
                 ) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            if "ref" in entry:
                target = scan.latest.get(str(entry["ref"]))
                if target is None:
                    scan.unresolved = True
                    scan.warnings.append(f"{where}: checkpoint refers to a message that "
                                         "cannot be read; it is left out")
                    continue
                out.append(stripped(target))
            else:
                out.append(stripped(entry))
                if isinstance(entry.get("id"), str):
                    scan.latest[entry["id"]] = entry
        return out

    # -- one record ----------------------------------------------------------------------------
    def _message(self, scan: LedgerScan, record: dict[str, Any]) -> None:
        message = record["message"]
        scan.message_count += 1
        meta = message.get("meta")
        if isinstance(meta, dict) and meta.get("external"):
            scan.external_content_used = True
        if isinstance(message.get("id"), str):
            scan.latest[message["id"]] = message
        # schema 1 kept images of messages after the last checkpoint; schema 2's append is
        # its own checkpoint, and checkpoints never hold images
        version = record.get("schema_version")
        scan.view.append(stripped(message) if type(version) is int and version >= 2
                         else message)

    def _checkpoint(self, scan: LedgerScan, record: dict[str, Any], where: str) -> None:
        entries = record.get("messages")
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            scan.warnings.append(f"{where}: a checkpoint in a format this version does not "
                                 "know; the view continues from the messages recorded")
            return
        scan.view = self._resolve(scan, entries, where)

    def _change(self, scan: LedgerScan, record: dict[str, Any], where: str) -> None:
        base = record.get("base")
        view = None
        if base is None or base == len(scan.view):
            view = apply_splices(scan.view, record.get("splices"),
                                 lambda entries: self._resolve(scan, entries, where))
        if view is None:
            scan.warnings.append(f"{where}: a view change this version cannot apply; the "
                                 "view continues from the messages recorded")
            return
        scan.view = view

    def _state(self, scan: LedgerScan, record: dict[str, Any]) -> None:
        """The running state a full checkpoint carries (used when reading from it)."""
        state = record.get("state")
        if not isinstance(state, dict):
            return
        if type(state.get("messages")) is int:
            scan.message_count = state["messages"]
        scan.title = _text(state.get("title")) or scan.title
        scan.external_content_used = state.get("external_content_used") is True

    def read(self, scan: LedgerScan, offset: int = 0,
             stop: Callable[[dict[str, Any]], bool] | None = None) -> LedgerScan:
        first = True
        for where, here, record in self._records(scan, offset):
            if stop is not None and stop(record):
                break
            kind = record.get("type")
            if kind == "session":
                scan.project = _text(record.get("project"))
                scan.created = _text(record.get("created"))
                scan.title = _text(record.get("title")) or scan.title
            elif kind == "message" and isinstance(record.get("message"), dict):
                self._message(scan, record)
            elif kind == "view_checkpoint":
                if scan.from_tail and first:
                    self._state(scan, record)
                self._checkpoint(scan, record, where)
                if record.get("full") is True and record.get("schema_version") == 2:
                    scan.full_offset = here
            elif kind == "view_change":
                self._change(scan, record, where)
            elif kind == "event" and record.get("kind") == "title":
                scan.title = _text(record.get("title")) or scan.title
            elif kind == "event" and record.get("kind") == "external_cleared":
                scan.external_content_used = False
            first = False
        if scan.full_offset is not None:
            scan.full_bytes = self._line_length(scan.full_offset)
        return scan

    def _line_length(self, offset: int) -> int:
        self.handle.seek(offset)
        length = 0
        while block := self.handle.read(_BLOCK):
            cut = block.find(b"\n")
            if cut >= 0:
                return length + cut + 1
            length += len(block)
        return length


def read_events(handle: BinaryIO, kind: str, *, prefix: bool = False) -> list[dict[str, Any]]:
    """The ``event`` records of ``kind`` (``prefix``: whose kind starts with it), oldest
    first (see :func:`find_events`)."""
    return [record for _, record in find_events(handle, kind, prefix=prefix)]


def find_events(handle: BinaryIO, kind: str, *, prefix: bool = False
                ) -> list[tuple[int, dict[str, Any]]]:
    """(byte offset of the line, record) of each ``event`` of ``kind``, oldest first. Only
    the lines whose head names such a kind are decoded (an event line is short and its kind
    comes in its first bytes; messages and checkpoints, the bulk of the file, are neither
    decoded nor searched): a day-long session's file holds tens of MB, and decoding every
    line made each look at its compaction history cost a second. Torn or corrupt lines are
    skipped (the view's reader reports them)."""
    name = re.escape(kind.encode())
    marker = re.compile(rb'"kind"\s*:\s*"' + name + (rb"" if prefix else rb'"'))
    events = []
    handle.seek(0)
    at = 0
    for line in handle:
        here, at = at, at + len(line)
        if marker.search(line, 0, EVENT_HEAD) is None:
            continue
        try:
            record = json.loads(line.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            continue
        if isinstance(record, dict) and record.get("type") == "event" and (
                str(record.get("kind", "")).startswith(kind) if prefix
                else record.get("kind") == kind):
            events.append((here, record))
    return events


def read_view_before(handle: BinaryIO, offset: int) -> LedgerScan:
    """The view as it stood just before the line at ``offset``: read from the last full
    checkpoint before it when there is one (every reference after a full checkpoint
    resolves from there, as for a resume), else from the top."""
    reader = LedgerReader(handle, offset)
    start = find_last_full(handle, offset)
    if start is not None:
        scan = reader.read(LedgerScan(size=offset, from_tail=True), start)
        if scan.full_offset == start and not scan.unresolved:
            return scan
    return reader.read(LedgerScan(size=offset), 0)


def first_record(handle: BinaryIO) -> dict[str, Any]:
    """The session record (first line), or {} when it cannot be read."""
    handle.seek(0)
    try:
        record = json.loads(handle.readline(1 << 20).decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return {}
    return record if isinstance(record, dict) else {}


def read_ledger(handle: BinaryIO, *, tail: bool = True,
                stop: Callable[[dict[str, Any]], bool] | None = None) -> LedgerScan:
    """The ledger's view and state; from its last full checkpoint when ``tail`` and the file
    allows it, else (or when that read hit a reference it cannot resolve) from the top."""
    handle.seek(0, os.SEEK_END)
    size = handle.tell()
    reader = LedgerReader(handle, size)
    if tail and stop is None:
        offset = find_last_full(handle, size)
        if offset is not None:
            head = first_record(handle)
            scan = LedgerScan(size=size, from_tail=True, project=_text(head.get("project")),
                              created=_text(head.get("created")),
                              title=_text(head.get("title")))
            reader.read(scan, offset)
            if scan.full_offset == offset and not scan.unresolved:
                return scan
    return reader.read(LedgerScan(size=size), 0, stop)


@dataclass(frozen=True)
class LedgerSummary:
    """What `sessions` shows, read without parsing the whole file."""

    head: dict[str, Any]
    message_count: int
    title: str | None


def summarise(handle: BinaryIO) -> LedgerSummary:
    """Session record, message count and title: from the last full checkpoint's ``state``
    (only its head is parsed) plus the lines after it, or the whole file for schema 1.
    Only the first bytes of each line are looked at, except for title lines."""
    handle.seek(0, os.SEEK_END)
    size = handle.tell()
    head = first_record(handle)
    title = _text(head.get("title"))
    count = 0
    start = 0
    offset = find_last_full(handle, size)
    if offset is not None:
        state = _full_state(handle, offset)
        if state is not None:
            count = state["messages"] if type(state.get("messages")) is int else 0
            title = _text(state.get("title")) or title
            start = offset
    handle.seek(start)
    carry = b""
    while block := handle.read(1 << 20):
        lines = (carry + block).split(b"\n")
        # a line is only looked at by its head (a title line is short): a line without end
        # (a file a crash left full of zeros) was carried whole and copied again with every
        # block, a gigabyte of it more than the memory a listing of sessions has
        carry = lines.pop()[:MAX_CARRIED]
        for line in lines:
            count, title = _tally(line, count, title)
    if carry.rstrip().endswith(b"}"):  # a last line without its newline, but complete
        count, title = _tally(carry, count, title)
    return LedgerSummary(head, count, title)


MAX_CARRIED = 1 << 20
"""Bytes of an unfinished line kept while the next block is read (see :func:`summarise`)."""
_MESSAGE_HEAD = re.compile(rb'"type"\s*:\s*"message"')
_TITLE_HEAD = re.compile(rb'"kind"\s*:\s*"title"')


def _tally(line: bytes, count: int, title: str | None) -> tuple[int, str | None]:
    head = line[:160]
    if _MESSAGE_HEAD.search(head):
        return count + 1, title
    if _TITLE_HEAD.search(head):
        try:
            found = json.loads(line).get("title")
        except (ValueError, AttributeError, RecursionError):
            return count, title
        return count, _text(found) or title
    return count, title


def _full_state(handle: BinaryIO, offset: int) -> dict[str, Any] | None:
    """The ``state`` of the full checkpoint at ``offset``, parsed from the line's head (the
    keys before ``messages`` are small; the messages are never read)."""
    handle.seek(offset)
    head = handle.read(1 << 16)
    cut = head.find(MESSAGES_KEY)
    if cut < 0:
        return None
    try:
        record = json.loads(head[:cut] + b"}")
    except (ValueError, RecursionError):  # a damaged line nested 60,000 deep
        return None
    state = record.get("state") if isinstance(record, dict) else None
    return state if isinstance(state, dict) else None
