"""Identifier splitting, plural folding and query-language detection."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paicli_tui.core.code.query import (
    code_terms,
    detect_language,
    expand_identifiers,
    split_identifier,
)
from paicli_tui.core.code.query.terms import fold, stem_line


@pytest.mark.parametrize(
    ("token", "parts"),
    [
        ("cell_len", ["cell", "len"]),
        ("getHTTPResponse_code2", ["get", "http", "response", "code", "2"]),
        ("ColorSystem", ["color", "system"]),
        ("FORCE_COLOR", ["force", "color"]),
        ("__rich_console__", ["rich", "console"]),
        ("parseXMLDocument", ["parse", "xml", "document"]),
        ("render", ["render"]),
        ("___", []),
        ("", []),
    ],
)
def test_split_identifier(token: str, parts: list[str]) -> None:
    assert split_identifier(token) == parts


@pytest.mark.parametrize(
    ("word", "folded"),
    [
        ("colors", "color"),
        ("entries", "entry"),
        ("class", "class"),
        ("status", "status"),
        ("is", "is"),
    ],
)
def test_fold(word: str, folded: str) -> None:
    assert fold(word) == folded


def test_code_terms_keeps_compounds_and_drops_stop_words() -> None:
    terms = code_terms("How does the console read FORCE_COLOR and colorSystems?")
    assert terms == [
        "console",
        "consol",
        "read",
        "force_color",
        "force",
        "forc",
        "color",
        "colorsystems",
        "color",
        "systems",
        "system",
    ]


def test_stem_line_lists_changed_stems_once() -> None:
    assert stem_line("merged merging merge rendered table") == "merg render tabl"


def test_expand_identifiers_lists_each_compound_once() -> None:
    assert expand_identifiers("cell_len(x) + cell_len(y) + plain") == "cell len"


@given(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,30}", fullmatch=True))
def test_split_parts_are_lowercase_alnum_pieces_of_the_token(token: str) -> None:
    parts = split_identifier(token)
    assert all(p and p.isalnum() and p == p.lower() for p in parts)
    assert "".join(parts) == "".join(ch for ch in token if ch != "_").lower()


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("How is the table rendered?", "en"),
        ("", "en"),
        ("怎么把表格渲染到终端？", "zh"),
        ("如何检测 FORCE_COLOR 环境变量", "zh"),
        ("where is 渲染 done for the table widget", "mixed"),
        ("表格 render table", "mixed"),
    ],
)
def test_detect_language(question: str, language: str) -> None:
    assert detect_language(question) == language
