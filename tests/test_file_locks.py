"""Files under PAICLI_HOME that are read, changed and written back whole keep every change
when two processes write them at once: the MCP approvals, the prompt history (appends and
the trim that rewrites it), the memory inbox's seen times and ``config.toml``.

Two forked processes write the same file as fast as they can; after each of its own writes a
process reads the file and checks that everything it wrote so far is still there (nobody else
writes its part, so anything missing was lost to the other's rewrite)."""

from __future__ import annotations

import json
import multiprocessing
import tomllib
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from paicli_tui.config import keep_setting
from paicli_tui.core.mcp.config import APPROVALS_FILE, approve_project_servers
from paicli_tui.paths import HomePaths

WRITES = 40


def _approvals(home: Path, worker: int, i: int) -> list[str]:
    approve_project_servers(Path(f"/p/{worker}/{i}"), HomePaths(home), f"digest-{worker}-{i}")
    saved = json.loads((home / APPROVALS_FILE).read_text())
    return [f"/p/{worker}/{n}" for n in range(i + 1) if f"/p/{worker}/{n}" not in saved]


def _prompts(home: Path, worker: int, i: int) -> list[str]:
    from paicli_tui.ui.input_history import InputHistory

    # each prompt is over 400 bytes, the trim's share of a line: every append past the
    # third rewrites the file, while the limit (100) keeps every prompt of the test
    history = InputHistory(HomePaths(home).input_history_file, limit=100)
    prompt = f"prompt {worker}-{{}} " + "x" * 4_000
    history.append(prompt.format(i))
    kept = set(history.load())
    return [prompt.format(n)[:12] for n in range(i + 1) if prompt.format(n) not in kept]


def _seen_times(home: Path, worker: int, i: int) -> list[str]:
    from paicli_tui.ui.memory_inbox import SeenTimes

    path = HomePaths(home).memory_dir / "inbox_seen.json"
    SeenTimes(path, Path(f"/p/{worker}/{i}")).mark(datetime.now(UTC))
    saved = json.loads(path.read_text())
    return [f"/p/{worker}/{n}" for n in range(i + 1) if f"/p/{worker}/{n}" not in saved]


def _settings(home: Path, worker: int, i: int) -> list[str]:
    name = ("theme", "model")[worker]
    keep_setting(HomePaths(home).config_file, name, f"{worker}-{i}")
    saved = tomllib.loads(HomePaths(home).config_file.read_text()).get(name)
    return [] if saved == f"{worker}-{i}" else [f"{name} is {saved!r}, not {worker}-{i}"]


WRITERS: list[tuple[str, Callable[[Path, int, int], list[str]]]] = [
    ("MCP project approvals", _approvals),
    ("prompt history with its trim", _prompts),
    ("memory inbox seen times", _seen_times),
    ("config.toml settings", _settings),
]


def _write_many(name: str, home: str, worker: int, go: object, lost: object) -> None:
    write = dict(WRITERS)[name]
    go.wait()  # both start together
    for i in range(WRITES):
        missing = write(Path(home), worker, i)
        if missing:
            lost.put((worker, i, missing[:3]))
            return


def test_two_processes_writing_one_file_lose_nothing(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    for name, _ in WRITERS:
        home = tmp_path / name.replace(" ", "-")
        go, lost = ctx.Event(), ctx.Queue()
        workers = [ctx.Process(target=_write_many, args=(name, str(home), w, go, lost))
                   for w in (0, 1)]
        for worker in workers:
            worker.start()
        go.set()
        for worker in workers:
            worker.join()
        assert [w.exitcode for w in workers] == [0, 0], name
        assert lost.empty(), (name, lost.get())
