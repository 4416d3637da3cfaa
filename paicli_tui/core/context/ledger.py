"""The session ledger (behaviour §7): an append-only JSONL record of everything said.

``PAICLI_HOME/history/raw/<session>.jsonl`` is never rewritten. Each line is one record with a
``schema_version`` and a ``type``: ``session`` (first line: project, created, title),
``message`` (every message sent or received), ``event`` (title, compaction, usage...) and the
records of the view the model sees. Schema 2 (written now) records what changed: a message
joins the view (an append implies its checkpoint), a ``view_change`` lists the splices of a
rewrite (what it replaced, by what), and a full ``view_checkpoint`` with every message inline
is written when the bytes since the last one reach twice its size (at least 256 KiB), so the
file stays linear in the session and resume reads only from the last full checkpoint. Schema
1 files (a full checkpoint after every change) are still read; see :mod:`.ledger_read`.

Every record is written with a single ``write()`` on an ``O_APPEND`` descriptor, so a crash
(even SIGKILL) can tear at most the last line; readers skip a torn or corrupt line and say so.
One process writes a session at a time (:mod:`.ledger_claim`).
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from ...paths import HomePaths, normalise_project_root, stored_project_forms
from ...private_files import write_private
from ..messages import Message, Role
from . import ledger_claim
from .ledger_read import (
    SCHEMA_VERSION,
    LedgerScan,
    NotRegular,
    find_events,
    open_regular,
    read_events,
    read_ledger,
    read_view_before,
    summarise,
)
from .ledger_splices import view_splices
from .pairing import repair_pairing

TITLE_CHARS = 60
FULL_MIN_BYTES = 256 * 1024
FULL_FACTOR = 2
SUBAGENT_MARK = ".sub-"
"""Sub-agent streams are named ``<parent>.sub-<n>``."""
_SESSION_ID = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9_.-]{0,127}\Z")


class LedgerError(Exception):
    """A ledger cannot be opened (unknown session, bad id). The message is safe to show."""


class LedgerBusy(LedgerError):
    """Another process has the session open for writing."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _title_from(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= TITLE_CHARS else flat[: TITLE_CHARS - 1] + "…"


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _dumps(record: dict[str, Any]) -> bytes:
    # surrogates (undecodable tool output) must not make the append fail
    return (_json(record) + "\n").encode("utf-8", "replace")


def _same(a: Message | None, b: Message) -> bool:
    return a is b or (a is not None and a == b)


def _check_types(message: Message) -> None:
    """TypeError for a record that parsed but holds the wrong kinds of values (a hand-edited
    or foreign ledger): such a message would fail later, in the estimate or on the wire."""
    texts = [message.content, message.id,
             *(part for call in message.tool_calls
               for part in (call.id, call.name, call.arguments))]
    optional = [message.tool_call_id, message.name, message.reasoning]
    if not all(isinstance(t, str) for t in texts) or \
            not all(t is None or isinstance(t, str) for t in optional):
        raise TypeError("a field has the wrong type")


def _message_from(record: dict[str, Any]) -> Message:
    message = Message.from_record(record)
    _check_types(message)
    return message


@dataclass(frozen=True)
class RestoredSession:
    """What a ledger holds: the view to continue from, and what was odd about the file."""

    session_id: str
    messages: list[Message]
    warnings: list[str]
    title: str | None
    project: str | None
    created: str | None = None
    external_content_used: bool = False
    """Some tool result of the session (even one compacted away since) came from outside
    the project: the behaviour §16 guard stays on after a resume."""


@dataclass(frozen=True)
class SessionInfo:
    session_id: str
    title: str | None
    created: str | None
    updated: str
    project: str | None
    message_count: int

    def updated_here(self) -> str:
        """When the session was last written, as the day and minute in the person's own time
        zone (the ledger keeps UTC; sessions of one morning all read the same day); the stamp
        as it is when it does not parse."""
        try:
            return datetime.fromisoformat(self.updated).astimezone().strftime("%Y-%m-%d %H:%M")
        except ValueError:
            return self.updated

    def to_json(self) -> dict[str, Any]:
        return {"session": self.session_id, "title": self.title, "created": self.created,
                "updated": self.updated, "project": self.project,
                "message_count": self.message_count}


LAUNCH_EVENTS = frozenset({"model", "mcp_server"})
"""Events that alone do not give a deferred session its file: the model every launch names,
and an MCP server failing or restarted before anything was said."""


class SessionLedger:
    """Append-only writer and reader of one session's ledger file."""

    full_min_bytes = FULL_MIN_BYTES  # tests lower it to exercise many full checkpoints

    def __init__(self, home: HomePaths, session_id: str) -> None:
        if not _SESSION_ID.match(session_id) or ".." in session_id:
            raise LedgerError(f"not a valid session id: {session_id!r}")
        self.home = home
        self.session_id = session_id
        self.path: Path = home.session_ledger(session_id)
        self.lock_path: Path = self.path.with_suffix(".lock")
        self.title: str | None = None
        # The view a reader rebuilds from the file as written so far (None: a message the
        # reader cannot rebuild), so a change is recorded as splices of it.
        self._view: list[Message | None] = []
        # message id -> the Message a ``{"ref": id}`` written now resolves to (only messages
        # at or after the last full checkpoint, so a read from there resolves every ref)
        self._logged: dict[str, Message] = {}
        self._count = 0
        self._external = False
        self._since_full: float = math.inf  # bytes since the last full checkpoint ended
        self._full_bytes = 0
        self._claimed = False
        self._restored: RestoredSession | None = None
        self._pending: bytearray | None = None
        """A deferred session's records, kept here until its first message (no file yet)."""

    # -- opening -----------------------------------------------------------------------------
    @classmethod
    def create(cls, home: HomePaths, project_root: Path, title: str | None = None, *,
               parent: str | None = None, session_id: str | None = None,
               deferred: bool = False) -> SessionLedger:
        """A new session ledger, claimed by this process, whose first line records project,
        creation time and title (and the parent session of a sub-agent's stream).

        ``deferred``: nothing reaches the disk until the first message that is not the system
        prompt (a launch closed without a word leaves no session behind); until then the
        records are kept in memory and read from there."""
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        ledger = cls(home, session_id or f"{stamp}-{uuid.uuid4().hex[:6]}")
        if deferred:
            ledger._pending = bytearray()
        else:
            ledger.path.parent.mkdir(parents=True, exist_ok=True)
            ledger.claim()
        ledger.title = _title_from(title) if title else None
        ledger._write({"type": "session", "session_id": ledger.session_id,
                       "project": str(normalise_project_root(project_root)),
                       "created": _now(), "title": ledger.title,
                       **({"parent": parent} if parent else {})})
        return ledger

    @classmethod
    def open(cls, home: HomePaths, session_id: str, *, claim: bool = False) -> SessionLedger:
        """An existing ledger, read (from its last full checkpoint) and ready to append; a
        torn last line is closed off first. ``claim``: this process will write to it, so
        refuse (LedgerBusy) when another process has it open."""
        ledger = cls(home, session_id)
        if not ledger.path.exists():
            raise LedgerError(f"no session {session_id!r} in {home.history_raw_dir}")
        if claim:
            ledger.claim()
        try:
            ledger._load()
        except BaseException:
            ledger.close()
            raise
        return ledger

    @property
    def written(self) -> bool:
        """The ledger has a file (a deferred one gets it with its first message)."""
        return self._pending is None

    def _write_pending(self) -> None:
        """Give a deferred session its file: claim it, then write what was kept so far."""
        assert self._pending is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.claim()
        kept, self._pending = bytes(self._pending), None
        write_private(self.path, kept, append=True, exclusive=True)

    def claim(self) -> None:
        """Become the one writer of this session (LedgerBusy if another process is)."""
        if self._claimed:
            return
        try:
            ledger_claim.claim(self.lock_path)
        except ledger_claim.SessionBusy as busy:
            who = f" (pid {busy.pid})" if busy.pid and busy.pid.isdigit() else ""
            raise LedgerBusy(
                f"session {self.session_id} is open in another paicli-tui process{who}; "
                "close it there first, or start a new session") from None
        self._claimed = True

    def close(self) -> None:
        """Give up the claim (the file stays as it is; reading still works)."""
        if self._claimed:
            self._claimed = False
            ledger_claim.release(self.lock_path)

    def _open_for_reading(self) -> BinaryIO:
        """The file, or a deferred session's records kept in memory."""
        if self._pending is not None:
            return io.BytesIO(bytes(self._pending))
        return open_regular(self.path)

    def _load(self) -> None:
        try:
            with self._open_for_reading() as handle:
                handle.seek(0, os.SEEK_END)
                size = handle.tell()
                torn = False
                if size:
                    handle.seek(size - 1)
                    torn = handle.read(1) != b"\n"
                scan = read_ledger(handle)
        except NotRegular:
            raise LedgerError(f"session {self.session_id!r} is not a regular file") from None
        except OSError as exc:
            raise LedgerError(f"cannot read {self.path}: {exc.strerror}") from None
        if torn:
            # Without this newline our next record would be glued to the torn fragment and
            # become unreadable too.
            self._append_bytes(b"\n")
        self._adopt(scan)

    def _adopt(self, scan: LedgerScan) -> None:
        """Take the writer's state from what a reader found."""
        rebuilt: list[Message | None] = []
        for record in scan.view:
            try:
                rebuilt.append(_message_from(record))
            except (KeyError, ValueError, TypeError, AttributeError) as exc:
                rebuilt.append(None)
                scan.warnings.append(f"a message could not be read ({type(exc).__name__}); "
                                     "it is left out")
        self._view = rebuilt
        self._logged = {}
        for record, message in zip(scan.view, rebuilt, strict=True):
            if message is not None and not message.images \
                    and scan.latest.get(message.id) is record:
                self._logged[message.id] = message
        self._count = scan.message_count
        self._external = scan.external_content_used
        self.title = scan.title
        if scan.from_tail and scan.full_offset is not None:
            self._full_bytes = scan.full_bytes
            self._since_full = scan.size - scan.full_offset - scan.full_bytes
        else:  # read from the top: the next checkpoint is a full one (refs stay resolvable)
            self._since_full = math.inf
        messages, notes = repair_pairing([m for m in rebuilt if m is not None])
        scan.warnings.extend(f"repaired: {note}" for note in notes)
        self._restored = RestoredSession(self.session_id, messages, scan.warnings, scan.title,
                                         scan.project, scan.created, scan.external_content_used)

    # -- writing -----------------------------------------------------------------------------
    def _append_bytes(self, data: bytes) -> None:
        if self._pending is not None:
            self._pending += data
            self._since_full += len(data)
            return
        write_private(self.path, data, append=True)
        self._since_full += len(data)

    def _write(self, record: dict[str, Any]) -> None:
        self._append_bytes(_dumps({"schema_version": SCHEMA_VERSION, "type": record.pop("type"),
                                   "ts": _now(), **record}))

    def append(self, message: Message) -> None:
        """Record one message sent or received; it joins the view (and the session title is
        taken from the first real user message). A deferred session's file is written with
        its first message after the system prompt."""
        self._write({"type": "message", "message": message.to_record()})
        if self._pending is not None and message.role is not Role.SYSTEM:
            self._write_pending()
        self._view.append(message)
        self._count += 1
        if message.meta.get("external"):
            self._external = True
        if not message.images:
            self._logged[message.id] = message
        if self.title is None and message.is_real_user_turn and message.content.strip():
            self.title = _title_from(message.content)
            self.event("title", title=self.title)

    def _entry(self, message: Message) -> str:
        """A message of a view change: a ref when the reader already has it."""
        if _same(self._logged.get(message.id), message):
            return '{"ref":' + _json(message.id) + "}"
        if not message.images:
            self._logged[message.id] = message
        return _json(message.to_record(strip_images=True))

    def checkpoint(self, messages: Sequence[Message], reason: str) -> None:
        """The model now sees ``messages`` (images stripped): record what changed since the
        view last recorded (nothing at all after a plain append), or a full checkpoint when
        one is due."""
        new = list(messages)
        if self._since_full >= max(self.full_min_bytes, FULL_FACTOR * self._full_bytes):
            self._write_full(new, reason)
            return
        splices = view_splices(self._view, new, _same)
        base = len(self._view)
        self._view = list(new)
        if not splices:
            return
        body = ",".join(f"[{start},{end},[{','.join(self._entry(m) for m in entries)}]]"
                        for start, end, entries in splices)
        head = _json({"schema_version": SCHEMA_VERSION, "type": "view_change", "ts": _now(),
                      "reason": reason, "base": base})
        self._append_bytes(f'{head[:-1]},"splices":[{body}]}}\n'.encode("utf-8", "replace"))

    def _write_full(self, view: list[Message], reason: str) -> None:
        state = {"messages": self._count, "title": self.title,
                 "external_content_used": self._external}
        head = _json({"schema_version": SCHEMA_VERSION, "type": "view_checkpoint",
                      "ts": _now(), "reason": reason, "full": True, "state": state})
        body = ",".join(_json(m.to_record(strip_images=True)) for m in view)
        line = f'{head[:-1]},"messages":[{body}]}}\n'.encode("utf-8", "replace")
        self._append_bytes(line)
        self._since_full, self._full_bytes = 0, len(line)
        self._view = list(view)
        self._logged = {m.id: m for m in view if not m.images}

    def clear_external_mark(self) -> None:
        """/clear took the outside content out of the view: resume must not restore the mark."""
        self._external = False
        self.event("external_cleared")

    def event(self, kind: str, **data: object) -> None:
        """Record a session event (compaction, usage, model change...). A deferred session's
        file is written with its first event that is not part of a launch (a plan started
        from an empty chat has events before any message)."""
        reserved = ("type", "kind", "ts", "schema_version")
        clean = {f"data_{k}" if k in reserved else k: v for k, v in data.items()}
        self._write({"type": "event", "kind": kind, **clean})
        if self._pending is not None and kind not in LAUNCH_EVENTS:
            self._write_pending()

    # -- reading -----------------------------------------------------------------------------
    def restore(self) -> RestoredSession:
        """The view as last recorded, repaired so a provider accepts it; torn or corrupt
        lines are skipped and listed in ``warnings``."""
        if self._restored is None:
            self._load()
        assert self._restored is not None
        restored, self._restored = self._restored, None  # a second call reads again
        return restored

    def compaction_history(self) -> list[dict]:
        """Every compaction event (failed attempts included), oldest first (only the lines
        that name a compaction are parsed)."""
        try:
            with self._open_for_reading() as handle:
                return read_events(handle, "compaction")
        except OSError as exc:
            raise LedgerError(f"cannot read {self.path}: {exc.strerror or exc}") from None

    def unanswered_reasons(self) -> dict[str, str]:
        """Why a message of the person's got no reply, by its id: the provider's error, or
        "cancelled" (only events that name their turn; the last one wins)."""
        try:
            with self._open_for_reading() as handle:
                found = (find_events(handle, "request_failed")
                         + find_events(handle, "turn_cancelled"))
        except OSError as exc:
            raise LedgerError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        return {str(event["turn"]): str(event.get("detail") or "cancelled")
                for _, event in sorted(found, key=lambda pair: pair[0]) if event.get("turn")}

    def checkpoint_before_last_compaction(self) -> list[Message] | None:
        """The view as it was just before the most recent compaction event (None if there
        was none): what an 'undo compaction' would go back to. Read from the last full
        checkpoint before that event, not from the top of the file."""
        try:
            with self._open_for_reading() as handle:
                found = [offset for offset, event in find_events(handle, "compaction")
                         if _changed_view(event)]
                if not found:
                    return None
                scan = read_view_before(handle, found[-1])
        except OSError as exc:
            raise LedgerError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        messages = []
        for record in scan.view:
            try:
                messages.append(_message_from(record))
            except (KeyError, ValueError, TypeError, AttributeError):
                continue
        return repair_pairing(messages)[0]


def _changed_view(event: dict[str, Any]) -> bool:
    """A compaction event that changed the view (a failed attempt did not)."""
    return event.get("changed") is not False


def _session_info(path: Path) -> SessionInfo | None:
    """What `sessions` lists for one ledger, or None for a file that is not a readable
    ledger (a FIFO or a device link is never opened for reading, so it cannot hang this).
    Fields of the wrong type in a hand-edited file are shown as unknown, never passed on."""
    if not _SESSION_ID.match(path.stem) or ".." in path.stem:
        return None
    try:
        with open_regular(path) as handle:
            mtime = os.fstat(handle.fileno()).st_mtime
            summary = summarise(handle)
    except OSError:
        return None
    head = summary.head

    def text(value: object) -> str | None:
        return value if isinstance(value, str) else None

    title = text(head.get("title")) or summary.title
    updated = datetime.fromtimestamp(mtime, UTC).isoformat(timespec="milliseconds")
    return SessionInfo(
        session_id=path.stem,
        title=_title_from(title) if title else None,
        created=text(head.get("created")),
        updated=updated,
        project=text(head.get("project")),
        message_count=summary.message_count,
    )


def _without_a_word(path: Path, info: SessionInfo) -> bool:
    """No message, or a single one that is the system prompt (read only then: such a file
    is small)."""
    if info.message_count == 0:
        return True
    if info.title is not None or info.message_count > 1:
        return False
    try:
        with open_regular(path) as handle:
            lines = handle.read(1 << 22).splitlines()
    except OSError:
        return False
    for line in lines:
        try:
            record = json.loads(line)
            if record.get("type") == "message" and record["message"]["role"] != "system":
                return False
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            continue
    return True


def session_project(home: HomePaths, session_id: str) -> str | None:
    """The project folder session ``session_id`` was started in, as its ledger's first line
    records it; None when that is not known (no such ledger, or one that does not say)."""
    try:
        with open_regular(home.session_ledger(session_id)) as handle:
            head = json.loads(handle.readline(1 << 20))
    except (OSError, ValueError, RecursionError):
        return None
    project = head.get("project") if isinstance(head, dict) else None
    return project if isinstance(project, str) and project else None


def is_project_of(stored: str | None, project_root: Path) -> bool:
    """True when a session's recorded project is ``project_root`` (or it records none: an
    older ledger, resumable anywhere as before)."""
    if not stored:
        return True
    return stored in stored_project_forms(str(normalise_project_root(project_root)))


def list_sessions(home: HomePaths, project_root: Path | None = None, *,
                  include_empty: bool = False) -> list[SessionInfo]:
    """Sessions in the ledger folder, newest activity first; only those of ``project_root``
    when it is given. Sessions without a word from the person are left out unless
    ``include_empty``: there is nothing in them to resume (a launch no longer writes a file
    before its first message, but older versions left one holding only the system prompt)."""
    folder = home.history_raw_dir
    if not folder.is_dir():
        return []
    wanted = str(normalise_project_root(project_root)) if project_root is not None else None
    infos = []
    for path in folder.glob("*.jsonl"):
        if SUBAGENT_MARK in path.stem:
            continue  # a sub-agent's stream: it is resumed with its parent, not on its own
        info = _session_info(path)
        if info is None or (wanted is not None and info.project != wanted
                            and info.project not in stored_project_forms(wanted)):
            continue
        if not include_empty and _without_a_word(path, info):
            continue
        infos.append(info)
    infos.sort(key=lambda i: (i.updated, i.created or ""), reverse=True)
    return infos
