"""A port on 127.0.0.1 that refuses connections for as long as a test needs it.

A port found free and let go ("bind to 0, read the number, close") can be handed to another
server before the test connects to it: another test's, or another test run's on a shared
machine, and the test expecting "connection refused" gets an answer. Held bound without
listening, the port refuses every connection and nobody else can bind it.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def refusing_port() -> Iterator[int]:
    """The number of a port that refuses connections until the block ends."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield held.getsockname()[1]
