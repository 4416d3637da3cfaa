"""QueryPlan: what each ranker of a code search is asked, decided once per question.

English questions are used as they are, and their full-text words gain one synonym each
from the programming thesaurus (query.synonyms): a person asks for the "final" item where the
code says ``last``. A Chinese or mixed question keeps its original text for the multilingual
embedder and also gets an English reading (the light model's rewrite when one is configured
and answers sensibly, else the offline dictionary gloss) for the full-text index and a second
embedding query; it gets no synonyms, because the gloss already lists several senses of each
word and more alternatives only add noise. With a light model configured, any question also
gets the model's likely identifier words (full-text) and its guess at the code's declaration
and doc comment (``hypothesis``, one more embedding query); a bad answer changes nothing.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import re
from dataclasses import dataclass, field
from typing import Literal

from ....paths import HomePaths
from ...contracts.llm import TextCompleter
from ...text.gloss import Gloss, gloss_question
from .language import QueryLanguage, detect_language
from .rewrite import Rewrite, rewrite_query
from .synonyms import expand
from .terms import STOP_WORDS, code_terms, has_cjk, one_form_per_word

TermsSource = Literal["question", "gloss", "rewrite"]


@dataclass(frozen=True)
class QueryPlan:
    """The queries one search runs. ``fulltext_query`` is plain space-separated words (no
    query syntax); ``embedding_queries`` starts with the original question."""

    original: str
    language: QueryLanguage
    english_terms: str
    fulltext_query: str
    embedding_queries: list[str]
    terms_source: TermsSource = "question"
    """Where ``english_terms`` came from: the question itself, the offline gloss, or the model."""
    gloss: tuple[tuple[str, tuple[str, ...]], ...] = field(default=())
    """Each Chinese word of the question and the English it was glossed to (for --explain)."""
    synonyms: tuple[str, ...] = field(default=())
    """Thesaurus words added to the full-text query of an English question (for --explain)."""
    hypothesis: str = ""
    """The light model's guess at the code's declaration and doc comment ("" without one):
    embedded as one more query, since it reads like the chunks' own embedded text."""


SYNONYMS_PER_WORD = 1
"""Thesaurus words added per question word: the group's main spelling. More only added noise
on the development set (recall fell) while one lifted it."""
_PLAIN_WORD = re.compile(r"(?<!\w)(?<!\w\.)[A-Za-z][a-z]+(?!\w)(?!\.\w)")
"""A plain English word; identifiers (snake_case, camelCase, dotted) are exact and not expanded."""


def question_synonyms(question: str) -> tuple[str, ...]:
    """Thesaurus words for the plain English words of ``question``, in question order, none
    already in the question: at most SYNONYMS_PER_WORD per word."""
    words = list(dict.fromkeys(
        w.lower() for w in _PLAIN_WORD.findall(question) if w.lower() not in STOP_WORDS
    ))
    expansions = expand(words)
    added: list[str] = []
    for word in words:
        # a stop word ("find", "function") would be dropped from the query: take the next one
        usable = [s for s in expansions.get(word, ()) if s not in STOP_WORDS]
        for synonym in usable[:SYNONYMS_PER_WORD]:
            if synonym not in words and synonym not in added:
                added.append(synonym)
    return tuple(added)


def _fulltext_words(english: str, chinese_words: list[str]) -> list[str]:
    words = list(dict.fromkeys(code_terms(english)))
    return words + [w for w in dict.fromkeys(chinese_words) if w not in words]


def _build(
    question: str, language: QueryLanguage, gloss: Gloss | None, rewritten: Rewrite | None
) -> QueryPlan:
    text = " ".join(question.split())
    hypothesis = rewritten.hypothesis if rewritten else ""
    if language == "en" or gloss is None:
        synonyms = question_synonyms(text)
        added = rewritten.terms if rewritten else ""
        # every word of an English question counts once: its stem stands for all its forms
        # (a Chinese question's gloss keeps both: folding it lost questions on the dev set);
        # the model's words (likely identifiers) come after the question's own
        fulltext = " ".join(one_form_per_word(
            _fulltext_words(" ".join((text, *synonyms, added)), [])))
        return QueryPlan(text, language, " ".join(p for p in (text, added) if p), fulltext,
                         [text], terms_source="rewrite" if rewritten else "question",
                         synonyms=synonyms, hypothesis=hypothesis)
    chinese = [p.source for p in gloss.pieces if has_cjk(p.source)]
    english = rewritten.terms if rewritten else gloss.text
    source: TermsSource = "rewrite" if rewritten else "gloss"
    queries = [text]
    reading = rewritten.terms if rewritten else gloss.primary_text
    if reading and reading != text:
        queries.append(reading)
    return QueryPlan(
        original=text,
        language=language,
        english_terms=english,
        fulltext_query=" ".join(_fulltext_words(english, chinese)),
        embedding_queries=queries,
        terms_source=source,
        gloss=tuple((p.source, p.english) for p in gloss.pieces if has_cjk(p.source)),
        hypothesis=hypothesis,
    )


async def plan_query_async(
    question: str, *, home: HomePaths, rewrite: TextCompleter | None = None
) -> QueryPlan:
    """Like :func:`plan_query`, for callers already inside an event loop (the agent)."""
    language = detect_language(question)
    rewritten = await rewrite_query(question, rewrite, home=home) if rewrite is not None else None
    gloss = None if language == "en" else gloss_question(question, home=home)
    return _build(question, language, gloss, rewritten)


def _plan_offline(question: str, home: HomePaths) -> QueryPlan:
    language = detect_language(question)
    gloss = None if language == "en" else gloss_question(question, home=home)
    return _build(question, language, gloss, None)


def plan_query(
    question: str, *, home: HomePaths, rewrite: TextCompleter | None = None
) -> QueryPlan:
    """The plan for ``question``. Offline unless ``rewrite`` (the light model) is given; a
    failing or nonsensical model never fails the plan (the offline plan is used).
    Safe to call from synchronous code, also while an event loop runs in this thread."""
    if rewrite is None:
        return _plan_offline(question, home)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(plan_query_async(question, home=home, rewrite=rewrite))
    # A loop is running in this thread: run ours in a helper thread rather than nest loops.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(
            asyncio.run, plan_query_async(question, home=home, rewrite=rewrite)
        ).result()
