"""What a test's servers left behind: a thread still serving, or a socket still listening.

A raw metadata server's thread left waiting in ``accept()`` after its test (e499079) took a
later test's connections: its listening socket's number was given to that test's server,
and it sent a gigabyte of zeros into a tmux trial's chat. The conftest compares what is
serving after each test with what served before it, so such a double fails its own test.

Only two signs are taken, both lasting: a thread whose stack is in ``socket.accept`` or
``socketserver``'s ``serve_forever`` (after a grace for one that is ending: a
``shutdown()`` returns just before its thread does), and a TCP socket of this process in
the LISTEN state (after a garbage collection: a server dropped without ``server_close()``
closes when it is collected). A handler thread still reading a kept-alive connection is
not counted: it answers only that connection.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
from pathlib import Path

GRACE_S = 10.0
"""How long a serving thread that was asked to stop may take to end (a busy machine)."""
_SERVING = {("socket.py", "accept"), ("socketserver.py", "serve_forever")}


def serving_threads() -> set[threading.Thread]:
    """Threads of this process waiting for connections."""
    frames = sys._current_frames()
    found = set()
    for thread in threading.enumerate():
        frame = frames.get(thread.ident or -1)
        while frame is not None:
            code = frame.f_code
            if (Path(code.co_filename).name, code.co_name) in _SERVING:
                found.add(thread)
                break
            frame = frame.f_back
    return found


def listening_sockets() -> dict[str, str]:
    """Inode → local address of this process's TCP sockets in the LISTEN state ({} where
    /proc cannot tell)."""
    try:
        inodes = set()
        for fd in os.listdir("/proc/self/fd"):
            try:
                link = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:  # closed meanwhile (the listing's own fd)
                continue
            if link.startswith("socket:["):
                inodes.add(link[8:-1])
    except OSError:
        return {}
    listening = {}
    for table in ("/proc/self/net/tcp", "/proc/self/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[3] == "0A" and fields[9] in inodes:
                listening[fields[9]] = _address(fields[1])
    return listening


def _address(hex_address: str) -> str:
    host, _, port = hex_address.partition(":")
    return f"port {int(port, 16)}" + (" (127.0.0.1)" if host == "0100007F" else "")


def left_behind(threads_before: set[threading.Thread], sockets_before: dict[str, str]
                ) -> list[str]:
    """What serves now that did not before the test (empty: nothing was left)."""
    problems = []
    for thread in serving_threads() - threads_before:
        thread.join(GRACE_S)
        if thread.is_alive() and thread in serving_threads():
            problems.append(f"thread {thread.name!r} still waits for connections")
    if set(listening_sockets()) - set(sockets_before):
        gc.collect()  # a server nobody holds any more closes its socket now
        problems += [f"a socket still listens on {address}"
                     for inode, address in listening_sockets().items()
                     if inode not in sockets_before]
    return problems
