"""Attack table, a file changed between read_file's checks and its read: it grows past the
20 MB bound (a log being written, a script the agent ran appending to it), or it is swapped
for a FIFO. The checks used to look at the path and the read then went to the end of
whatever was there: an unbounded read, or a read that waits for a writer forever. The swap
happens exactly when the tool reads the size (the last check). One test per attempt."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from paicli_tui.core.agent.tools import files
from paicli_tui.core.agent.tools.guard import ToolArgumentError

DEADLINE_S = 30


class _SwapWhenSizeRead:
    """A stat result that runs ``swap`` just after the caller reads its ``st_size``."""

    def __init__(self, real: os.stat_result, swap) -> None:
        self._real, self._swap = real, swap

    def __getattr__(self, name: str):
        return getattr(self._real, name)

    @property
    def st_size(self) -> int:
        size = self._real.st_size
        self._swap()
        return size


def _swap_after_size_check(monkeypatch, target: Path, swap) -> None:
    real_stat = Path.stat
    done = []

    def stat(self, *, follow_symlinks=True):
        result = real_stat(self, follow_symlinks=follow_symlinks)
        if self == target and not done:
            return _SwapWhenSizeRead(result, lambda: done or (done.append(1), swap()))
        return result

    monkeypatch.setattr(Path, "stat", stat)


def _read_in_thread(project: Path, name: str) -> tuple[bool, object]:
    """(finished within the deadline, the text or the exception) of read_file's read."""
    outcome: list[object] = []

    def read() -> None:
        try:
            outcome.append(files.ReadFileTool()._read({"path": name}, project))
        except Exception as exc:
            outcome.append(exc)

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(DEADLINE_S)
    return not worker.is_alive(), (outcome[0] if outcome else None)


def test_a_file_growing_past_the_bound_while_read_is_refused(tmp_path, monkeypatch) -> None:
    project = tmp_path / "project"
    project.mkdir()
    log = project / "app.log"
    log.write_text("started\n")
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 1_000_000)

    def grow() -> None:
        with log.open("a") as handle:
            handle.write(("x" * 99 + "\n") * 50_000)  # 5 MB past the 1 MB bound

    _swap_after_size_check(monkeypatch, project / "app.log", grow)
    finished, outcome = _read_in_thread(project, "app.log")
    assert finished
    assert isinstance(outcome, ToolArgumentError), f"read {len(str(outcome)):,} characters"
    assert str(outcome) == "app.log grew past 1,000,000 bytes while it was read; too large to read"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_file_swapped_for_a_fifo_after_the_checks_is_refused_at_once(tmp_path,
                                                                     monkeypatch) -> None:
    project = tmp_path / "project"
    project.mkdir()
    target = project / "notes.txt"
    target.write_text("hello\n")

    def to_fifo() -> None:
        target.unlink()
        os.mkfifo(target)

    _swap_after_size_check(monkeypatch, target, to_fifo)
    finished, outcome = _read_in_thread(project, "notes.txt")
    if not finished:  # let the blocked reader go before failing
        fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        pytest.fail(f"read_file still waiting on the FIFO after {DEADLINE_S} s")
    assert isinstance(outcome, ToolArgumentError)
    assert str(outcome) == "notes.txt is not a regular file; it cannot be read or edited as text"
