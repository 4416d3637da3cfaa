"""The conftest's clean-up ends a child process a test left running (doubles/child_processes)."""

from __future__ import annotations

import subprocess
import sys

from doubles.child_processes import children, end_new_children


def test_a_left_child_and_its_group_are_ended() -> None:
    before = children()
    lone = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    leader = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                              start_new_session=True)
    try:
        assert {lone.pid, leader.pid} <= children()
        assert sorted(end_new_children(before)) == sorted([lone.pid, leader.pid])
        assert lone.wait(timeout=30) == -9 and leader.wait(timeout=30) == -9
        assert not {lone.pid, leader.pid} & children()
    finally:
        for process in (lone, leader):
            process.kill()
            process.wait(timeout=30)


def test_children_that_were_there_before_are_left_alone() -> None:
    older = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        before = children()
        assert end_new_children(before) == []
        assert older.poll() is None
    finally:
        older.kill()
        older.wait(timeout=30)
