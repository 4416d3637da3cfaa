"""onnxruntime reads its cache folders from XDG_CACHE_HOME and TMPDIR at import, so the
offline embedder's loader points them at PAICLI_HOME/cache while it imports. A command the
agent runs, during that import (another thread) or after it, gets the person's own values."""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

import pytest

from paicli_tui.config import Settings
from paicli_tui.core.agent.tools.command_env import command_environment
from paicli_tui.core.embedders import minilm

SHOW = 'printf "%s|%s" "${XDG_CACHE_HOME-unset}" "${TMPDIR-unset}"'


def _seen_by_a_command(settings: Settings) -> str:
    return subprocess.run(["sh", "-c", SHOW], env=command_environment(settings),
                          capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize(("xdg", "tmpdir"), [("/home/dev/.cache", "/var/tmp/dev"),
                                             (None, None)])
def test_commands_keep_the_persons_cache_and_temp_folders(
        settings: Settings, paicli_home: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, xdg: str | None, tmpdir: str | None) -> None:
    for name, value in (("XDG_CACHE_HOME", xdg), ("TMPDIR", tmpdir)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    monkeypatch.setenv("PAICLI_HOME", str(paicli_home))
    expected = f"{xdg or 'unset'}|{tmpdir or 'unset'}"
    during: list[str] = []

    # a stand-in onnxruntime whose import is the moment a command starts in another thread
    hook = types.ModuleType("_borrowed_env_hook")
    hook.during_import = lambda: during.append(_seen_by_a_command(settings))  # type: ignore
    monkeypatch.setitem(sys.modules, "_borrowed_env_hook", hook)
    (tmp_path / "onnxruntime.py").write_text(
        "import os, sys\n"
        "IMPORTED_WITH = os.environ['XDG_CACHE_HOME'], os.environ['TMPDIR']\n"
        "sys.modules['_borrowed_env_hook'].during_import()\n")
    # the stand-in is imported afresh, and the real module (or none) is back after the test
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    del sys.modules["onnxruntime"]
    monkeypatch.syspath_prepend(str(tmp_path))

    onnxruntime = minilm._import_onnxruntime()
    cache = str(paicli_home / "cache")
    assert onnxruntime.IMPORTED_WITH == (cache, cache)  # its files go under PAICLI_HOME
    assert during == [expected]                         # a command during the import
    assert _seen_by_a_command(settings) == expected     # and after it
