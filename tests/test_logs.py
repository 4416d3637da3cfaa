"""The log file under PAICLI_HOME/logs: levels, rotation, never a secret; the TUI footer says
when an error was logged this run and where."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from paicli_tui import cli
from paicli_tui.config import ConfigError, Settings, load_settings
from paicli_tui.logs import BACKUPS, LOG_FILE, MAX_BYTES, error_tally, start_logging

KEY = "dsk-live-9f8e7d6c5b4a3210"


@pytest.fixture
def keyed(paicli_home: Path) -> Settings:
    return load_settings({}, {"PAICLI_HOME": str(paicli_home), "DEEPSEEK_API_KEY": KEY})


def test_records_reach_the_file_with_every_secret_masked(keyed: Settings) -> None:
    tally = start_logging(keyed)
    log = logging.getLogger("paicli_tui.test")
    log.warning("provider said no for key %s", KEY)
    try:
        raise RuntimeError(f"Authorization: Bearer {KEY} rejected")
    except RuntimeError:
        log.exception("request failed (sk-abcdefghijklmnop)")
    text = (keyed.home.logs_dir / LOG_FILE).read_text(encoding="utf-8")
    assert KEY not in text and "sk-abcdefghijklmnop" not in text
    assert text.count("****") >= 3
    assert "WARNING paicli_tui.test" in text and "Traceback" in text  # the traceback too
    assert tally.count == 1 and tally.path == keyed.home.logs_dir / LOG_FILE


@pytest.mark.parametrize(("level", "written"), [
    ("debug", ["debug", "info", "warning", "error"]),
    ("info", ["info", "warning", "error"]),
    ("warning", ["warning", "error"]),
    ("error", ["error"]),
])
def test_the_level_decides_what_is_written(paicli_home: Path, level: str,
                                           written: list[str]) -> None:
    settings = load_settings({"log_level": level}, {"PAICLI_HOME": str(paicli_home)})
    start_logging(settings)
    log = logging.getLogger("paicli_tui.levels")
    for name in ("debug", "info", "warning", "error"):
        getattr(log, name)(f"message at {name}")
    text = (settings.home.logs_dir / LOG_FILE).read_text(encoding="utf-8")
    assert [n for n in ("debug", "info", "warning", "error") if f"message at {n}" in text] \
        == written


def test_level_from_the_environment_and_the_flag_wins(paicli_home: Path) -> None:
    env = {"PAICLI_HOME": str(paicli_home), "PAICLI_LOG_LEVEL": "debug"}
    assert load_settings({}, env).log_level == "debug"
    assert load_settings({"log_level": "error"}, env).log_level == "error"
    assert load_settings({}, {"PAICLI_HOME": str(paicli_home)}).log_level == "warning"
    with pytest.raises(ConfigError, match="log_level"):
        load_settings({}, {**env, "PAICLI_LOG_LEVEL": "loud"})


def test_cli_flag_sets_the_level_for_a_sub_command(paicli_home: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(paicli_home)
    assert cli.main(["sessions", "--log-level", "debug"]) == 0
    assert logging.getLogger().level == logging.DEBUG
    assert error_tally() is not None


def test_the_file_rotates_and_keeps_three_old_ones(paicli_home: Path) -> None:
    settings = load_settings({}, {"PAICLI_HOME": str(paicli_home)})
    start_logging(settings)
    line = "x" * 1_000
    for _ in range(MAX_BYTES * (BACKUPS + 2) // 1_000):
        logging.getLogger("paicli_tui.rotate").warning(line)
    names = sorted(p.name for p in settings.home.logs_dir.iterdir())
    assert names == [LOG_FILE] + [f"{LOG_FILE}.{i}" for i in range(1, BACKUPS + 1)]
    assert all(p.stat().st_size <= MAX_BYTES for p in settings.home.logs_dir.iterdir())


def test_nothing_is_written_before_a_record(paicli_home: Path) -> None:
    settings = load_settings({}, {"PAICLI_HOME": str(paicli_home)})
    tally = start_logging(settings)
    assert not tally.path.exists() and tally.count == 0


async def test_footer_shows_logged_errors_with_the_path(settings: Settings,
                                                        project_dir: Path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).parent / "ui"))
    from ui_fakes import FakeBackend, FakeSession

    from paicli_tui.app import PaicliApp

    tally = start_logging(settings)
    app = PaicliApp(settings, project_dir,
                    backend=FakeBackend(settings, project_dir, session=FakeSession()))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert not app.screen.query_one("#logged-errors").display  # nothing logged yet
        logging.getLogger("paicli_tui.ui.test").error("the index could not be opened")
        for _ in range(200):  # the label looks once a second; a busy machine is slow
            await pilot.pause(0.05)
            label = app.screen.query_one("#logged-errors")
            if label.display:
                break
        assert label.display
        assert str(label.render()) == f"⚠ 1 error logged: {tally.path}"


@pytest.mark.parametrize("blocked,note", [
    # logs/ cannot be made: a file of that name (a read-only PAICLI_HOME does the same)
    ("logs", "paicli-tui: no log file: cannot write {home}/logs ([Errno 17] File exists: "
             "'{home}/logs')\n"),
    # the folder is there, the file cannot be opened (read-only, another user's)
    ("logs/" + LOG_FILE, ""),
])
def test_a_log_it_cannot_write_is_no_traceback(blocked, note, paicli_home: Path, capsys) -> None:
    """With a PAICLI_HOME it cannot write (read-only, a CI cache, another user's), every
    command (`paicli-tui context --json` too) ended in an OSError traceback before doing
    anything, and a log folder it could not write into printed '--- Logging error ---'
    with a traceback into the person's output at every warning. The log is best effort:
    the command runs, and says once that there is no log file."""
    target = paicli_home / blocked
    target.parent.mkdir(parents=True, exist_ok=True)
    if blocked == "logs":
        target.write_text("")
    else:
        target.mkdir()  # a folder where the file goes: opening it fails
    assert cli.main(["context", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["window"] == 128_000
    logging.getLogger("paicli_tui.test").warning("something to log")
    assert capsys.readouterr().err == ""
    assert err == note.replace("{home}", str(paicli_home))


def test_one_record_that_does_not_format_leaves_the_log_on(paicli_home: Path, capsys) -> None:
    # a library's record whose arguments do not fit its message ('%s %s' with one) fails
    # in formatting, not in writing: it used to switch the log off for the rest of the run
    from paicli_tui.logs import PrivateRotatingFileHandler

    settings = load_settings({}, {"PAICLI_HOME": str(paicli_home)})
    start_logging(settings)
    (log_file,) = [h for h in logging.getLogger().handlers
                   if isinstance(h, PrivateRotatingFileHandler)]
    for message, args in (("two places %s %s", ("one value",)), ("the next record", ())):
        log_file.handle(logging.LogRecord("some.library", logging.WARNING, __file__, 1,
                                          message, args, None))
    text = (settings.home.logs_dir / LOG_FILE).read_text(encoding="utf-8")
    assert "the next record" in text
    assert capsys.readouterr().err == ""  # nor a '--- Logging error ---' in the output
