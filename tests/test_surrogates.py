"""One rule for lone surrogates everywhere text leaves the process: each becomes U+FFFD."""

from __future__ import annotations

import io
import json
import sys

import pytest

from paicli_tui.surrogates import without_surrogates

CASES = [
    ("plain", "plain"),
    ("", ""),
    ("中文 café", "中文 café"),
    ("caf\udce9", "caf\ufffd"),  # an undecodable byte of a folder's name
    ("\ud800", "\ufffd"),  # a lone high surrogate, as valid JSON can carry
    ("a\udce4\udcb8b", "a\ufffd\ufffdb"),  # one U+FFFD per surrogate, not per sequence
    ("\udfff\ud800", "\ufffd\ufffd"),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_each_lone_surrogate_becomes_one_replacement(text: str, expected: str) -> None:
    assert without_surrogates(text) == expected
    without_surrogates(text).encode("utf-8")


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_every_place_that_writes_text_out_follows_the_one_rule(
        text: str, expected: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from paicli_tui.cli import _JsonOut
    from paicli_tui.commands.conventions import read_standard_input
    from paicli_tui.core.context.boundary import clean_text as tool_result_text
    from paicli_tui.core.llm.openai_client import request_bytes
    from paicli_tui.core.memory.entry import MemoryEntry
    from paicli_tui.paths import stored_project_forms

    raw = io.BytesIO()
    out = _JsonOut(raw, encoding="utf-8", errors="strict")
    out.write(text)
    out.flush()
    assert raw.getvalue().decode("utf-8") == expected

    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    assert read_standard_input() == expected

    assert tool_result_text(text) == expected
    assert json.loads(request_bytes({"content": text}))["content"] == expected
    assert MemoryEntry.from_dict({"id": "m1", "content": text or "x"}).content == (expected or "x")
    assert expected in stored_project_forms(text)
