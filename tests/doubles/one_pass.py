"""A hang guard for input that once made a pattern try every split of a long run (minutes to
hours): the work runs in a forked process and must end, without an error, within a bound far
above what one pass takes (milliseconds), so a slow machine never fails it and a hang does."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable

GUARD_S = 120


def assert_read_in_one_pass(work: Callable[[], object]) -> None:
    """``work`` ends without an error within the guard (killed if it does not)."""
    worker = multiprocessing.get_context("fork").Process(target=work)
    worker.start()
    worker.join(GUARD_S)
    still_running = worker.is_alive()
    if still_running:
        worker.kill()
        worker.join()
    assert not still_running and worker.exitcode == 0
