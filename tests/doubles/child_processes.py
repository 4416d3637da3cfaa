"""Child processes a test left running: ended after it, whether it passed or failed.

Some tests start a second process (a racer, a CLI run) and wait for it with
``communicate(timeout=…)``; when an assertion fails first, nothing kills it, and it goes on
beside the tests that follow (load on a 2-core machine, a file or a port still held). The
conftest lists this process's children before and after each test (Linux ``/proc``) and
kills the new ones still running — their process group when they lead their own, as the
command runner's supervisor does.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path


def children() -> set[int]:
    """Process ids of this process's children that are still running (not zombies)."""
    found: set[int] = set()
    for listing in Path("/proc/self/task").glob("*/children"):
        with contextlib.suppress(OSError):
            found.update(int(pid) for pid in listing.read_text().split())
    return {pid for pid in found if _running(pid)}


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def end_new_children(before: set[int]) -> list[int]:
    """Kill the children started since ``before`` that still run; returns their ids."""
    left = sorted(children() - before)
    own_group = os.getpgrp()
    for pid in left:
        with contextlib.suppress(OSError):
            group = os.getpgid(pid)
            if group != own_group and group == pid:
                os.killpg(group, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
    return left
