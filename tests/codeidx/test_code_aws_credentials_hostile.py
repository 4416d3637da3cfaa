"""A metadata service that answers badly on purpose (or is broken) costs the index lease a
bounded wait and a bounded read, and its credentials are not fetched again on every request:
a body without end, one dripped a byte at a time, credentials already expired or about to,
and a container URI with a password in it (never repeated in an error)."""

from __future__ import annotations

import json
import socket
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from paicli_tui.core.code.aws_credentials import (
    MAX_ANSWER_BYTES,
    RETRY_AFTER_FAILURE_S,
    CredentialChain,
)


class RawServer:
    """A TCP server on 127.0.0.1 that answers every request with ``respond(connection)``
    and counts the bytes of body it got to send before the client hung up."""

    def __init__(self, respond) -> None:
        self.sent = 0
        self.requests = 0
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(8)
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        self._respond = respond
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            if self._stop:  # a connection that came as the server stopped
                connection.close()
                return
            self.requests += 1
            with connection:
                connection.recv(65536)
                try:
                    self._respond(self, connection)
                except OSError:  # the client hung up: what a bounded read does
                    pass

    def close(self) -> None:
        """Stop serving, and wait for the thread. A listening socket closed while a thread
        waits in accept() is not enough: that thread outlived the test and, once the number
        was given to another test's server, accepted that server's connections and sent a
        gigabyte of zeros into a later tmux trial's chat (its reply "cut" with nothing read).
        shutdown() wakes the accept()."""
        self._stop = True
        try:
            self._socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._socket.close()
        self._thread.join(timeout=30)
        assert not self._thread.is_alive(), "the raw server's thread did not stop"


def _headers(length: int) -> bytes:
    return f"HTTP/1.1 200 OK\r\nContent-Length: {length}\r\n\r\n".encode()


def _endless(server: RawServer, connection: socket.socket) -> None:
    connection.sendall(_headers(1 << 30))  # a gigabyte announced
    block = b"0" * 65536
    while server.sent < 1 << 30:
        connection.sendall(block)
        server.sent += len(block)


def _drip(server: RawServer, connection: socket.socket) -> None:
    connection.sendall(_headers(400))
    for _ in range(400):  # 40 s for the whole answer
        connection.sendall(b" ")
        server.sent += 1
        time.sleep(0.1)


@pytest.fixture
def raw_server():
    servers: list[RawServer] = []

    def start(respond) -> RawServer:
        servers.append(RawServer(respond))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def _env(tmp_path: Path, **more: str) -> dict[str, str]:
    return {"HOME": str(tmp_path), "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"),
            "AWS_CONFIG_FILE": str(tmp_path / "none"), "AWS_EC2_METADATA_DISABLED": "true",
            **more}


def test_an_answer_without_end_is_read_no_further_than_the_bound(
        raw_server, tmp_path: Path) -> None:
    server = raw_server(_endless)
    chain = CredentialChain(_env(tmp_path, AWS_CONTAINER_CREDENTIALS_FULL_URI=server.url + "/c",
                                 AWS_METADATA_SERVICE_TIMEOUT="5"))
    assert chain.get() is None
    assert chain.error == f"GET 127.0.0.1:{server.url.rsplit(':', 1)[1]}/c answered more " \
                          f"than {MAX_ANSWER_BYTES} bytes"
    # what was sent before the hang-up is the bound plus the sockets' buffers, not 1 GB
    assert server.sent < 64 * 1024 * 1024


def test_an_answer_dripped_a_byte_at_a_time_is_cut_off_at_the_timeout(
        raw_server, tmp_path: Path) -> None:
    """Each read gets a byte within the per-read timeout; the whole answer has one bound."""
    server = raw_server(_drip)
    chain = CredentialChain(_env(tmp_path, AWS_CONTAINER_CREDENTIALS_FULL_URI=server.url + "/c",
                                 AWS_METADATA_SERVICE_TIMEOUT="0.5"))
    assert chain.get() is None
    assert chain.error.endswith("/c failed: answer not read within 0.5 s")
    assert server.sent < 400


def _answering(expires: float):
    answer = json.dumps({
        "AccessKeyId": "ASIAEXPIRINGEXAMPLE1", "SecretAccessKey": "expiringSecret/Example01",
        "Token": "expiringSessionTokenExample0123",
        "Expiration": datetime.fromtimestamp(expires, UTC).strftime(
            "%Y-%m-%dT%H:%M:%SZ")}).encode()

    def respond(server: RawServer, connection: socket.socket) -> None:
        connection.sendall(_headers(len(answer)) + answer)

    return respond


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(("left_s", "found", "requests_after_five_gets"), [
    (3600, True, 1),  # fresh: cached
    (60, True, 1),  # used until they expire, fetched again no sooner than the retry pause
    (-60, False, 1),  # expired already: an error, asked again after the pause
])
def test_credentials_near_or_past_their_expiry_are_not_fetched_on_every_request(
        raw_server, tmp_path: Path, left_s: int, found: bool,
        requests_after_five_gets: int) -> None:
    now = 1_900_000_000.0
    server = raw_server(_answering(now + left_s))
    clock = Clock(now)
    chain = CredentialChain(_env(tmp_path, AWS_CONTAINER_CREDENTIALS_FULL_URI=server.url + "/c"),
                            clock=clock)
    results = [chain.get() for _ in range(5)]
    assert [r is not None for r in results] == [found] * 5
    assert server.requests == requests_after_five_gets
    if not found:
        assert chain.error == "the container credentials had expired when they were fetched"
    clock.now = now + RETRY_AFTER_FAILURE_S + 1
    chain.get()
    assert server.requests == requests_after_five_gets + (0 if left_s == 3600 else 1)


@pytest.mark.parametrize("uri", [
    "http://indexer:hunter2-pass@10.1.2.3/creds",  # refused host
    "http://indexer:hunter2-pass@127.0.0.1:1/creds",  # allowed host, nothing listening
])
def test_a_password_in_the_container_uri_is_never_repeated(tmp_path: Path, uri: str) -> None:
    chain = CredentialChain(_env(tmp_path, AWS_CONTAINER_CREDENTIALS_FULL_URI=uri,
                                 AWS_METADATA_SERVICE_TIMEOUT="0.3"))
    assert chain.get() is None
    assert chain.error and "hunter2" not in chain.error and "indexer" not in chain.error


@pytest.mark.parametrize("answer", [
    {"AccessKeyId": {"id": "ASIA"}, "SecretAccessKey": "s3cretValue0001"},
    {"AccessKeyId": "ASIAEXAMPLE", "SecretAccessKey": ["s3cretValue0001"]},
    {"AccessKeyId": "ASIAEXAMPLE", "SecretAccessKey": "s3cretValue0001", "Token": 12345},
    ["AccessKeyId", "SecretAccessKey"],
])
def test_credentials_that_are_not_text_are_refused(raw_server, tmp_path: Path,
                                                  answer: object) -> None:
    """Before, str() made a key of whatever the fields held ("{'id': 'ASIA'}"), and S3 then
    refused every request with those."""
    body = json.dumps(answer).encode()

    def respond(server: RawServer, connection: socket.socket) -> None:
        connection.sendall(_headers(len(body)) + body)

    server = raw_server(respond)
    chain = CredentialChain(_env(tmp_path, AWS_CONTAINER_CREDENTIALS_FULL_URI=server.url + "/c"))
    assert chain.get() is None
    assert chain.error.endswith("answered without usable credentials")
