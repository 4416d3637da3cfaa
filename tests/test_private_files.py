"""The one helper every private file of the program is written with: created 0600, a file
left wider by an earlier version narrowed, a planted link refused where asked, data whole."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from paicli_tui.private_files import open_private, replace_private, write_private


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize(("before", "call", "content", "mode"), [
    # (file before: None = absent, else (bytes, mode)), the write, bytes after, mode after
    (None, lambda p: write_private(p, b"new"), b"new", 0o600),
    ((b"old", 0o644), lambda p: write_private(p, b"new"), b"new", 0o600),
    ((b"old", 0o666), lambda p: write_private(p, b"+1", append=True), b"old+1", 0o600),
    (None, lambda p: write_private(p, iter([b"a" * 70_000, b"", b"b"])),
     b"a" * 70_000 + b"b", 0o600),
    ((b"old", 0o600), lambda p: write_private(p, b"*\n", mode=0o644), b"*\n", 0o644),
    ((b"old", 0o644), lambda p: replace_private(p, b"whole", sync=True), b"whole", 0o600),
    ((b"old", 0o644), lambda p: os.close(open_private(p, os.O_RDWR | os.O_CREAT)), b"old",
     0o600),
], ids=["new", "narrowed", "append", "pieces", "gitignore", "replace", "lock"])
def test_private_writes(tmp_path, before, call, content, mode) -> None:
    old_umask = os.umask(0)  # the widest umask: the rights come from the helper alone
    try:
        path = tmp_path / "file"
        if before is not None:
            path.write_bytes(before[0])
            path.chmod(before[1])
        call(path)
    finally:
        os.umask(old_umask)
    assert path.read_bytes() == content and _mode(path) == mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]  # no temporary left


def test_exclusive_refuses_an_existing_file_and_a_link_is_not_followed(tmp_path) -> None:
    existing = tmp_path / "ledger.jsonl"
    existing.write_bytes(b"kept")
    with pytest.raises(FileExistsError):
        write_private(existing, b"x", append=True, exclusive=True)
    assert existing.read_bytes() == b"kept"
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"theirs")
    planted = tmp_path / "001-read_file.txt"
    planted.symlink_to(outside)
    with pytest.raises(OSError):
        write_private(planted, b"mine", follow_symlinks=False)
    assert outside.read_bytes() == b"theirs" and planted.is_symlink()


_THEME_WRITER = """
import sys
from pathlib import Path
from paicli_tui.config import keep_setting
path = Path(sys.argv[1])
for i in range(int(sys.argv[2])):
    keep_setting(path, "theme", "light" if i % 2 else "dark")
"""

_READER = """
import sys, time, tomllib
from pathlib import Path
path = Path(sys.argv[1])
deadline = time.monotonic() + 60
bad = 0
while not Path(sys.argv[2]).exists() and time.monotonic() < deadline:
    try:
        settings = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        bad += 1
        continue
    if settings.get("model") != "deepseek-chat" or settings.get("log_level") != "info":
        bad += 1
print(bad)
"""


def test_two_processes_rewriting_config_at_once_never_lose_its_other_lines(tmp_path) -> None:
    """Two apps changing /theme at the same moment, a third reading config.toml meanwhile:
    every write succeeds, every read sees a whole file holding model and log_level, and so
    does the end. With one fixed temporary name the writers wrote into the same file while the
    other renamed it: renames failed (FileNotFoundError) and a read saw it empty or half."""
    import subprocess
    import sys

    path = tmp_path / "config.toml"
    path.write_text('model = "deepseek-chat"\nlog_level = "info"\ntheme = "dark"\n',
                    encoding="utf-8")
    done = tmp_path / "writers-done"
    reader = subprocess.Popen([sys.executable, "-c", _READER, str(path), str(done)],
                              stdout=subprocess.PIPE, text=True)
    writers = [subprocess.Popen([sys.executable, "-c", _THEME_WRITER, str(path), "300"],
                                stderr=subprocess.PIPE, text=True) for _ in range(2)]
    errors = [w.communicate(timeout=120)[1] for w in writers]
    done.touch()
    bad_reads = reader.communicate(timeout=120)[0].strip()
    assert [w.returncode for w in writers] == [0, 0], errors
    assert bad_reads == "0"
    final = path.read_text(encoding="utf-8")
    assert final.startswith('model = "deepseek-chat"\nlog_level = "info"\ntheme = "')
    assert final.count("\n") == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml", "config.toml.lock",
                                                          "writers-done"]
