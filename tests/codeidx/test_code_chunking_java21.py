"""Java 21 files chunk into their methods with their Javadoc: records (compact constructors),
sealed and non-sealed types, enums with constant bodies, switch expressions with patterns,
guards and ``yield``, record patterns, text blocks, local and anonymous classes, lambdas in
fields, generic methods, annotation-heavy methods, annotation types, and files the grammar
cannot fully parse. javalang reads none of these files, so tree-sitter-java does."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli_tui.core.code.chunking import chunk_file
from paicli_tui.core.code.ranking_text import fulltext_text

FIXTURES = Path(__file__).parent / "fixtures" / "java21"

# (file, [(kind, name, start_line, end_line, doc)])
JAVA21_EXPECTED = [
    ("Shapes.java", [
        ("class", "Shape", 6, 6, "A shape of the plane."),
        ("class", "Circle", 22, 22, "A circle given by its radius."),
        ("class", "Square", 34, 34, ""),
        ("class", "Planet", 39, 45, "Planets with their masses."),
        ("class", "Holder", 52, 54, ""),
        ("class", "Holder.Local", 66, 66, ""),
        ("class", "Holder.Inner", 74, 74, ""),
        ("method", "Shape.area()", 8, 8, "Area of the shape in square units."),
        ("method", "Shape.describe(Object o)", 11, 18,
         "Describes a shape in words, using a switch with patterns."),
        ("method", "Circle.Circle(double r)", 24, 26, "Checks the radius is not negative."),
        ("method", "Circle.area()", 29, 31, "The area, pi r squared."),
        ("method", "Square.area()", 35, 35, ""),
        ("method", "Planet$MERCURY.greet()", 41, 41, ""),
        ("method", "Planet.Planet(double mass)", 46, 46, ""),
        ("method", "Planet.greet()", 49, 49, "A greeting."),
        ("method", "Holder.sql()", 57, 62, "Returns the SQL text."),
        ("method", "Holder.max(List<? extends T> items)", 65, 72, "Finds the largest element."),
        ("method", "Holder.Local.count()", 66, 66, ""),
        ("method", "Holder$Runnable.run()", 68, 68, ""),
        ("method", "Holder.Inner.work()", 76, 76, "Inner work."),
        ("method", "Holder$Iterator.hasNext()", 81, 81, ""),
        ("method", "Holder$Iterator.next()", 82, 82, ""),
    ]),
    ("Trees.java", [
        ("class", "Node", 4, 4, "Base of the tree."),
        ("class", "Leaf", 10, 10, "A leaf."),
        ("class", "Branch", 15, 15, ""),
        ("class", "Visitor", 20, 20, "Visitor."),
        ("class", "Pair", 28, 28, "A pair record with a generic."),
        ("class", "Marker", 35, 35, "Marks things."),
        ("class", "Sw", 41, 41, ""),
        ("method", "Node.accept(Visitor<T, R> v)", 6, 6, "Visits the node."),
        ("method", "Leaf.accept(Visitor<T, R> v)", 12, 12, "Accept a visitor."),
        ("method", "Branch.accept(Visitor<T, R> v)", 16, 16, ""),
        ("method", "Visitor.leaf(Leaf<T> l)", 21, 21, ""),
        ("method", "Visitor.both(R a, R b)", 23, 23, "Default combining."),
        ("method", "Visitor.helper()", 24, 24, ""),
        ("method", "Pair.swap()", 30, 30, "Swaps the pair."),
        ("method", "Pair.twin(X x)", 31, 31, ""),
        ("method", "Marker.level()", 37, 37, "The level."),
        ("method", "Marker.tags()", 38, 38, ""),
        ("method", "Sw.kind(int d)", 43, 51, "Day kind with yield."),
        ("method", "Sw.name(Object o)", 53, 59, "Unnamed pattern (Java 21 preview / 22)."),
    ]),
    # Javadoc, then a blank line, then the declaration (javadoc and javalang accept it): the
    # doc still belongs to the declaration, also past a plain comment; not past a field
    ("Spaced.java", [
        ("class", "Spaced", 9, 9,
         "Keeps totals per key.\n<p>\nThe Javadoc is followed by a blank line, a layout javadoc "
         "accepts."),
        ("method", "Spaced.plus(long amount)", 16, 19, "Adds an amount to the total."),
        ("method", "Spaced.label()", 24, 26, ""),
    ]),
    # a broken parameter list and a string template: the grammar reports errors, every
    # method still gets its own chunk and its Javadoc
    ("Broken.java", [
        ("class", "Broken", 4, 4, "Utilities."),
        ("method", "Broken.add(int a, int b)", 6, 8, "Adds numbers."),
        ("method", "Broken.oops()", 11, 13, "This one is broken."),
        ("method", "Broken.mul(int a, int b)", 16, 18, "Multiplies numbers."),
        ("method", "Broken.fmt(Object o)", 21, 23, "Uses a newer syntax the grammar may not know."),
        ("method", "Broken.last()", 26, 26, "Still here after."),
    ]),
]


@pytest.mark.parametrize(("name", "expected"), JAVA21_EXPECTED, ids=[e[0] for e in JAVA21_EXPECTED])
def test_java21_files_chunk_into_methods_with_their_javadoc(name: str, expected: list) -> None:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    result = chunk_file(f"src/main/java/demo/{name}", text)
    assert result.parser == "tree-sitter"
    assert [(c.kind, c.name, c.start_line, c.end_line, c.doc) for c in result.chunks] == expected
    lines = text.split("\n")
    for chunk in result.chunks:
        assert chunk.source == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
        if chunk.kind == "method":
            assert chunk.source.rstrip().endswith(("}", ";"))


def test_annotations_between_javadoc_and_method_stay_in_the_chunk() -> None:
    text = (FIXTURES / "Shapes.java").read_text(encoding="utf-8")
    area = next(c for c in chunk_file("Shapes.java", text).chunks if c.name == "Circle.area()")
    assert area.source.splitlines()[0].strip() == "@Override"
    assert area.signature == ('@Override @SuppressWarnings({"unchecked", "rawtypes"}) '
                              "public double area()")


def test_a_text_block_and_a_lambda_field_are_searchable_words() -> None:
    text = (FIXTURES / "Shapes.java").read_text(encoding="utf-8")
    chunks = {c.name: c for c in chunk_file("Shapes.java", text).chunks}
    assert "WHERE { x } = 1" in chunks["Holder.sql()"].source
    # the field's lambda sits in the class chunk (declaration and fields)
    holder = fulltext_text(chunks["Holder"])
    assert "BY_LENGTH" in holder and "by length" in holder


def test_both_java_parsers_attach_a_javadoc_across_a_blank_line() -> None:
    """javalang reads this file; tree-sitter (which reads every file javalang cannot) must
    give the same chunks and docs: it used to drop a Javadoc followed by a blank line."""
    from paicli_tui.core.code.chunking.java import chunk_java

    text = (FIXTURES / "OldSpaced.java").read_text(encoding="utf-8")
    by_javalang = chunk_java("OldSpaced.java", text)
    by_treesitter = chunk_java("OldSpaced.java", text, force_treesitter=True)
    assert (by_javalang.parser, by_treesitter.parser) == ("javalang", "tree-sitter")
    expected = [
        ("class", "OldSpaced", 7, 7, "Old-style class whose Javadoc is followed by a blank line."),
        ("method", "OldSpaced.twice(int x)", 14, 14, "Doubles a number.\n@param x the number"),
    ]
    for result in (by_javalang, by_treesitter):
        assert [(c.kind, c.name, c.start_line, c.end_line, c.doc) for c in result.chunks] == expected


@pytest.mark.parametrize("path", ["util.js", "util.ts"])
def test_a_jsdoc_followed_by_a_blank_line_is_the_functions_doc(path: str) -> None:
    text = ("/** Adds two numbers.\n * @param a first\n */\n\nexport function add(a, b) {\n"
            "  return a + b;\n}\n\n/** About x. */\nconst x = 1;\n\nfunction other() { return x; }\n")
    chunks = chunk_file(path, text).chunks
    assert [(c.name, c.start_line, c.end_line, c.doc) for c in chunks] == [
        ("add(a, b)", 5, 7, "Adds two numbers.\n@param a first"),
        ("other()", 12, 12, ""),  # the constant between them keeps its own comment
    ]
