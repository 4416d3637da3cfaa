"""English questions gain one thesaurus word per plain word; Chinese questions gain none."""

from __future__ import annotations

import pytest

from paicli_tui.core.code.query import plan_query
from paicli_tui.core.code.query.plan import SYNONYMS_PER_WORD, question_synonyms
from paicli_tui.paths import HomePaths


@pytest.fixture
def home(paicli_home) -> HomePaths:
    return HomePaths(paicli_home)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("is the current item the final one", {"last"}),
        ("where is the spacing around a box added", {"padding"}),
        ("delete the cached entries", {"remove"}),
        ("when does the worker begin", {"start"}),
        ("map a colour to the closest one", {"nearest"}),
        ("find the last item.", {"final", "element"}),  # a full stop ends a word too
    ],
)
def test_english_words_gain_their_main_synonym(question: str, expected: set[str]) -> None:
    assert expected <= set(question_synonyms(question))


@pytest.mark.parametrize(
    "question",
    [
        "loop_last FORCE_COLOR colorTheme os.path",  # identifiers are exact, never expanded
        "where is it and how does that work",  # scaffolding only
        "",
    ],
)
def test_identifiers_and_stop_words_gain_nothing(question: str) -> None:
    assert question_synonyms(question) == ()


def test_synonyms_are_never_stop_words() -> None:
    from paicli_tui.core.code.query.terms import STOP_WORDS

    # "find" heads the group of locate/search/lookup but would be dropped from a query
    added = question_synonyms("locate the parser routine")
    assert added and not set(added) & STOP_WORDS


def test_english_full_text_query_counts_each_word_once() -> None:
    from paicli_tui.core.code.query.terms import one_form_per_word

    assert one_form_per_word(["colors", "color", "rgb", "terminal", "termin"]) == [
        "color", "rgb", "termin"]
    assert one_form_per_word(["cell_len", "cell", "len"]) == ["cell_len", "cell", "len"]
    assert one_form_per_word([]) == []


def test_one_synonym_per_word_none_repeated_none_already_asked() -> None:
    words = ["final", "last", "delete", "remove"]
    added = question_synonyms(" ".join(words))
    assert len(added) <= SYNONYMS_PER_WORD * len(words)
    assert len(set(added)) == len(added)
    assert not set(added) & set(words)


def test_english_plan_puts_synonyms_in_the_fulltext_query_only(home: HomePaths) -> None:
    question = "Is there a helper that tells whether the current item is the final one?"
    plan = plan_query(question, home=home)
    assert "last" in plan.synonyms
    assert "last" in plan.fulltext_query.split()
    assert "final" in plan.fulltext_query.split()  # the question's own words stay
    assert "item" in plan.fulltext_query.split() and "items" not in plan.fulltext_query
    assert plan.embedding_queries == [question]  # the embedder reads the question untouched


def test_chinese_plan_gets_no_synonyms(home: HomePaths) -> None:
    plan = plan_query("怎么判断当前元素是不是最后一个？", home=home)
    assert plan.synonyms == ()


def test_grep_mode_greps_only_the_questions_own_words(paicli_home) -> None:
    from paicli_tui.config import load_settings
    from paicli_tui.core.code.grep_rank import grep_terms

    settings = load_settings({}, {"PAICLI_HOME": str(paicli_home)})
    terms = grep_terms(settings, "is the current item the final one")
    assert "final" in terms and "last" not in terms
