"""The session ledger (SPEC §7): an append-only JSONL record of everything said.

``PAICLI_HOME/history/raw/<session>.jsonl`` is never rewritten. Each line is one record with a
``schema_version`` and a ``type``: ``session`` (first line: project, created, title),
``message`` (every message sent or received), ``view_checkpoint`` (the full list the model
sees after a change of the history) and ``event`` (title, compaction, usage...).

Every record is written with a single ``write()`` on an ``O_APPEND`` descriptor, so a crash
(even SIGKILL) can tear at most the last line; readers skip a torn or corrupt line and say so.

Checkpoints store a message that was already written unchanged as ``{"ref": id}``: the file
stays linear in the length of the session instead of quadratic, and still holds the full view.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ...paths import HomePaths, normalise_project_root
from ..messages import Message
from .pairing import repair_pairing

SCHEMA_VERSION = 1
TITLE_CHARS = 60
_SESSION_ID = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9_.-]{0,127}\Z")


class LedgerError(Exception):
    """A ledger cannot be opened (unknown session, bad id). The message is safe to show."""


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
    the project: the SPEC §16 guard stays on after a resume."""


@dataclass(frozen=True)
class SessionInfo:
    session_id: str
    title: str | None
    created: str | None
    updated: str
    project: str | None
    message_count: int

    def to_json(self) -> dict[str, Any]:
        return {"session": self.session_id, "title": self.title, "created": self.created,
                "updated": self.updated, "project": self.project,
                "message_count": self.message_count}


@dataclass
class _Scan:
    """State while reading a ledger from the top."""

    warnings: list[str] = field(default_factory=list)
    title: str | None = None
    project: str | None = None
    created: str | None = None
    latest: dict[str, dict[str, Any]] = field(default_factory=dict)
    base: list[dict[str, Any]] = field(default_factory=list)
    after: list[dict[str, Any]] = field(default_factory=list)
    newer_warned: bool = False
    external_content_used: bool = False


class SessionLedger:
    """Append-only writer and reader of one session's ledger file."""

    def __init__(self, home: HomePaths, session_id: str) -> None:
        if not _SESSION_ID.match(session_id) or ".." in session_id:
            raise LedgerError(f"not a valid session id: {session_id!r}")
        self.home = home
        self.session_id = session_id
        self.path: Path = home.session_ledger(session_id)
        self.title: str | None = None
        # message id -> the exact Message object last written under that id (for refs)
        self._logged: dict[str, Message] = {}
        self._refs: dict[str, str] = {}  # message id -> its encoded checkpoint reference

    # -- opening -----------------------------------------------------------------------------
    @classmethod
    def create(cls, home: HomePaths, project_root: Path, title: str | None = None
               ) -> SessionLedger:
        """A new session ledger whose first line records project, creation time and title."""
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        ledger = cls(home, f"{stamp}-{uuid.uuid4().hex[:6]}")
        ledger.path.parent.mkdir(parents=True, exist_ok=True)
        ledger.title = _title_from(title) if title else None
        ledger._write({"type": "session", "session_id": ledger.session_id,
                       "project": str(normalise_project_root(project_root)),
                       "created": _now(), "title": ledger.title})
        return ledger

    @classmethod
    def open(cls, home: HomePaths, session_id: str) -> SessionLedger:
        """An existing ledger, ready to append (a torn last line is closed off first)."""
        ledger = cls(home, session_id)
        if not ledger.path.is_file():
            raise LedgerError(f"no session {session_id!r} in {home.history_raw_dir}")
        with ledger.path.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            if size:
                handle.seek(size - 1)
                torn = handle.read(1) != b"\n"
            else:
                torn = False
        if torn:
            # Without this newline our next record would be glued to the torn fragment and
            # become unreadable too.
            ledger._append_bytes(b"\n")
        ledger.title = ledger._scan().title
        return ledger

    # -- writing -----------------------------------------------------------------------------
    def _append_bytes(self, data: bytes) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)

    def _write(self, record: dict[str, Any]) -> None:
        self._append_bytes(_dumps({"schema_version": SCHEMA_VERSION, "type": record.pop("type"),
                                   "ts": _now(), **record}))

    def append(self, message: Message) -> None:
        """Record one message sent or received (and the session title on the first real
        user message)."""
        self._write({"type": "message", "message": message.to_record()})
        if not message.images:
            self._logged[message.id] = message
        if self.title is None and message.is_real_user_turn and message.content.strip():
            self.title = _title_from(message.content)
            self.event("title", title=self.title)

    def checkpoint(self, messages: Sequence[Message], reason: str) -> None:
        """Record the full view the model now sees (images stripped).

        Written after every change of the history, so it is built from pre-encoded pieces:
        a message already in the file costs one cached ``{"ref": id}`` string.
        """
        parts: list[str] = []
        for message in messages:
            if self._logged.get(message.id) is message:
                ref = self._refs.get(message.id)
                if ref is None:
                    ref = self._refs[message.id] = '{"ref":' + _json(message.id) + "}"
                parts.append(ref)
            else:
                parts.append(_json(message.to_record(strip_images=True)))
                if not message.images:
                    self._logged[message.id] = message
        head = _json({"schema_version": SCHEMA_VERSION, "type": "view_checkpoint",
                      "ts": _now(), "reason": reason})
        line = f'{head[:-1]},"messages":[{",".join(parts)}]}}\n'
        self._append_bytes(line.encode("utf-8", "replace"))

    def event(self, kind: str, **data: object) -> None:
        """Record a session event (compaction, usage, model change...)."""
        reserved = ("type", "kind", "ts", "schema_version")
        clean = {f"data_{k}" if k in reserved else k: v for k, v in data.items()}
        self._write({"type": "event", "kind": kind, **clean})

    # -- reading -----------------------------------------------------------------------------
    def _records(self, scan: _Scan) -> Iterator[tuple[int, dict[str, Any]]]:
        try:
            raw = self.path.read_bytes()
        except OSError as exc:
            raise LedgerError(f"cannot read {self.path}: {exc.strerror}") from None
        for number, line in enumerate(raw.split(b"\n"), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line.decode("utf-8", "replace"))
                if not isinstance(record, dict):
                    raise ValueError("not an object")
            except ValueError:
                scan.warnings.append(f"line {number}: unreadable record (torn or corrupt), "
                                     "skipped")
                continue
            version = record.get("schema_version")
            if isinstance(version, int) and version > SCHEMA_VERSION and not scan.newer_warned:
                scan.newer_warned = True
                scan.warnings.append(f"written by a newer paicli-tui (schema {version}); "
                                     "reading only what this version understands")
            yield number, record

    def _resolve(self, scan: _Scan, entries: object, number: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict):
                continue
            if "ref" in entry:
                target = scan.latest.get(str(entry["ref"]))
                if target is None:
                    scan.warnings.append(f"line {number}: checkpoint refers to a message that "
                                         "cannot be read; it is left out")
                    continue
                out.append(target)
            else:
                out.append(entry)
                if entry.get("id"):
                    scan.latest[str(entry["id"])] = entry
        return out

    def _scan(self, stop: Callable[[dict[str, Any]], bool] | None = None) -> _Scan:
        """Read the file top to bottom; ``stop(record)`` True ends the scan before it."""
        scan = _Scan()
        for number, record in self._records(scan):
            if stop is not None and stop(record):
                break
            kind = record.get("type")
            if kind == "session":
                scan.project = record.get("project")
                scan.created = record.get("created")
                scan.title = record.get("title") or scan.title
            elif kind == "message" and isinstance(record.get("message"), dict):
                message = record["message"]
                scan.after.append(message)
                meta = message.get("meta")
                if isinstance(meta, dict) and meta.get("external"):
                    scan.external_content_used = True
                if message.get("id"):
                    scan.latest[str(message["id"])] = message
            elif kind == "view_checkpoint":
                scan.base = self._resolve(scan, record.get("messages"), number)
                scan.after = []
            elif kind == "event" and record.get("kind") == "title":
                scan.title = record.get("title") or scan.title
        return scan

    def _messages(self, scan: _Scan) -> list[Message]:
        messages: list[Message] = []
        sources: dict[int, dict[str, Any]] = {}
        for record in [*scan.base, *scan.after]:
            try:
                message = Message.from_record(record)
                _check_types(message)
            except (KeyError, ValueError, TypeError, AttributeError) as exc:
                scan.warnings.append(f"a message could not be read ({type(exc).__name__}); "
                                     "it is left out")
                continue
            messages.append(message)
            sources[id(message)] = record
        repaired, notes = repair_pairing(messages)
        scan.warnings.extend(f"repaired: {note}" for note in notes)
        # A message rebuilt from the newest record of its id can be written as a ref again.
        for message in repaired:
            record = sources.get(id(message))
            if record is not None and scan.latest.get(message.id) is record \
                    and not message.images:
                self._logged[message.id] = message
        return repaired

    def restore(self) -> RestoredSession:
        """The last checkpoint plus every message appended after it, repaired so a provider
        accepts it; torn or corrupt lines are skipped and listed in ``warnings``."""
        scan = self._scan()
        messages = self._messages(scan)
        self.title = scan.title
        return RestoredSession(self.session_id, messages, scan.warnings, scan.title,
                               scan.project, scan.created, scan.external_content_used)

    def compaction_history(self) -> list[dict]:
        """Every compaction event, oldest first."""
        scan = _Scan()
        return [r for _, r in self._records(scan)
                if r.get("type") == "event" and r.get("kind") == "compaction"]

    def checkpoint_before_last_compaction(self) -> list[Message] | None:
        """The view as it was just before the most recent compaction event (None if there
        was none): what an 'undo compaction' would go back to."""
        events = self.compaction_history()
        if not events:
            return None
        remaining = [len(events)]

        def at_last_compaction(record: dict[str, Any]) -> bool:
            if record.get("type") == "event" and record.get("kind") == "compaction":
                remaining[0] -= 1
            return remaining[0] == 0

        return self._messages(self._scan(stop=at_last_compaction))


def _first_record(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            record = json.loads(handle.readline().decode("utf-8", "replace"))
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def _count_and_title(path: Path) -> tuple[int, str | None]:
    """Message records and the title event, read line by line in blocks (ledgers can be
    large; only the head of each line is inspected, except for the one title line)."""
    count, title, carry = 0, None, b""
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            lines = (carry + block).split(b"\n")
            carry = lines.pop()
            for line in lines:
                head = line[:160]
                if b'"type":"message"' in head:
                    count += 1
                elif title is None and b'"kind":"title"' in head:
                    try:
                        title = json.loads(line).get("title")
                    except (ValueError, AttributeError):
                        pass
    if b'"type":"message"' in carry[:160] and carry.rstrip().endswith(b"}"):
        count += 1  # a last line without its newline, but complete
    return count, title


def _session_info(path: Path) -> SessionInfo | None:
    head = _first_record(path)
    try:
        mtime = path.stat().st_mtime
        count, title_event = _count_and_title(path)
    except OSError:
        return None
    updated = datetime.fromtimestamp(mtime, UTC).isoformat(timespec="milliseconds")
    return SessionInfo(
        session_id=path.stem,
        title=head.get("title") or title_event,
        created=head.get("created"),
        updated=updated,
        project=head.get("project"),
        message_count=count,
    )


def list_sessions(home: HomePaths, project_root: Path | None = None, *,
                  include_empty: bool = False) -> list[SessionInfo]:
    """Sessions in the ledger folder, newest activity first; only those of ``project_root``
    when it is given. Sessions that never recorded a message (the app opened and closed) are
    left out unless ``include_empty``: there is nothing in them to resume."""
    folder = home.history_raw_dir
    if not folder.is_dir():
        return []
    wanted = str(normalise_project_root(project_root)) if project_root is not None else None
    infos = []
    for path in folder.glob("*.jsonl"):
        info = _session_info(path)
        if info is None or (wanted is not None and info.project != wanted):
            continue
        if info.message_count == 0 and not include_empty:
            continue
        infos.append(info)
    infos.sort(key=lambda i: (i.updated, i.created or ""), reverse=True)
    return infos
