"""Attack table, a file nested too deeply to parse: a line of `[` × 100,000 in a file the
program reads by itself. Python's JSON and TOML readers raise RecursionError, not the
ValueError these readers caught, so one damaged line was a traceback instead of a file read
as damaged: `paicli-tui sessions` and the session list (a session ledger's checkpoint), every
memory save (the forms sidecar, which can only save work), the TUI's start (the prompt
history), /mcp (the approvals), /init (a repository's pyproject.toml). Each reader now treats
such a file or line as it treats any damaged one. One row per file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from paicli_tui.config import load_settings
from paicli_tui.paths import HomePaths

DEEP = "[" * 100_000


def _ledger(home: Path, project: Path) -> Callable[[], object]:
    from paicli_tui.core.context.ledger_read import open_regular, summarise

    raw = home / "history" / "raw"
    raw.mkdir(parents=True)
    lines = [{"schema_version": 2, "type": "session", "session_id": "deep"},
             {"schema_version": 2, "type": "message",
              "message": {"id": "m1", "role": "user", "content": "hi"}}]
    path = raw / "deep.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines)
                    + '{"schema_version":2,"type":"view_checkpoint","state":'
                    + DEEP[:50_000] + ',"messages":[]}\n')  # the head read is 64 KB

    def count() -> object:
        with open_regular(path) as handle:
            return summarise(handle).message_count
    return count


def _forms_sidecar(home: Path, project: Path) -> Callable[[], object]:
    from paicli_tui.core.memory.entry import MemoryEntry, new_entry_id
    from paicli_tui.core.memory.store import MemoryStore

    path = home / "long_term_memory.json"

    def entry(text: str) -> MemoryEntry:
        return MemoryEntry(id=new_entry_id(), content=text, created_at="2026-11-01T12:00:00Z",
                           last_verified_at="2026-11-01T12:00:00Z", project="/p")

    MemoryStore(path).add(entry("The project uses Java 17 for builds"))
    with path.with_name(path.name + ".forms.jsonl").open("a") as sidecar:
        sidecar.write(DEEP + "\n")

    def save_in_a_new_process() -> object:
        store = MemoryStore(path)  # a fresh store reads the sidecar
        store.add(entry("Deploys happen on Fridays"))
        return [e.content for e in store.entries()]
    return save_in_a_new_process


def _written_back(home: Path, project: Path) -> Callable[[], object]:
    from paicli_tui.core.memory.store import MemoryStore

    store = MemoryStore(home / "long_term_memory.json")
    store.written_back_path.write_text(DEEP + "\n")
    return lambda: store._written_back({"any-backup"})


def _prompt_history(home: Path, project: Path) -> Callable[[], object]:
    from paicli_tui.ui.input_history import InputHistory

    path = home / "inputs.jsonl"
    path.write_text(json.dumps("first prompt") + "\n" + DEEP + "\n")
    return InputHistory(path).load


def _mcp_approvals(home: Path, project: Path) -> Callable[[], object]:
    from paicli_tui.core.mcp.config import APPROVALS_FILE, project_servers

    (project / ".mcp.json").write_text('{"mcpServers": {}}')
    (home / APPROVALS_FILE).write_text(DEEP)
    return lambda: project_servers(project, HomePaths(home)).approved


def _memory_browser_seen(home: Path, project: Path) -> Callable[[], object]:
    from paicli_tui.ui.memory_inbox import SeenTimes

    path = home / "seen.json"
    path.write_text(DEEP)
    return SeenTimes(path, project).get


def _rewrite_cache(home: Path, project: Path) -> Callable[[], object]:
    from paicli_tui.core.code.query.rewrite import RewriteCache

    cache = RewriteCache(HomePaths(home), "rewrites.json")
    cache.path.parent.mkdir(parents=True, exist_ok=True)
    cache.path.write_text(DEEP)
    return lambda: cache.get("where is the retry loop")


def _init_pyproject(home: Path, project: Path) -> Callable[[], object]:
    from paicli_tui.core.memory.rules_draft import draft_rules

    (project / "pyproject.toml").write_text("deps = " + DEEP)
    return lambda: "pip install" in draft_rules(project)


@pytest.mark.parametrize(("plant", "read_back"), [
    (_ledger, 1),
    (_forms_sidecar, ["The project uses Java 17 for builds", "Deploys happen on Fridays"]),
    (_written_back, set()),
    (_prompt_history, ["first prompt"]),
    (_mcp_approvals, False),
    (_memory_browser_seen, None),
    (_rewrite_cache, None),
    (_init_pyproject, False),
], ids=["session-ledger", "memory-forms-sidecar", "memory-written-back", "prompt-history",
        "mcp-approvals", "memory-browser-seen", "rewrite-cache", "init-pyproject"])
def test_a_line_nested_too_deeply_is_read_as_damaged(tmp_path: Path, plant, read_back) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    load_settings({}, {"PAICLI_HOME": str(home)})
    assert plant(home, project)() == read_back
