"""Words typed on the command line that are not UTF-8 (a Latin-1 terminal, a file name's
bytes pasted: `café` as b'caf\\xe9'). Python hands them over as lone surrogates
('caf\\udce9'); a query, a memory's text, a name or a prompt reads them as U+FFFD, the
replacement character (a folder keeps its bytes: it must still be found)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli_tui import cli

TYPED = "caf\udce9"  # what Python makes of the bytes b"caf\xe9" in argv
READ = "caf\ufffd"


@pytest.fixture
def indexed(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "cafe.py").write_text("class Cafe:\n    def brew(self):\n        return 1\n")
    assert cli.main(["index", "--project", str(project), "--quiet"]) == 0
    return project


@pytest.mark.parametrize("argv,code,field,value", [
    (["memory", "save", f"{TYPED} uses maven", "--json"], 0, ("entry", "content"),
     f"{READ} uses maven"),
    (["search", TYPED, "--mode", "grep", "--json"], 0, ("query",), READ),
    (["search", TYPED, "--json"], 0, ("query",), READ),
    (["graph", TYPED, "--json"], 0, ("name",), READ),
])
def test_text_that_is_not_utf8_is_read_with_replacement(argv, code, field, value, indexed,
                                                         capsys) -> None:
    """`paicli-tui graph $'caf\\xe9'` ended in a UnicodeEncodeError traceback from the index
    query; `memory save` stored the lone surrogate and printed its raw byte back inside
    the --json line (not UTF-8, so no JSON parser took it)."""
    capsys.readouterr()
    assert cli.main([*argv, "--project", str(indexed)]) == code
    out = capsys.readouterr().out
    out.encode("utf-8")  # printable as UTF-8: no lone surrogate left
    payload = json.loads(out)
    for key in field:
        payload = payload[key]
    assert payload == value



@pytest.mark.parametrize("argv,key,expected", [
    (["memory", "list", "--json"], "content", ["one fact"]),
    (["memory", "search", "fact", "--keywords-only", "--json"], "content", ["one fact"]),
    (["sessions", "--json"], "title", ["重构登录模块"]),
])
def test_a_folder_whose_name_is_not_utf8_finds_its_own(argv, key, expected, tmp_path: Path,
                                                      paicli_home: Path, capsys) -> None:
    """In a folder named b'bad\\xe9dir', `memory save` said saved and `memory list` showed
    nothing, and `sessions` never listed the sessions run there: the store keeps the name
    with U+FFFD for the byte (the ledger with '?'), and neither matched the folder's real
    name again. A stored name matches its folder in either form."""
    from paicli_tui.core.context.ledger import SessionLedger
    from paicli_tui.core.messages import Message
    from paicli_tui.paths import HomePaths

    folder = tmp_path / "bad\udce9dir"
    folder.mkdir()
    SessionLedger.create(HomePaths(paicli_home), folder).append(Message.user("重构登录模块"))
    assert cli.main(["memory", "save", "one fact", "--project", str(folder)]) == 0
    capsys.readouterr()
    assert cli.main([*argv, "--project", str(folder)]) == 0
    payload = json.loads(capsys.readouterr().out)
    items = payload["sessions"] if argv[0] == "sessions" else payload
    assert [item[key] for item in items] == expected
