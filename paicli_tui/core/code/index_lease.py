"""One indexer at a time for an index on S3-compatible storage: a lease object in the bucket.

A local index has a lock file beside it; machines sharing an ``s3://`` index share no file
system, so the lock is an object beside the index (``s3://bucket/path/index.lock``), taken
with a conditional write that the store applies atomically:

- **take**: ``PUT`` with ``If-None-Match: *`` succeeds for exactly one writer; the others
  get HTTP 412 and wait (polling) for it to go;
- **keep**: the holder rewrites it every ``ttl / 4`` seconds with ``If-Match`` on its own
  ETag, so its age on the server's clock stays small while it is alive;
- **take over**: a lease not rewritten for ``ttl`` seconds (its holder died or lost the
  network) is replaced with ``If-Match`` on the stale ETag: of several waiters exactly one
  wins, the others go on waiting;
- **lost**: a holder whose rewrite is refused (someone took it over after it stalled past
  ``ttl``) stops writing at its next step: :meth:`IndexLease.check` raises.

Age is the server's ``Date`` minus the object's ``Last-Modified``, so the machines' clocks
do not matter.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .s3_requests import PreconditionFailed, S3Client, S3RequestError

log = logging.getLogger(__name__)

LEASE_TTL_S = 60.0
"""A lease not rewritten for this long is free to take over."""
WAIT_TIMEOUT_S = 600.0
"""Longest wait for another indexer (the local lock waits as long)."""
POLL_S = 1.0


class IndexLeaseError(RuntimeError):
    """The lease could not be taken, or was lost; the message says what to do."""


@dataclass(frozen=True)
class LeaseTarget:
    bucket: str
    key: str

    @classmethod
    def for_index(cls, uri: str) -> LeaseTarget | None:
        """The lease object beside an ``s3://`` index, None for any other location."""
        if not uri.startswith(("s3://", "s3a://")):
            return None
        rest = uri.split("://", 1)[1].strip("/")
        bucket, _, path = rest.partition("/")
        if not bucket or not path:
            raise IndexLeaseError(f"{uri}: an s3:// index needs a bucket and a path inside it")
        return cls(bucket, f"{path}.lock")


class IndexLease:
    """The lease on one remote index; a context manager like the local lock."""

    def __init__(self, target: LeaseTarget, env: Mapping[str, str] | None = None, *,
                 ttl_s: float = LEASE_TTL_S, timeout_s: float = WAIT_TIMEOUT_S,
                 poll_s: float = POLL_S,
                 on_wait: Callable[[str], None] | None = None) -> None:
        self.target = target
        self.client = S3Client(target.bucket, os.environ if env is None else env)
        self.ttl_s = ttl_s
        self.timeout_s = timeout_s
        self.poll_s = poll_s
        self.on_wait = on_wait
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.took_over: str = ""
        """The owner of a stale lease this one replaced ("" when it was free)."""
        self._etag = ""
        self._kept = 0.0
        self._lost = ""
        self._stop = threading.Event()
        self._keeper: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def where(self) -> str:
        return f"s3://{self.target.bucket}/{self.target.key}"

    def _body(self) -> bytes:
        return json.dumps({"owner": self.owner, "ttl_s": self.ttl_s,
                           "written": time.time()}).encode()

    # -- taking -------------------------------------------------------------------------------
    def acquire(self) -> None:
        try:
            self._take()
            self._kept = time.monotonic()
        except S3RequestError as exc:
            self.client.close()
            raise IndexLeaseError(f"could not take the index lease {self.where}: {exc}") from exc
        except BaseException:  # waited too long, no keys, interrupted: nothing is held
            self.client.close()
            raise
        self._keeper = threading.Thread(target=self._keep, name="index-lease", daemon=True)
        self._keeper.start()

    def _take(self) -> None:
        if not self.client.has_credentials:
            found = self.client.credentials.error
            raise IndexLeaseError(
                f"the index lease {self.where} needs AWS_ACCESS_KEY_ID and "
                "AWS_SECRET_ACCESS_KEY in the environment, in the AWS profile's shared "
                "credentials file, or a container's or EC2 instance role's credentials "
                "(the same keys the index uses)" + (f": {found}" if found else ""))
        deadline = time.monotonic() + self.timeout_s
        told = ""
        while True:
            try:
                self._etag = self.client.put(self.target.key, self._body(), if_none_match=True)
                break
            except PreconditionFailed:
                pass
            held = self.client.get(self.target.key)
            if held is None:
                continue  # released between the two requests: try again at once
            holder = _owner(held.body)
            if held.age_s > self.ttl_s:
                try:
                    self._etag = self.client.put(self.target.key, self._body(),
                                                 if_match=held.etag)
                except PreconditionFailed:
                    continue  # another waiter took it over first
                self.took_over = holder
                log.warning("took over the index lease %s from %s (not renewed for %.0f s)",
                            self.where, holder, held.age_s)
                break
            if time.monotonic() > deadline:
                raise IndexLeaseError(
                    f"another indexer ({holder}) has held {self.where} for more than "
                    f"{self.timeout_s:.0f} s; try again later, or delete that object if no "
                    "indexer is running")
            if holder != told and self.on_wait is not None:
                self.on_wait(holder)
                told = holder
            time.sleep(self.poll_s)

    # -- keeping ------------------------------------------------------------------------------
    def _keep(self) -> None:
        while not self._stop.wait(self.ttl_s / 4):
            if not self.renew():
                return

    def renew(self) -> bool:
        """Rewrite the lease on its own ETag (the keeper thread does this every ttl / 4);
        False once it is lost."""
        with self._lock:
            if self._lost:
                return False
            try:
                self._etag = self.client.put(self.target.key, self._body(), if_match=self._etag)
                self._kept = time.monotonic()
            except PreconditionFailed:
                self._lost = "another indexer took it over"
            except S3RequestError as exc:  # a network hiccup: the next round retries
                log.warning("could not renew the index lease %s: %s", self.where, exc)
                if time.monotonic() - self._kept > self.ttl_s:
                    self._lost = f"not renewed for {self.ttl_s:.0f} s ({exc})"
            return not self._lost

    def check(self) -> None:
        """Raise IndexLeaseError when the lease was lost (call before each write)."""
        if self._lost:
            raise IndexLeaseError(
                f"the index lease {self.where} was lost ({self._lost}); this indexer stopped "
                "writing: run `paicli-tui index` again")

    # -- giving back --------------------------------------------------------------------------
    def release(self) -> None:
        self._stop.set()
        if self._keeper is not None:
            self._keeper.join(timeout=30)
        try:
            with self._lock:
                held = None if self._lost else self.client.get(self.target.key)
                if held is not None and held.etag == self._etag:
                    self.client.delete(self.target.key)
        except S3RequestError as exc:  # it expires by itself after ttl
            log.warning("could not release the index lease %s: %s", self.where, exc)
        finally:
            self.client.close()

    def __enter__(self) -> IndexLease:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _owner(body: bytes) -> str:
    try:
        return str(json.loads(body.decode("utf-8"))["owner"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return "an unknown indexer"
