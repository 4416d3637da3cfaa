"""The supervisor's copy of an MCP server's stderr into its log masks the values of the
variables the person configured for the server, a value split between two reads too, and
leaves short values (``1``, ``true``) and everything else as written."""

from __future__ import annotations

import os

import pytest

from paicli_tui import process_supervisor
from paicli_tui.process_supervisor import MASKED_ENV, _CappedLog, _masked_values

TOKEN = b"ghp_secretvalue123"


def _copied(monkeypatch: pytest.MonkeyPatch, writes: list[bytes],
            secrets: list[bytes]) -> bytes:
    out: list[bytes] = []
    monkeypatch.setattr(process_supervisor, "_write_all", lambda _fd, data: out.append(data))
    read, write = os.pipe()
    log = _CappedLog(read, secrets)
    for chunk in writes:
        os.write(write, chunk)
        assert log.pump()
    os.close(write)
    log.drain()
    os.close(read)
    return b"".join(out)


@pytest.mark.parametrize("writes", [
    [b"login failed with " + TOKEN + b"\n"],
    [b"login failed with ghp_secr", b"etvalue123\n"],  # cut between two reads
    [b"login failed with " + TOKEN],  # no newline, the pipe's end
    [b"login failed with ghp_secretvalue1", b"23"],
], ids=["whole", "split", "at-the-end", "split-at-the-end"])
def test_a_configured_value_never_reaches_the_log(monkeypatch: pytest.MonkeyPatch,
                                                  writes: list[bytes]) -> None:
    copied = _copied(monkeypatch, writes, [TOKEN])
    assert TOKEN not in copied and copied.startswith(b"login failed with ****")
    assert copied.rstrip(b"\n") == b"login failed with ****"


def test_without_values_the_copy_is_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _copied(monkeypatch, [b"a", b"b\n"], []) == b"ab\n"


def test_the_values_come_from_the_named_variables_and_the_name_goes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MASKED_ENV, "TOKEN,DEBUG,MISSING")
    monkeypatch.setenv("TOKEN", TOKEN.decode())
    monkeypatch.setenv("DEBUG", "1")  # too short to be a secret: masking it would ruin the log
    assert _masked_values() == [TOKEN]
    assert MASKED_ENV not in os.environ  # the server never sees the list
