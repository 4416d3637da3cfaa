"""A file's banner (a licence, a copyright line, a JSDoc ``@fileoverview``) with a blank line
under it describes the file, not the declaration after it: that declaration gets no doc from
it, as JSDoc reads it. A doc comment followed by a blank line is still its declaration's
(the JDK layout), and a banner right above a declaration (no blank line) stays as before."""

from __future__ import annotations

import pytest

from paicli_tui.core.code.chunking import chunk_file

BANNER = "/**\n * @license MIT\n * Copyright 2020 Someone\n */\n"


@pytest.mark.parametrize(("path", "source", "name", "doc"), [
    ("a.js", BANNER + "\nfunction add(a, b) { return a + b; }\n", "add(a, b)", ""),
    ("a.ts", "/** @fileoverview Helpers for dates. */\n\nexport function day(): number "
             "{ return 1; }\n", "day()", ""),
    ("a.js", "/** SPDX-License-Identifier: Apache-2.0 */\n\nfunction f() { return 1; }\n",
     "f()", ""),
    ("A.java", "/** Copyright (c) 2024 Example Corp. */\n\npublic record A(int x) {}\n",
     "A", ""),
    # a doc comment, a blank line, its declaration: still its doc
    ("a.js", "/** Adds two numbers. */\n\nfunction add(a, b) { return a + b; }\n", "add(a, b)",
     "Adds two numbers."),
    ("A.java", "/** A point. */\n\npublic record A(int x) {}\n", "A", "A point."),
    # a banner right above the declaration: as before
    ("a.js", "/** @license MIT */\nfunction add(a, b) { return a + b; }\n", "add(a, b)",
     "@license MIT"),
])
def test_a_file_banner_is_no_declaration_doc(path: str, source: str, name: str,
                                              doc: str) -> None:
    chunks = {c.name: c for c in chunk_file(path, source).chunks}
    assert chunks[name].doc == doc
