"""The light-model rewrite against scripted completers, including garbage answers."""

from __future__ import annotations

import json

import pytest
from doubles.completers import ScriptedCompleter

from paicli_tui.core.code.query import plan_query, plan_query_async
from paicli_tui.core.code.query.rewrite import Rewrite, cache_for, clean_rewrite, parse_rewrite
from paicli_tui.core.contracts.llm import LLMError
from paicli_tui.paths import HomePaths

QUESTION = "怎么把表格渲染到终端上？"


@pytest.fixture
def home(paicli_home) -> HomePaths:
    return HomePaths(paicli_home)


def test_good_rewrite_is_used_and_cached(home: HomePaths) -> None:
    model = ScriptedCompleter("render table terminal console_render")
    plan = plan_query(QUESTION, home=home, rewrite=model)
    assert plan.terms_source == "rewrite"
    assert plan.english_terms == "render table terminal console_render"
    assert plan.embedding_queries == [QUESTION, "render table terminal console_render"]
    assert "console_render" in plan.fulltext_query.split() and "表格" in plan.fulltext_query.split()
    assert "English search terms" in model.calls[0][0] and model.calls[0][1] == QUESTION
    # second time: memory cache, no call; the JSON cache under PAICLI_HOME/cache holds it
    plan_query(QUESTION, home=home, rewrite=model)
    assert len(model.calls) == 1
    stored = json.loads((home.cache_dir / "query_rewrite.json").read_text(encoding="utf-8"))
    assert list(stored.values()) == ["render table terminal console_render"]


def test_cache_survives_a_new_process(home: HomePaths) -> None:
    plan_query(QUESTION, home=home, rewrite=ScriptedCompleter("render table"))
    cache_for(home)._data = None  # forget the memory layer, as a new process would
    again = ScriptedCompleter(LLMError("must not be called"))
    assert plan_query(QUESTION, home=home, rewrite=again).english_terms == "render table"
    assert again.calls == []


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "   \n  ",
        "抱歉，我无法回答",
        "Sorry, I cannot help with that.",
        "Here are the search terms you asked for. They should help. Good luck finding it!",
        " ".join(["word"] * 80),
        "line one\nline two\nline three\nline four",
        LLMError("HTTP 500"),
        TimeoutError(),
    ],
)
def test_garbage_falls_back_to_the_offline_gloss(home: HomePaths, answer: str | Exception) -> None:
    plan = plan_query(QUESTION, home=home, rewrite=ScriptedCompleter(answer))
    assert plan.terms_source == "gloss"
    assert {"table", "render", "terminal"} <= set(plan.english_terms.split())
    assert not (home.cache_dir / "query_rewrite.json").exists()


def test_english_question_offline_plan_is_unchanged(home: HomePaths) -> None:
    plan = plan_query("Where is the table rendered?", home=home)
    assert plan.terms_source == "question" and plan.hypothesis == ""
    assert plan.embedding_queries == ["Where is the table rendered?"]
    # each word once, as its stem (which matches every form), then the thesaurus words
    assert plan.fulltext_query.startswith("tabl render")


HYPOTHESIS_ANSWER = ("render_table console width\n"
                     "signature: def render_table(console, table)\n"
                     "doc: Draws a table to the terminal, fitting the console width.")


def test_english_question_gets_identifier_words_and_a_hypothesis(home: HomePaths) -> None:
    model = ScriptedCompleter(HYPOTHESIS_ANSWER)
    plan = plan_query("Where is the table rendered?", home=home, rewrite=model)
    assert len(model.calls) == 1 and plan.terms_source == "rewrite"
    words = plan.fulltext_query.split()
    assert words[:2] == ["tabl", "render"]          # the question's own words first
    assert {"render_table", "consol", "width"} <= set(words)
    assert plan.embedding_queries == ["Where is the table rendered?"]
    assert plan.hypothesis == ("def render_table(console, table) Draws a table to the "
                               "terminal, fitting the console width.")
    cache_for(home)._data = None  # a new process: the hypothesis comes back from the file
    again = plan_query("Where is the table rendered?", home=home,
                       rewrite=ScriptedCompleter(LLMError("must not be called")))
    assert again.hypothesis == plan.hypothesis and again.fulltext_query == plan.fulltext_query


@pytest.mark.parametrize("answer", ["", "Sorry, I cannot help with that.", LLMError("500"),
                                    "signature: def f()\ndoc: does things"])
def test_english_garbage_gives_the_offline_plan(home: HomePaths, answer) -> None:
    offline = plan_query("Where is the table rendered?", home=home)
    plan = plan_query("Where is the table rendered?", home=home, rewrite=ScriptedCompleter(answer))
    assert plan == offline


@pytest.mark.parametrize(("answer", "expected"), [
    ("a b c", Rewrite("a b c")),
    (HYPOTHESIS_ANSWER, Rewrite("render_table console width",
                                "def render_table(console, table) Draws a table to the "
                                "terminal, fitting the console width.")),
    ("a b\nsignature: no parenthesis here\ndoc: Fine doc.", Rewrite("a b", "Fine doc.")),
    ("a b\nsignature: def f(x)\ndoc: 画一个表格", Rewrite("a b", "def f(x)")),
    ("a b\ndoc: Sorry, I cannot do that", Rewrite("a b")),
    ("a b\ndoc: " + "x" * 400, Rewrite("a b")),
    ("a b\nsomething else", Rewrite("a b")),
    ("signature: def f(x)", None),
    ("a\nb\nc\nd", None),
])
def test_parse_rewrite(answer: str, expected: Rewrite | None) -> None:
    assert parse_rewrite(answer) == expected
    if expected is not None:
        assert Rewrite.parse_cached(expected.serialise()) == expected


async def test_plan_from_inside_a_running_loop(home: HomePaths) -> None:
    model = ScriptedCompleter("render table")
    assert plan_query(QUESTION, home=home, rewrite=model).english_terms == "render table"
    assert (
        await plan_query_async(QUESTION, home=home, rewrite=model)
    ).english_terms == "render table"


@pytest.mark.parametrize(
    ("answer", "terms"),
    [
        ("render table terminal", "render table terminal"),
        ("Terms: render, table, terminal", "render table terminal"),
        ("render render table", "render table"),
        ("render_table(console)", None),
    ],
)
def test_clean_rewrite(answer: str, terms: str | None) -> None:
    if terms is None:
        assert clean_rewrite(answer) in (None, "render_table console")
    else:
        assert clean_rewrite(answer) == terms
