"""Chunking: Java via javalang with a tree-sitter fallback (same chunks either way), Python,
TypeScript and Go via tree-sitter, everything else as line-split file chunks."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paicli_tui.core.code.chunking import chunk_file, language_of
from paicli_tui.core.code.chunking.common import FILE_CHUNK_CHARS, is_data_heavy
from paicli_tui.core.code.chunking.java import chunk_java

FIXTURES = Path(__file__).parent / "fixtures" / "java17" / "src" / "main" / "java"
SHOP = "com/acme/shop"

# (file, parser javalang can/cannot use, [(kind, name, start_line, end_line)])
JAVA_EXPECTED = [
    ("Money.java", "tree-sitter", [
        ("class", "Money", 9, 9),
        ("method", "Money.Money(BigDecimal amount, String currency)", 12, 17),
        ("method", "Money.plus(Money other)", 19, 21),
    ]),
    ("Shape.java", "tree-sitter", [
        ("class", "Shape", 4, 4),
        ("class", "Circle", 15, 15),
        ("class", "Square", 21, 22),
        ("method", "Shape.area()", 5, 5),
        ("method", "Shape.describe(Shape shape)", 7, 12),
        ("method", "Circle.area()", 16, 18),
        ("method", "Square.Square(double side)", 24, 26),
        ("method", "Square.side()", 28, 30),
        ("method", "Square.area()", 32, 35),
    ]),
    ("Receipt.java", "tree-sitter", [
        ("class", "Receipt", 5, 6),
        ("method", "Receipt.Receipt(List<String> lines)", 8, 10),
        ("method", "Receipt.render()", 13, 19),
        ("method", "Receipt.weight(Object item)", 21, 33),
    ]),
    ("Inventory.java", "javalang", [
        ("class", "Inventory", 12, 16),
        ("class", "Inventory.Listener", 19, 19),
        ("class", "Inventory.Entry", 23, 24),
        ("class", "Inventory.Level", 31, 31),
        ("method", "Inventory.Listener.changed(String product, int delta)", 20, 20),
        ("method", "Inventory.Entry.Entry(K key)", 26, 28),
        ("method", "Inventory.Level.urgent()", 31, 31),
        ("method", "Inventory.addAll(Map<? extends K, ? super Integer> extra, T... keys)",
         33, 40),
        ("method", "Inventory.take(K key, Listener listener)", 46, 51),
        ("method", "Inventory.sortedKeys(int[] limits, String label)", 53, 62),
        ("method", "Inventory$Comparator.compare(K a, K b)", 56, 59),
        ("method", "Inventory.total()", 64, 66),
    ]),
    ("Helpers.java", "javalang", [
        ("class", "Helpers", 3, 3),
        ("method", "Helpers.Helpers()", 4, 5),
        ("method", "Helpers.round(int value)", 7, 9),
    ]),
]


def _java(name: str) -> tuple[str, str]:
    rel = f"src/main/java/{SHOP}/{name}"
    return rel, (FIXTURES / SHOP / name).read_text(encoding="utf-8")


@pytest.mark.parametrize(("name", "parser", "expected"), JAVA_EXPECTED,
                         ids=[e[0] for e in JAVA_EXPECTED])
def test_java_chunks_every_method_with_exact_lines(name: str, parser: str,
                                                   expected: list[tuple]) -> None:
    rel, text = _java(name)
    result = chunk_file(rel, text)
    assert result.parser == parser
    assert [(c.kind, c.name, c.start_line, c.end_line) for c in result.chunks] == expected
    lines = text.split("\n")
    for chunk in result.chunks:
        if chunk.kind == "method":
            # full source from the first annotation/modifier to the closing brace
            assert chunk.source == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
            assert chunk.source.rstrip().endswith(("}", ";"))


@pytest.mark.parametrize("name", ["Inventory.java", "Helpers.java", "PriceBook.java", "Tricky.java",
                                  "Store.java", "BaseStore.java"])
def test_javalang_and_treesitter_agree_where_both_parse(name: str) -> None:
    rel, text = _java(name)
    by_javalang = chunk_java(rel, text)
    by_treesitter = chunk_java(rel, text, force_treesitter=True)
    assert by_javalang.parser == "javalang" and by_treesitter.parser == "tree-sitter"

    def view(result):
        return [(c.kind, c.name, c.start_line, c.end_line, c.signature, c.doc, c.parent)
                for c in result.chunks]

    assert view(by_javalang) == view(by_treesitter)
    assert set(by_javalang.edges) == set(by_treesitter.edges)


def test_java_doc_signature_and_context() -> None:
    rel, text = _java("Inventory.java")
    chunks = {c.name: c for c in chunk_file(rel, text).chunks}
    take = chunks["Inventory.take(K key, Listener listener)"]
    assert take.doc == "Removes one unit and tells the listener.\n@param key the product"
    assert take.signature == "public int take(K key, Listener listener)"
    assert take.parent == "Inventory"
    assert "package com.acme.shop" in take.context and "java.util.Map" in take.context
    cls = chunks["Inventory"]
    assert cls.doc == "Stock levels per product, with a listener for changes."
    assert cls.signature.startswith('@SuppressWarnings({"unchecked", "rawtypes"}) public class '
                                    "Inventory<K extends Comparable<K>>")
    assert cls.extra["type_kind"] == "class"


def test_java_edges_cover_every_kind() -> None:
    rel, text = _java("Inventory.java")
    edges = {(e.src, e.kind, e.dst) for e in chunk_file(rel, text).edges}
    assert ("Inventory", "extends", "BaseStore") in edges
    assert ("Inventory", "implements", "Store") in edges
    assert ("Inventory", "imports", "java.util.HashMap") in edges
    assert ("Inventory", "contains", "Inventory.take") in edges
    assert ("Inventory", "contains", "Inventory.Listener") in edges
    assert ("Inventory.total", "calls", "PriceBook.priceOf") in edges  # field type resolved
    assert ("Inventory.total", "calls", "Helpers.round") in edges  # static call
    assert ("Inventory.take", "calls", "Listener.changed") in edges  # parameter type
    assert ("Inventory.sortedKeys", "calls", "ArrayList.ArrayList") in edges  # new


def test_unparseable_java_becomes_file_chunks() -> None:
    result = chunk_java("Broken.java", "this is { not java at all\n" * 5)
    assert result.parser == "lines"
    assert all(c.kind == "file" for c in result.chunks)


PYTHON = '''"""Module doc."""
import os
from typing import Any


class Base(object):
    """Base doc."""

    x = 1

    @property
    def name(self, y: int = 3, *args, **kw) -> str:
        """Name doc."""
        return self.helper(os.path.join("a"))

    def helper(self, p):
        def inner():
            pass
        return Other.make(p)


def top(a, b=2):
    return Base()
'''


def test_python_chunks_and_edges() -> None:
    result = chunk_file("pkg/mod.py", PYTHON)
    assert [(c.kind, c.name, c.start_line, c.end_line) for c in result.chunks] == [
        ("class", "Base", 6, 9),
        ("method", "Base.name(self, y: int, *args, **kw)", 12, 14),  # def line, as ast
        ("method", "Base.helper(self, p)", 16, 19),
        ("function", "top(a, b)", 22, 23),
    ]
    name = result.chunks[1]
    assert name.doc == "Name doc." and name.parent == "Base"
    assert name.signature == "def name(self, y: int = 3, *args, **kw) -> str"
    assert "module pkg.mod" in name.context and "typing.Any" in name.context
    edges = {(e.src, e.kind, e.dst) for e in result.edges}
    assert {("pkg.mod", "imports", "os"), ("Base", "extends", "object"),
            ("Base", "contains", "Base.helper"), ("Base.name", "calls", "Base.helper"),
            ("Base.helper", "calls", "Other.make"), ("top", "calls", "Base")} <= edges


TS = """import { x } from './x';
/** Greeter doc */
export class Greeter extends Base implements I {
  greet(name: string): string { return this.fmt(name); }
  fmt = (s: string) => s.trim();
}
export function hello(a: number) { return new Greeter().greet("a"); }
const arrow = (q) => q * 2;
"""

GO = """package main

import "fmt"

// Server serves.
type Server struct {
\tname string
}

// Start starts it.
func (s *Server) Start(port int) error {
\tfmt.Println(s.name)
\treturn nil
}
"""


def test_typescript_and_go_chunks() -> None:
    ts = chunk_file("web/app.ts", TS)
    assert [(c.kind, c.name, c.start_line, c.end_line) for c in ts.chunks] == [
        ("class", "Greeter", 3, 6),
        ("method", "Greeter.greet(name: string)", 4, 4),
        ("method", "Greeter.fmt(s: string)", 5, 5),
        ("function", "hello(a: number)", 7, 7),
        ("function", "arrow(q)", 8, 8),
    ]
    assert ts.chunks[0].doc == "Greeter doc"
    assert ("Greeter", "extends", "Base") in {(e.src, e.kind, e.dst) for e in ts.edges}
    go = chunk_file("cmd/main.go", GO)
    assert [(c.kind, c.name, c.start_line, c.end_line) for c in go.chunks] == [
        ("class", "Server", 6, 8),
        ("method", "Server.Start(port int)", 11, 14),
    ]
    assert go.chunks[1].doc == "Start starts it."


def test_a_type_alias_is_a_definition() -> None:
    """``type ID = string`` in Go and ``type Props = {…}`` in TypeScript are types as much as
    a struct or an interface: they were in no chunk of their own, so searching for the name
    never found where it is defined. A long alias keeps its head, as a class does."""
    fields = "".join(f"  field{n}: string;\n" for n in range(100))
    ts = chunk_file("web/props.ts", "/** What the view takes. */\nexport type Props = {\n"
                    f"{fields}}};\ntype Id = string;\n")
    assert [(c.kind, c.name, c.start_line, c.end_line) for c in ts.chunks] == [
        ("class", "Props", 2, 14), ("class", "Id", 104, 104)]
    assert ts.chunks[0].doc == "What the view takes." and len(ts.chunks[0].signature) <= 200
    go = chunk_file("ids.go", "package ids\n\n// ID names a user.\ntype ID = string\n\n"
                    "type (\n\tName = string\n\tUser struct{ id ID }\n)\n")
    assert [(c.kind, c.name, c.start_line, c.end_line, c.doc) for c in go.chunks] == [
        ("class", "ID", 4, 4, "ID names a user."), ("class", "Name", 7, 7, ""),
        ("class", "User", 8, 8, "")]


def test_data_tables_do_not_become_chunks() -> None:
    table = "WIDTHS = [\n" + "".join(f"    ({i}, {i + 5}, 2),\n" for i in range(400)) + "]\n"
    code = "def f(x):\n    return x\n"
    result = chunk_file("pkg/_table.py", table + "\n\n" + code)
    assert [c.name for c in result.chunks] == ["f(x)"]
    assert result.skipped_data_chunks > 0
    assert is_data_heavy(table)
    assert not is_data_heavy(PYTHON * 3)


@pytest.mark.parametrize(("path", "language"), [
    ("a/B.java", "java"), ("x.py", "python"), ("x.tsx", "tsx"), ("x.mjs", "javascript"),
    ("x.go", "go"), ("README.md", "text"), ("x.kt", "text"), ("logo.png", None),
    ("poetry.lock", None),
])
def test_language_of(path: str, language: str | None) -> None:
    assert language_of(path) == language


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",),
                                               blacklist_characters="\r\n\x0b\x0c\x1c\x1d\x1e"
                                                                    "\x85\u2028\u2029"),
                        max_size=300), min_size=1, max_size=60))
def test_file_chunks_cover_lines_in_order_and_stay_small(lines: list[str]) -> None:
    text = "\n".join(lines)
    result = chunk_file("notes.txt", text)
    previous_end = 0
    for chunk in result.chunks:
        assert chunk.start_line > previous_end
        assert chunk.end_line >= chunk.start_line
        assert chunk.source == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
        single_line = chunk.start_line == chunk.end_line
        assert single_line or len(chunk.source) <= FILE_CHUNK_CHARS
        previous_end = chunk.end_line


def test_a_pathological_java_file_still_gets_chunks() -> None:
    nested = "(" * 3000 + "1" + ")" * 3000
    text = f"class Deep {{\n    int f() {{\n        return {nested};\n    }}\n}}\n"
    result = chunk_file("Deep.java", text)
    assert result.chunks  # javalang recursed too deep; tree-sitter or lines took over


PLAIN_COMMENTS_JAVA = """/*
 * Copyright (c) 2024 Example Corp. Licensed under the Apache License.
 */
package com.acme;

public class Zip {
    /*
     * Reads the end header and finds where the central directory starts.
     */
    private int findEnd(byte[] buf) {
        return 0;
    }

    // Returns the inflater to its pool
    // so that the next entry can reuse it.
    @Override
    void release(Object inflater) {
    }

    // count++;
    // return count;
    int commentedOut() { return 1; }

    /** The real Javadoc wins. */
    // a stray plain comment
    int both() { return 2; }

    private int count; /* number of items */
    int size() { return count; }

    /* Matches names like
     * src/*.java only. */
    boolean match() { return true; }

    // separated by a blank line: not this method's

    int apart() { return 3; }
}
"""


@pytest.mark.parametrize("force_treesitter", [False, True])
def test_java_plain_comment_above_a_member_is_its_doc(force_treesitter: bool) -> None:
    result = chunk_java("src/Zip.java", PLAIN_COMMENTS_JAVA, force_treesitter=force_treesitter)
    docs = {c.name: c.doc for c in result.chunks}
    assert docs["Zip.findEnd(byte[] buf)"] == ("Reads the end header and finds where the "
                                               "central directory starts.")
    assert docs["Zip.release(Object inflater)"] == ("Returns the inflater to its pool\n"
                                                    "so that the next entry can reuse it.")
    assert docs["Zip.commentedOut()"] == ""  # commented-out code is not a doc
    assert docs["Zip.both()"] == "The real Javadoc wins."  # both parsers look past the note
    assert docs["Zip.size()"] == ""  # a comment ending a line of code is that line's
    assert docs["Zip.match()"] == "Matches names like\nsrc/*.java only."
    assert docs["Zip.apart()"] == ""  # a comment not touching the declaration
    assert docs["Zip"] == ""  # the licence header is nobody's doc


@pytest.mark.parametrize(("lines", "start", "expected"), [
    (["// one", "// two", "f()"], 3, "// one\n// two"),
    (["/* a", " * b */", "f()"], 3, "/* a\n* b */"),
    (["x = 1", "f()"], 2, ""),
    (["// SPDX-License-Identifier: MIT", "f()"], 2, ""),
    (["// @generated by protoc, do not edit", "f()"], 2, ""),
    (["f()"], 1, ""),
    (["oops */", "f()"], 2, ""),  # an end marker without its start is not a block
    (["int n; /* items */", "f()"], 2, ""),  # trailing comment of a code line
    (["/*", "   Reads the header", "   of the file */", "f()"], 4,
     "/*\nReads the header\nof the file */"),  # a block without leading stars
    (["// Validates the license key", "f()"], 2, "// Validates the license key"),
    (["// eslint-disable-next-line no-console", "f()"], 2, ""),
    (["//"] + ["// line"] * 41 + ["f()"], 43, ""),  # longer than 40 lines: not a doc
])
def test_comment_above(lines: list[str], start: int, expected: str) -> None:
    from paicli_tui.core.code.chunking.common import comment_above

    assert comment_above(lines, start) == expected


def test_typescript_plain_comment_is_a_fallback_doc() -> None:
    ts = chunk_file("web/util.ts",
                    "// Turns a title into a URL slug.\nexport function slug(t: string) {\n"
                    "  return t;\n}\n")
    assert ts.chunks[0].doc == "Turns a title into a URL slug."


def test_typescript_trailing_comment_is_not_the_next_functions_doc() -> None:
    ts = chunk_file("web/calc.ts",
                    "const x = compute(); // cached total\nfunction total() {\n  return x;\n}\n"
                    "/** Sums the cart. */\n// eslint-disable-next-line no-console\n"
                    "function sum() {\n  return 1;\n}\n")
    docs = {c.name: c.doc for c in ts.chunks}
    assert docs["total()"] == ""
    assert docs["sum()"] == "Sums the cart."  # the JSDoc, looked up past the directive
