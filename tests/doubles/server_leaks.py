"""What a test's servers left behind: a thread still serving, or a socket still listening.

A raw metadata server's thread left waiting in ``accept()`` after its test (e499079) took a
later test's connections: its listening socket's number was given to that test's server,
and it sent a gigabyte of zeros into a tmux trial's chat. The conftest compares what is
serving after each test with what served before it, so such a double fails its own test.

Only two signs are taken, both lasting: a thread whose stack is in ``socket.accept`` or
``socketserver``'s ``serve_forever`` (after a grace for one that is ending: a
``shutdown()`` returns just before its thread does), and a socket of this process in the
LISTEN state (after a garbage collection: a server dropped without ``server_close()``
closes when it is collected). A handler thread still reading a kept-alive connection is
not counted: it answers only that connection.
"""

from __future__ import annotations

import gc
import os
import socket
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
    """Inode → local address of this process's sockets in the LISTEN state ({} where /proc
    cannot tell)."""
    listening = {}
    try:
        fds = os.listdir("/proc/self/fd")
    except OSError:
        return {}
    for fd in fds:
        try:
            link = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # closed meanwhile (the listing's own fd)
            continue
        if link.startswith("socket:[") and _listens(int(fd)):
            listening[link[8:-1]] = _address(int(fd))
    return listening


def _listens(fd: int) -> bool:
    try:
        held = socket.socket(fileno=fd)  # the same descriptor, not a copy: never closed here
    except (OSError, ValueError):
        return False
    try:
        return bool(held.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN))
    except OSError:
        return False
    finally:
        held.detach()


def _address(fd: int) -> str:
    try:
        held = socket.socket(fileno=fd)
    except (OSError, ValueError):
        return f"descriptor {fd}"
    try:
        return str(held.getsockname())
    except OSError:
        return f"descriptor {fd}"
    finally:
        held.detach()


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
