"""Attack table, files another user of the machine could read: the log file (paths, commands,
errors of the person's work) and the TUI's prompt history (every prompt typed) were created
0644 under the default umask, while the session ledger holding the same prompts is 0600. One
test per file; each also takes a file an earlier version left 0644."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import pytest

from paicli_tui import logs
from paicli_tui.config import load_settings
from paicli_tui.ui.input_history import InputHistory


@pytest.fixture(autouse=True)
def ordinary_umask():
    before = os.umask(0o022)
    yield
    os.umask(before)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_log_file_and_its_rotations_are_the_persons_only(paicli_home: Path,
                                                             monkeypatch) -> None:
    settings = load_settings({}, {"PAICLI_HOME": str(paicli_home)})
    log_file = settings.home.logs_dir / logs.LOG_FILE
    log_file.parent.mkdir(parents=True, exist_ok=True)
    log_file.write_text("an old line\n")
    os.chmod(log_file, 0o644)
    monkeypatch.setattr(logs, "MAX_BYTES", 2_000)
    logs.start_logging(settings)
    try:
        for n in range(200):  # about 14 KB: more than the three rotations kept
            logging.getLogger("paicli_tui.test").error("failure %d of the build in src/app.py", n)
    finally:
        logs.stop_logging()
    files = sorted(settings.home.logs_dir.glob(f"{logs.LOG_FILE}*"))
    assert [p.name for p in files] == [logs.LOG_FILE] + [f"{logs.LOG_FILE}.{n}"
                                                         for n in (1, 2, 3)]
    assert {p.name: _mode(p) for p in files} == {p.name: 0o600 for p in files}


def test_the_prompt_history_is_the_persons_only(tmp_path: Path) -> None:
    path = tmp_path / "history" / "inputs.jsonl"
    history = InputHistory(path, limit=5)
    history.append("deploy with the staging key from ~/notes")
    assert _mode(path) == 0o600
    os.chmod(path, 0o644)  # left by an earlier version
    history.append("second prompt")
    assert _mode(path) == 0o600
    for n in range(40):  # past 400 × limit bytes: trimmed, rewritten through a temporary
        history.append(f"prompt {n} " + "x" * 100)
    assert history.load()[-1].startswith("prompt 39 ") and len(history.load()) == 5
    assert _mode(path) == 0o600


def test_the_memory_keyword_and_vector_caches_are_the_persons_only(paicli_home: Path) -> None:
    """The memory store is 0600, but the caches made from it were 0644: the keyword cache
    holds every memory's words ("deploy kubectl rollout restart staging"), readable by any
    user of the machine."""
    from doubles.embedders import HashEmbedder

    from paicli_tui.core.memory.keywords import KeywordIndex
    from paicli_tui.core.memory.vectors import VectorCache
    from paicli_tui.paths import HomePaths

    home = HomePaths(paicli_home)
    keywords = KeywordIndex(home)
    assert keywords.path is not None
    keywords.path.parent.mkdir(parents=True, exist_ok=True)
    keywords.path.write_text("")
    os.chmod(keywords.path, 0o644)  # left by an earlier version
    keywords.bags(["The deploy uses kubectl rollout restart for staging"])
    assert "kubectl" in keywords.path.read_text()
    assert _mode(keywords.path) == 0o600
    vectors = VectorCache(home.memory_dir / "vectors", HashEmbedder("fake-8"))
    vectors.matrix(["The deploy uses kubectl rollout restart for staging"])
    assert _mode(vectors.path) == 0o600
