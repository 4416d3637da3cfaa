"""An unreadable memory file's message says what to do about it, for the cause at hand.

Found in tmux: with PAICLI_HOME/memory a file, the welcome line read "could not read
…/memory/long_term_memory.json: Not a directory (give yourself read and write access to it,
or move it aside…)": advice about a file that does not exist."""

from __future__ import annotations

import errno

import pytest

from paicli_tui.core.memory.store import MOVE_ASIDE, MemoryFileError, MemoryStore, unreadable_remedy


@pytest.mark.parametrize(("code", "remedy"), [
    (errno.EACCES, f"give yourself read and write access to it, or {MOVE_ASIDE}"),
    (errno.EPERM, f"give yourself read and write access to it, or {MOVE_ASIDE}"),
    (errno.EIO, MOVE_ASIDE),
])
def test_the_remedy_follows_the_cause(tmp_path, code, remedy) -> None:
    path = tmp_path / "memory" / "long_term_memory.json"
    assert unreadable_remedy(path, OSError(code, "x")) == remedy


def test_a_file_where_the_folder_should_be_is_named(tmp_path) -> None:
    (tmp_path / "memory").write_text("x", encoding="utf-8")
    store = MemoryStore(tmp_path / "memory" / "long_term_memory.json")
    with pytest.raises(MemoryFileError) as raised:
        store.entries()
    assert str(raised.value).endswith(
        f"({tmp_path / 'memory'} is a file where a folder should be: move it aside)")
