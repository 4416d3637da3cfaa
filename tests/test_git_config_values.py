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


def read_by_git(config: Path) -> str:
    """core.key of the file as git prints it."""
    return subprocess.run(["git", "config", "--file", str(config), "core.key"],
                          capture_output=True, text=True, check=True,
                          env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}).stdout


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
    # each space outside quotes is one ' ', a tab or a lone CR too; inside quotes kept
    ("key = a\tb\rc", "a b c"),
    ('key = "a\tb"', "a\tb"),
    # an empty value is empty, not the boolean true of a key without '='
    ("key =", ""),
    ('key = ""', ""),
    ("key = # only a comment", ""),
])
def test_a_value_is_decoded_as_git_decodes_it(tmp_path: Path, line: str, value: str) -> None:
    config = tmp_path / "config"
    config.write_bytes(f"[core]\n\t{line}\n".encode())
    by_git = read_by_git(config)
    assert by_git.removesuffix("\n") == value
    assert config_entries(config.read_bytes().decode()) == [("core.key", value)]


@pytest.mark.parametrize("text", [
    "[user] [core] key = v\n",
    "[user]\r[core] key = v\n",
    "[core.x][core]\n key = v\n",
])
def test_headers_share_a_line_as_in_git(tmp_path: Path, text: str) -> None:
    """git reads what follows a section header as the next thing on the line, another
    header too: the key belongs to the last one."""
    config = tmp_path / "config"
    config.write_bytes(text.encode())
    by_git = read_by_git(config)
    assert by_git == "v\n"
    assert config_entries(text) == [("core.key", "v")]
