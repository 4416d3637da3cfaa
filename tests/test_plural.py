"""Counts in messages say "1 file" and "2 files", never "file(s)"."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from paicli_tui.core.plural import counted, noun_for

PACKAGE = Path(__file__).resolve().parents[1] / "paicli_tui"
HEDGED = re.compile(r"[a-z]\((?:s|es|ies)\)")
"""``file(s)``, ``process(es)``: a plural the code could have worked out."""
NOT_A_PLURAL = ("http(s)",)


@pytest.mark.parametrize(("n", "noun", "plural", "words", "noun_only"), [
    (0, "file", "", "0 files", "files"),
    (1, "file", "", "1 file", "file"),
    (2, "file", "", "2 files", "files"),
    (1_204, "file", "", "1,204 files", "files"),
    (1, "memory", "memories", "1 memory", "memory"),
    (3, "memory", "memories", "3 memories", "memories"),
])
def test_counted(n, noun, plural, words, noun_only) -> None:
    assert counted(n, noun, plural) == words
    assert noun_for(n, noun, plural) == noun_only


def test_no_message_hedges_its_plural() -> None:
    """Every string in the program: "1 server(s) in .mcp.json not started" read as if the
    program could not count its own servers."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # a string standing alone is documentation (a docstring, an attribute's note)
        docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and id(node) not in docstrings:
                text = node.value
                for word in NOT_A_PLURAL:
                    text = text.replace(word, "")
                if HEDGED.search(text):
                    found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: "
                                 f"{node.value[:80]!r}")
    assert found == []
