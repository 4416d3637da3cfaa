"""A method declared without a body (interface / abstract) is answered by its implementation:
the pure replacement (order, each result once, what stays), the parameter-type key, and the
whole path through search_project with --explain naming the declaration."""

from __future__ import annotations

from pathlib import Path

import pytest
from doubles.embedders import HashEmbedder
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from paicli_tui.core.code.declarations import (
    implementations_for_declarations,
    is_bodiless,
    reaches,
    signature_key,
)
from paicli_tui.core.code.fusion import rrf
from paicli_tui.core.code.indexer import CodeIndexer
from paicli_tui.core.code.search import answers_for, search_project


def _method(name: str, parent: str, source: str, language: str = "java",
            kind: str = "method") -> dict:
    return {"name": name, "parent": parent, "source": source, "language": language,
            "kind": kind, "path": f"{parent}.java"}


ROWS = {
    "decl": _method("Shape.area(double scale)", "Shape", "    double area(double scale);"),
    "other": _method("Util.log(String s)", "Util", "void log(String s) { }"),
    "overload": _method("Square.area(int steps)", "Square", "double area(int steps) { return 1; }"),
    "impl": _method("Circle.area(double factor)", "Circle",
                    "@Override\npublic double area(double factor) {\n  return 3.14;\n}"),
    "lone": _method("Sink.drain()", "Sink", "void drain();"),
    "stranger": _method("Gauge.area(double d)", "Gauge", "double area(double d) { return 0; }"),
    "py": _method("Shape.area(self)", "Shape", "def area(self): ...", language="python",
                  kind="method"),
}


SUPERTYPES = {"Circle": ["geo.Round"], "Round": ["Shape<Double>"], "Square": ["Shape"],
              "Loop": ["Cycle"], "Cycle": ["Loop"]}


def supertypes(name: str) -> list[str]:
    return SUPERTYPES.get(name, [])


@pytest.mark.parametrize(("order", "expected"), [
    # the declaration ranks first, its implementation fourth: the implementation takes
    # the first place and is not listed again; the overload (other parameter types) and a
    # declaration nobody implements stay
    (["decl", "other", "overload", "impl", "lone"],
     [("impl", "Shape.area(double scale)"), ("other", ""), ("overload", ""), ("lone", "")]),
    # a same-named method of a class that does not implement Shape never answers it (Gauge
    # has no supertype); the real implementation further down does
    (["decl", "stranger", "impl"],
     [("impl", "Shape.area(double scale)"), ("stranger", "")]),
    (["decl", "stranger"], [("decl", ""), ("stranger", "")]),
    # the implementation ranks above its declaration: the declaration adds nothing
    (["impl", "other", "decl"], [("impl", ""), ("other", "")]),
    # no implementation found: the declaration stays where it is
    (["decl", "other"], [("decl", ""), ("other", "")]),
    # Python never ends a method at ';': nothing changes
    (["py", "impl"], [("py", ""), ("impl", "")]),
])
def test_a_declaration_is_answered_by_its_best_ranked_implementation(order, expected) -> None:
    fused = rrf({"text": order})
    picked = [(hit.id, via) for hit, via in
              implementations_for_declarations(fused, ROWS, supertypes)]
    assert picked == expected


@pytest.mark.parametrize(("cls", "declaring", "expected"), [
    ("Square", "Shape", True),            # implements it
    ("Circle", "Shape", True),            # through Round, package and type arguments aside
    ("Circle", "outer.Shape", True),
    ("Gauge", "Shape", False),            # no supertypes
    ("Loop", "Shape", False),             # a cycle in a broken tree ends
    ("Shape", "Shape", False),            # the declaring type itself is not an implementation
])
def test_an_implementation_must_extend_or_implement_the_declaring_type(cls, declaring,
                                                                        expected) -> None:
    assert reaches(cls, declaring, supertypes) is expected


@pytest.mark.parametrize(("row", "key"), [
    (_method("A.put(final @Nullable String s, @Size(max = 3) int n)", "A", ""),
     ("java", "put", ("String", "int"))),
    (_method("A.put(Map<K, V> m, int[] n)", "A", ""), ("java", "put", ("Map<K, V>", "int[]"))),
    (_method("A.run()", "A", ""), ("java", "run", ())),
    (_method("Q.fetch(key: string, n: number)", "Q", "", language="typescript"),
     ("typescript", "fetch", ("key: string", "n: number"))),
    (_method("Q", "", "", kind="class"), None),
])
def test_signature_key(row: dict, key) -> None:
    assert signature_key(row) == key


@pytest.mark.parametrize(("source", "kind", "expected"), [
    ("double area();", "method", True),
    ("@Deprecated\n  abstract void run(int n);\n", "method", True),
    ("int level() default 1;", "method", True),
    ("void run() {\n  go();\n}", "method", False),
    ("class A;", "class", False),
])
def test_is_bodiless(source: str, kind: str, expected: bool) -> None:
    assert is_bodiless({"kind": kind, "source": source}) is expected


def test_answers_for_resolves_declarations_then_classes() -> None:
    rows = dict(ROWS)
    rows["cls"] = {"name": "Circle", "parent": "", "kind": "class", "path": "Circle.java",
                   "language": "java", "source": "class Circle {"}
    fused = rrf({"text": ["cls", "decl", "other", "impl"]})
    assert [(h.id, via, decl) for h, via, decl in answers_for(fused, rows, supertypes)] == [
        ("impl", "Circle", "Shape.area(double scale)"), ("other", "", "")]


def test_search_answers_an_interface_question_with_the_implementation(
        settings, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The question's words are in the interface's Javadoc; the implementation has none.
    ``paicli-tui search --explain`` shows the implementation with its ranks and the line
    naming the declaration it answers."""
    from paicli_tui import cli

    root = tmp_path / "shop"
    (root / "src").mkdir(parents=True)
    (root / "src" / "Pricing.java").write_text(
        "package shop;\n\ninterface Pricing {\n"
        "    /** Computes the discounted total of a basket for a loyal customer. */\n"
        "    long discountedTotal(long basket);\n}\n", encoding="utf-8")
    (root / "src" / "LoyalPricing.java").write_text(
        "package shop;\n\nclass LoyalPricing implements Pricing {\n"
        "    @Override\n    public long discountedTotal(long cents) {\n"
        "        return cents - cents / 10;\n    }\n}\n", encoding="utf-8")
    CodeIndexer(settings, root, HashEmbedder()).update()
    response = search_project(settings, root, "discounted total of a basket for a loyal customer",
                              mode="text", top_k=3, embedder=HashEmbedder())
    first = response.hits[0]
    assert (first.name, first.path, first.start_line, first.end_line) == (
        "LoyalPricing.discountedTotal(long cents)", "src/LoyalPricing.java", 4, 7)
    assert first.via_declaration == "Pricing.discountedTotal(long basket)"
    assert first.to_json(explain=True)["via_declaration"] == "Pricing.discountedTotal(long basket)"
    assert "Pricing.discountedTotal(long basket)" not in [h.name for h in response.hits]
    monkeypatch.chdir(root)
    assert cli.main(["search", "--mode", "text", "--explain", "--top-k", "1",
                     "discounted total of a basket for a loyal customer"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("1. src/LoyalPricing.java:4-7  method "
                               "LoyalPricing.discountedTotal(long cents)  (")
    assert lines[1] == "   ranks: text #2"
    assert lines[2] == "   answers the declaration Pricing.discountedTotal(long basket) (no body)"


def test_search_never_answers_a_declaration_with_an_unrelated_namesake(settings,
                                                                      tmp_path: Path) -> None:
    """``Task.run()`` ranks first for words of its Javadoc; ``HttpServer.run()`` has the same
    name and parameters but does not implement Task: the declaration stays, the stranger
    never takes its place (before, any same-named method of another class did)."""
    root = tmp_path / "jobs"
    (root / "src").mkdir(parents=True)
    (root / "src" / "Task.java").write_text(
        "package jobs;\n\ninterface Task {\n"
        "    /** Runs the nightly cleanup of expired shopping carts. */\n"
        "    void run();\n}\n", encoding="utf-8")
    (root / "src" / "HttpServer.java").write_text(
        "package web;\n\nclass HttpServer {\n"
        "    public void run() {\n        serve(8080);\n    }\n}\n", encoding="utf-8")
    CodeIndexer(settings, root, HashEmbedder()).update()
    response = search_project(settings, root, "nightly cleanup of expired shopping carts",
                              mode="hybrid", top_k=5, embedder=HashEmbedder())
    names = [h.name for h in response.hits]
    assert names[0] == "Task.run()" and response.hits[0].via_declaration == ""
    assert "HttpServer.run()" in names  # it was a candidate, ranked on its own


@hypothesis_settings(max_examples=500, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["(", ")", "a", ".", " ", "\n", "\t", ","]),
                max_size=14).map("".join))
def test_a_parameter_list_is_found_where_the_pattern_found_it(name: str) -> None:
    import re

    from paicli_tui.core.code.declarations import _params

    found = re.compile(r"\((.*)\)\s*$", re.S).search(name)
    assert _params(name) == ((found.start(), found.group(1)) if found else None)


def test_a_name_of_open_brackets_is_read_in_one_pass() -> None:
    # the pattern scanned to the end from every "(": 12,000 took a second, 100,000 a minute
    from paicli_tui.core.code.declarations import signature_key

    assert signature_key({"name": "A.f" + "(" * 100_000, "language": "java"}) is None
    assert signature_key({"name": "A.f(" + "(" * 100_000 + ")", "language": "python"})
