"""A git config value is read as git reads it (quotes anywhere, comments, escapes): the real
git decodes each row the same way."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from paicli_tui.core.contracts.shell_git import config_entries

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.mark.parametrize(("line", "value"), [
    ("key = ~/a # mine", "~/a"),
    ("key = ~/a ; mine", "~/a"),
    ('key = "~/a # not a comment"', "~/a # not a comment"),
    ('key = "~/my ignores"', "~/my ignores"),
    ('key = ~/"my" ignores  ', "~/my ignores"),
    ('key = a\\"b', 'a"b'),
    ("key = a\\\\b", "a\\b"),
    ("key = a\\tb", "a\tb"),
    ("key =    spaced   out   ", "spaced   out"),
])
def test_a_value_is_decoded_as_git_decodes_it(tmp_path: Path, line: str, value: str) -> None:
    config = tmp_path / "config"
    config.write_text(f"[core]\n\t{line}\n")
    by_git = subprocess.run(["git", "config", "--file", str(config), "core.key"],
                            capture_output=True, text=True, check=True,
                            env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}).stdout
    assert by_git.removesuffix("\n") == value
    assert config_entries(config.read_text()) == [("core.key", value)]
