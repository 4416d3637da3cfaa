"""The refusing port of the test doubles refuses connections and cannot be taken meanwhile
(a port let go before use could be given to another server first)."""

from __future__ import annotations

import socket

import pytest
from doubles.closed_port import refusing_port


def test_a_refusing_port_refuses_and_stays_ours() -> None:
    with refusing_port() as port:
        with socket.socket() as client, pytest.raises(ConnectionRefusedError):
            client.connect(("127.0.0.1", port))
        with socket.socket() as other, pytest.raises(OSError):
            other.bind(("127.0.0.1", port))
