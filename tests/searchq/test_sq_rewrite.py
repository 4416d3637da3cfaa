"""The light-model rewrite against scripted completers, including garbage answers."""

from __future__ import annotations

import json

import pytest

from paicli_tui.core.code.query import plan_query, plan_query_async
from paicli_tui.core.code.query.rewrite import cache_for, clean_rewrite
from paicli_tui.core.contracts.llm import LLMError
from paicli_tui.paths import HomePaths

QUESTION = "怎么把表格渲染到终端上？"


class Scripted:
    """A TextCompleter that answers from a script and counts its calls."""

    def __init__(self, answer: str | Exception) -> None:
        self.answer = answer
        self.calls: list[tuple[str, str]] = []

    async def __call__(self, system: str, user: str) -> str:
        self.calls.append((system, user))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@pytest.fixture
def home(paicli_home) -> HomePaths:
    return HomePaths(paicli_home)


def test_good_rewrite_is_used_and_cached(home: HomePaths) -> None:
    model = Scripted("render table terminal console_render")
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
    plan_query(QUESTION, home=home, rewrite=Scripted("render table"))
    cache_for(home)._data = None  # forget the memory layer, as a new process would
    again = Scripted(LLMError("must not be called"))
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
    plan = plan_query(QUESTION, home=home, rewrite=Scripted(answer))
    assert plan.terms_source == "gloss"
    assert {"table", "render", "terminal"} <= set(plan.english_terms.split())
    assert not (home.cache_dir / "query_rewrite.json").exists()


def test_english_questions_never_call_the_model(home: HomePaths) -> None:
    model = Scripted("nope")
    plan = plan_query("Where is the table rendered?", home=home, rewrite=model)
    assert model.calls == [] and plan.terms_source == "question"
    assert plan.embedding_queries == ["Where is the table rendered?"]
    # each word once, as its stem (which matches every form), then the thesaurus words
    assert plan.fulltext_query.startswith("tabl render")


async def test_plan_from_inside_a_running_loop(home: HomePaths) -> None:
    model = Scripted("render table")
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
