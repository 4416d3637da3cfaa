"""The canonical forms of stored memories, kept beside the store between processes.

A save checks the new fact against every stored memory (behaviour §12), which needs each
memory's canonical form, version skeleton and bigram signature. Computing them for 10,000
memories is most of a save in a fresh process, so they are kept in
``long_term_memory.json.forms.jsonl`` (0600, like the store): one JSON line per memory text,
keyed by a digest of the text, so an edited memory simply misses and a removed one is dropped
when the file is compacted. The first line names the rule that produced the forms (a digest of
``canonical.py`` and the Unicode version): when the rule changes, every line is ignored.

The cache is only ever a shortcut: a line that does not parse, a digest that does not match
or a missing file all mean "compute the forms", never a different answer.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import logging
import os
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from ...private_files import write_private
from . import canonical as canonical_module
from .canonical import SIGNATURE_BUCKETS, Forms, has_digit
from .entry import MemoryEntry

log = logging.getLogger(__name__)


def _rule() -> str:
    try:
        source = Path(canonical_module.__file__).read_bytes()
    except OSError:  # no source next to the code: a name that no other build shares
        source = repr(canonical_module.__dict__.get("__cached__")).encode()
    digest = hashlib.blake2b(source, digest_size=8).hexdigest()
    return f"{digest}/unicode-{unicodedata.unidata_version}/buckets-{SIGNATURE_BUCKETS}"


RULE = _rule()


def _file_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def text_key(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


_KEY = "forms_key"
"""Where an entry keeps the digest of its text once computed (entries are immutable)."""


def _key_of(entry: MemoryEntry) -> str:
    key = entry.__dict__.get(_KEY)
    if key is None:
        key = entry.__dict__[_KEY] = text_key(entry.content)
    return key


def _row(key: str, form: Forms) -> list:
    """One text's line: [digest, canonical, skeleton or null when equal, total, repeats,
    signature in base64]."""
    skeleton = None if form.skeleton == form.canonical else form.skeleton
    return [key, form.canonical, skeleton, form.total, form.repeats,
            base64.b64encode(form.signature).decode("ascii")]


class FormsCache:
    """Forms of memory texts by digest, read from and appended to one sidecar file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._known: dict[str, list] = {}
        self._lines = 0
        self._loaded_from: tuple[int, int, int] | None = None
        self._file_digest: str | None = None
        """Digest of the store file as last written with this cache (see :meth:`proves`)."""

    def _load(self) -> None:
        try:
            info = os.stat(self.path)
        except OSError:
            self._known, self._lines, self._loaded_from = {}, 0, None
            return
        key = (info.st_ino, info.st_mtime_ns, info.st_size)
        if key == self._loaded_from:
            return
        self._known, self._lines, self._loaded_from = {}, 0, key
        self._file_digest = None
        try:
            with open(self.path, encoding="utf-8") as handle:
                lines = handle.read().splitlines()
        except (OSError, UnicodeDecodeError):
            return
        if not lines or lines[0] != json.dumps({"rule": RULE}):
            return
        body = lines[1:]
        try:
            rows = json.loads("[" + ",".join(body) + "]")
        except (ValueError, RecursionError):  # a torn last line (another process crashed
            # mid-append), or a damaged one nested too deep to parse: line by line
            rows = []
            for line in body:
                try:
                    rows.append(json.loads(line))
                except (ValueError, RecursionError):
                    continue
        self._known = {row[0]: row for row in rows if type(row) is list and len(row) == 6
                       and type(row[0]) is str}
        digests = [row[1] for row in rows if type(row) is list and len(row) == 2
                   and row[0] == "file"]
        self._file_digest = digests[-1] if digests else None
        self._lines = len(body)

    def attach(self, entries: Iterable[MemoryEntry]) -> int:
        """Give each entry whose text is in the cache its forms (no computing); the number
        of entries that got them."""
        self._load()
        found = 0
        for entry in entries:
            if "forms" in entry.__dict__:
                continue
            key = text_key(entry.content)
            row = self._known.get(key)
            if row is None:
                continue
            try:
                _, canonical, skeleton, total, repeats, signature = row
                raw = binascii.a2b_base64(signature)
                if len(raw) != SIGNATURE_BUCKETS:
                    continue
                form = Forms(entry.content, canonical,
                             canonical if skeleton is None else skeleton,
                             has_digit(entry.content), int(total), int(repeats), raw)
            except (TypeError, ValueError, binascii.Error):
                continue
            entry.__dict__["forms"] = form  # MemoryEntry.forms is a cached property
            entry.__dict__[_KEY] = key
            found += 1
        return found

    def proves(self, data: bytes) -> bool:
        """True when ``data`` is exactly the store file as written by this program (its
        digest was recorded with the write): its bytes are then what the entries it holds
        serialise to, so a save may append to them instead of serialising every entry."""
        self._load()
        return self._file_digest is not None and self._file_digest == _file_digest(data)

    def record(self, entries: list[MemoryEntry], written: bytes | None = None) -> None:
        """Keep the forms the entries computed, and the digest of the file just ``written``
        (callers hold the store's file lock). Appends the new ones; rewrites the file when it
        holds many texts no longer stored."""
        self._load()
        new = [(_key_of(e), e.forms) for e in entries if "forms" in e.__dict__]
        fresh = [(key, form) for key, form in new if key not in self._known]
        if not fresh and written is None and self._lines <= 2 * len(entries) + 100:
            return
        digest = _file_digest(written) if written is not None else None
        stamp = json.dumps(["file", digest]) + "\n" if digest else ""
        try:
            if self._lines > 2 * len(entries) + 100 or self._loaded_from is None \
                    or not self._known:
                rows = {key: _row(key, form) for key, form in new}
                self._replace(json.dumps({"rule": RULE}) + "\n"
                              + "".join(json.dumps(r, ensure_ascii=False) + "\n"
                                        for r in rows.values()) + stamp)
                self._known, self._lines = rows, len(rows)
            else:
                rows = {key: _row(key, form) for key, form in fresh}
                self._append("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                     for r in rows.values()) + stamp)
                self._known.update(rows)
                self._lines += len(rows)
            self._lines += 1 if digest else 0
            self._file_digest = digest or self._file_digest
            # what is in memory now is what the file holds (writers hold the store's lock)
            info = os.stat(self.path)
            self._loaded_from = (info.st_ino, info.st_mtime_ns, info.st_size)
        except OSError as exc:  # only a shortcut: a save never fails for it
            log.warning("could not keep memory forms in %s: %s", self.path, exc)
            self._loaded_from = None

    def _append(self, text: str) -> None:
        _write_all(self.path, os.O_APPEND, text)

    def _replace(self, text: str) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        _write_all(tmp, os.O_TRUNC, text)
        os.replace(tmp, self.path)


def _write_all(path: Path, mode: int, text: str) -> None:
    write_private(path, text.encode("utf-8", "surrogatepass"), append=mode == os.O_APPEND,
                  follow_symlinks=False)
