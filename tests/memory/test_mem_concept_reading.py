"""The third reading of a message: only the concepts it names ("job lock"), asked of each
embedder beside the message itself (and a Chinese message's English gloss), each calibrated on
its own, the best margin counting; and the bars a memory's relevance must pass. Fake embedders
at the protocol."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from doubles.embedders import WordsEmbedder

from paicli_tui.commands.memory_cmd import explain_parts
from paicli_tui.config import Settings
from paicli_tui.core.memory import retrieval
from paicli_tui.core.memory.entry import MemoryEntry, format_time
from paicli_tui.core.memory.retrieval import concept_reading, describe, rank
from paicli_tui.core.memory.service import LocalMemoryService
from paicli_tui.core.memory.terms import Terms, english_text, text_terms


@pytest.mark.parametrize(("message", "expected"), [
    ("Two workers must never charge the same invoice concurrently",
     "job billing lock concurrency"),
    ("Check the live database before the release", "production database release"),
    ("支付回调偶尔卡住，要加超时", "payment webhook timeout"),
    ("给提现接口加个防重复提交", "payout api lock idempotency"),
    ("How do I reverse a string in place", ""),  # names no concept
])
def test_the_concept_reading_names_the_concepts_in_order(message: str, expected: str) -> None:
    assert concept_reading(text_terms(message)) == expected


def _service(settings: Settings, project: Path, texts: list[str]
             ) -> tuple[LocalMemoryService, WordsEmbedder, WordsEmbedder]:
    main = WordsEmbedder("fake/multilingual", 256)
    english = WordsEmbedder("fake/english", 256)
    service = LocalMemoryService(settings, project, embedder=main, english_embedder=english,
                                 background_vectors=False)
    for text in texts:
        assert service.save(text, force=True).written
    return service, main, english


STORE = ["分布式锁用 Redisson，锁的 key 以 lock: 开头", "Every invoice is numbered per tenant",
         "The staging database is reset every night", "日志用 structlog 输出 JSON"]


@pytest.mark.parametrize(("message", "multilingual", "english"), [
    # an English message: itself and its concepts, to each embedder
    ("Two workers must never charge the same invoice concurrently",
     ["Two workers must never charge the same invoice concurrently",
      "job billing lock concurrency"],
     ["Two workers must never charge the same invoice concurrently job billing lock "
      "concurrency", "job billing lock concurrency"]),
    # a Chinese one: itself, its English gloss and its concepts; the English embedder its
    # English text and its concepts
    ("给提现接口加个防重复提交",
     ["给提现接口加个防重复提交", "withdraw funds interface duplicate submit",
      "payout api lock idempotency"],
     ["withdraw funds interface duplicate submit payout api lock idempotency",
      "payout api lock idempotency"]),
    # no concept: no third reading
    ("How do I reverse a string in place",
     ["How do I reverse a string in place"],
     ["How do I reverse a string in place"]),
])
def test_each_embedder_is_asked_each_reading_once(settings: Settings, project_dir: Path,
                                                  message: str, multilingual: list[str],
                                                  english: list[str]) -> None:
    service, main, side = _service(settings, project_dir, STORE)
    service.search("warm up")  # memories and calibration notes embedded
    main.embedded.clear()
    side.embedded.clear()
    service.search(message)
    assert main.embedded == multilingual
    assert side.embedded == english
    assert english_text(message) == english[0]
    service.search(message)  # a repeated message: every reading's row is cached
    assert main.embedded == multilingual and side.embedded == english


def test_a_margin_from_the_concepts_is_named_in_explain(settings: Settings,
                                                        project_dir: Path) -> None:
    service, _, _ = _service(settings, project_dir, STORE)
    ranked = service.search("Two workers must never charge the same invoice concurrently",
                            explain=True)
    lock = next(r for r in ranked if r.entry.content == STORE[0])
    # the fake multilingual embedder shares no word between the message and the Chinese
    # memory; its concept reading "job lock" shares "lock" (lock: in the memory's text)
    assert lock.reading == "concepts"
    assert "above unrelated text by its concepts" in describe(lock)
    parts = explain_parts(lock)
    assert parts["reading"] == "concepts" and parts["margin"] == round(lock.margin, 2)
    assert parts["leaning"] == "keywords" and "meaning leads" not in describe(lock)
    invoice = next(r for r in ranked if r.entry.content == STORE[1])
    assert invoice.reading == "message" and " by its " not in describe(invoice).split(
        "in English")[0]


def test_without_vectors_there_is_no_reading(settings: Settings, project_dir: Path) -> None:
    service = LocalMemoryService(settings, project_dir, use_vectors=False)
    for text in STORE:
        service.save(text, force=True)
    ranked = service.search("invoice numbered per tenant", explain=True)
    assert ranked[0].reading == "" and ranked[0].english_reading == ""
    assert " by its " not in describe(ranked[0])


# -- the bars: exact numbers ------------------------------------------------------------------

@dataclass
class _Scores:
    """Keyword evidence with given scores (the KeywordScores protocol rank() reads)."""

    score: Any
    coverage: Any
    terms: Any

    @property
    def contentless(self) -> Any:
        return np.zeros(len(self.score), dtype=bool)

    def matched(self, i: int) -> tuple[str, ...]:
        return ()


class _FixedKeywords:
    home = None

    def __init__(self, scores: list[float], coverage: list[float] | None = None) -> None:
        self.scores = np.array(scores, dtype=np.float32)
        self.coverage = np.array(coverage or [0.5] * len(scores), dtype=np.float32)

    def match(self, query: Any, texts: list[str], *, rarity: float = 1.0) -> _Scores:
        """The given scores whatever the rarity (rank asks again with the bars' rarity)."""
        terms = query if isinstance(query, Terms) else text_terms(query)
        return _Scores(self.scores, self.coverage, terms)


NOW = datetime(2026, 12, 1, tzinfo=UTC)


def _entries(n: int) -> list[MemoryEntry]:
    moment = format_time(NOW)
    return [MemoryEntry(id=f"m{i}", content=f"memory number {i}", created_at=moment,
                        last_verified_at=moment, scope="global") for i in range(n)]


@pytest.mark.parametrize(("scores", "coverage", "shown"), [
    # within 70% of the best (1.0 × 0.7 = 0.70) and at least 0.8: 0.80 shown, 0.79 not
    ([1.0, 0.80, 0.79], None, ["m0", "m1"]),
    # best 1.2: the relative bar is 0.84 — 0.85 shown, 0.83 not (though above 0.8)
    ([1.2, 0.85, 0.83], None, ["m0", "m1"]),
    # best 2.0: the relative bar 1.4 decides, 1.39 is out
    ([2.0, 1.41, 1.39], None, ["m0", "m1"]),
    # nothing reaches the absolute bar: nothing shown
    ([0.79, 0.5], None, []),
    # ... unless a memory holds every word of the message
    ([0.3, 0.2], [1.0, 0.5], ["m0"]),
])
def test_the_relevance_bars(scores: list[float], coverage: list[float] | None,
                            shown: list[str]) -> None:
    assert retrieval.RELEVANCE_BAR == 0.8 and retrieval.RELATIVE_BAR == 0.7
    ranked = rank("anything", _entries(len(scores)), keywords=_FixedKeywords(scores, coverage),
                  vectors=None, now=NOW)  # type: ignore[arg-type]
    assert [r.entry.id for r in ranked] == shown
    assert all(math.isclose(r.relevance, scores[int(r.entry.id[1:])], rel_tol=1e-6)
               for r in ranked)


def _fixed_vectors(monkeypatch: pytest.MonkeyPatch, margins: list[float]) -> None:
    """The multilingual embedder's margins as given (cosine 0.5 each); no English one."""
    def part(vectors: Any, readings: Any, contents: list[str], wait: bool,
             two_sided: bool = False) -> retrieval.VectorEvidence:
        n = len(contents)
        if vectors is None:
            return retrieval.VectorEvidence(np.zeros(n, np.float32),
                                            np.full(n, -np.inf, np.float32), np.zeros(n, np.int8))
        return retrieval.VectorEvidence(np.full(n, 0.5, np.float32),
                                        np.array(margins, np.float32), np.zeros(n, np.int8),
                                        readings=("message",))
    monkeypatch.setattr(retrieval, "_vector_part", part)


INF = math.inf


@pytest.mark.parametrize(("scores", "margins", "coverage", "turn", "shown"), [
    # a search holding every word of the query passes whatever its score (memory search deploy)
    ([0.3, 0.2], [2.0, 2.0], [1.0, 0.5], False, ["m0"]),
    # a turn's message only when the meaning agrees: 2.0 sd is below the floor 2.5 (no vector
    # part), so "what does this file do?" is not shown every memory naming a file
    ([0.3, 0.2], [2.0, 2.0], [1.0, 0.5], True, []),
    # 2.6 sd: a vector part of 0.04, relevance 0.34 — below the bar 0.8, shown for holding
    # every word with the meaning behind it
    ([0.3, 0.2], [2.6, 2.0], [1.0, 0.5], True, ["m0"]),
    # not embedded yet: keywords are all there is, as in a search
    ([0.3, 0.2], [-INF, -INF], [1.0, 0.5], True, ["m0"]),
    # coverage just under FULL_COVERAGE never exempted anything
    ([0.3, 0.2], [2.0, 2.0], [0.98, 0.5], False, []),
])
def test_holding_every_word_is_enough_for_a_search_a_turn_needs_meaning_too(
        monkeypatch: pytest.MonkeyPatch, scores: list[float], margins: list[float],
        coverage: list[float], turn: bool, shown: list[str]) -> None:
    assert retrieval.FULL_COVERAGE == 0.99 and retrieval.VECTOR_Z_FLOOR == 2.5
    _fixed_vectors(monkeypatch, margins)
    ranked = rank("anything cached", _entries(len(scores)),
                  keywords=_FixedKeywords(scores, coverage), vectors=object(), now=NOW,
                  turn=turn, explain=True)  # type: ignore[arg-type]
    assert [r.entry.id for r in ranked if r.shown] == shown
    missed = {r.entry.id: r.why_not for r in ranked if not r.shown}
    if turn and not shown:
        assert missed["m0"] == ("relevance 0.30 below the bar 0.8 (it holds every word of the "
                                "message, but its meaning is no nearer than the floor: enough "
                                "for a search, not a turn)")
        assert missed["m1"] == "relevance 0.20 below the bar 0.8"


@pytest.mark.parametrize(("scores", "margins", "coverage", "shown"), [
    # keywords alone are not enough once the embedders have read a memory: 1.49 sd is out
    ([1.0, 0.9], [1.5, 1.49], None, ["m0"]),
    ([1.0, 0.9], [2.0, 1.5], None, ["m0", "m1"]),
    # a memory not embedded yet goes by its keywords alone
    ([1.0, 0.9], [2.0, -INF], None, ["m0", "m1"]),
    # one that holds every word of the message needs no support
    ([1.0, 0.9], [2.0, 0.0], [0.5, 1.0], ["m0", "m1"]),
    # an unsupported memory does not set the relative bar: 1.0 is the best, not 2.0
    ([2.0, 1.0], [0.0, 1.6], None, ["m1"]),
    # nothing supported: nothing shown
    ([2.0, 1.0], [0.0, 1.0], None, []),
])
def test_keywords_alone_need_support_from_meaning(monkeypatch: pytest.MonkeyPatch,
                                                  scores: list[float], margins: list[float],
                                                  coverage: list[float] | None,
                                                  shown: list[str]) -> None:
    assert retrieval.SUPPORT_Z == 1.5 and retrieval.VECTOR_Z_FLOOR > 2.0  # no vector part
    _fixed_vectors(monkeypatch, margins)
    # a message naming a concept (cache): the bars that lean on keywords
    ranked = rank("anything cached", _entries(len(scores)),
                  keywords=_FixedKeywords(scores, coverage),
                  vectors=object(), now=NOW, explain=True)  # type: ignore[arg-type]
    assert [r.entry.id for r in ranked if r.shown] == shown
    for r in ranked:
        if not r.shown and margins[int(r.entry.id[1:])] < 1.5 and not coverage:
            assert r.why_not.startswith("keywords only: the meaning stands")


@pytest.mark.parametrize(("query", "scores", "margins", "shown", "relevance"), [
    # a message naming no concept leans on meaning: from 1.5 sd at 0.6 per sd, and 3.0 sd
    # needed: 3.0 sd alone is relevance 0.9 and shown; 2.99 sd is not enough
    ("anything", [0.0, 0.0], [3.0, 2.99], ["m0"], [0.9]),
    # the same margins for a message naming a concept (cache): (3.0 - 2.5) × 0.4 = 0.2, out
    ("anything cached", [0.0, 0.0], [3.0, 2.99], [], []),
    # the relative bar still holds: best 0.5 + (3.2 - 1.5) × 0.6 = 1.52, 0.9 < 70% of it
    ("anything", [0.5, 0.0], [3.2, 3.0], ["m0"], [1.52]),
    # a memory not embedded yet goes by keywords against the bar 0.7: 0.7 in, 0.69 out
    ("anything", [0.7, 0.69, 0.0], [-INF, -INF, 3.0], ["m2", "m0"], [0.9, 0.7]),
])
def test_a_message_naming_no_concept_leans_on_meaning(
        monkeypatch: pytest.MonkeyPatch, query: str, scores: list[float],
        margins: list[float], shown: list[str], relevance: list[float]) -> None:
    assert retrieval.UNNAMED_BARS == retrieval.Bars(
        vector_floor=1.5, vector_scale=0.6, english_floor=2.5, english_scale=0.6,
        relevance=0.7, relative=0.7, support=3.0, rarity=1.5)
    _fixed_vectors(monkeypatch, margins)
    ranked = rank(query, _entries(len(scores)), keywords=_FixedKeywords(scores),
                  vectors=object(), now=NOW)  # type: ignore[arg-type]
    assert [r.entry.id for r in ranked] == shown
    assert [round(r.relevance, 4) for r in ranked] == relevance
    for r in ranked:  # explain says which bars the message got
        assert r.leaning == retrieval.MEANING_LEADS
        assert ("; the message names no concept: meaning leads (each margin also counted from "
                "the memory's side, against its own nearness to unrelated text; each shared "
                "word weighs its rarity to the power 1.5);") in describe(r)


@pytest.mark.parametrize(("topic", "read", "bars"), [
    ("cache", True, "NAMED_BARS"),
    ("", True, "UNNAMED_BARS"),
    # keyword-only search (or no memory embedded yet): keywords are all there is
    ("", False, "NAMED_BARS"),
    ("cache", False, "NAMED_BARS"),
])
def test_which_bars_a_message_gets(topic: str, read: bool, bars: str) -> None:
    assert retrieval.bars_for(topic, read=read) is getattr(retrieval, bars)


def _unit(*values: float) -> Any:
    row = np.array(values, dtype=np.float32)
    return row / np.linalg.norm(row)


class _FixedRows:
    """A vector cache at the protocol _calibrated_cosines reads, with given rows."""

    hub_stats = retrieval.VectorCache.hub_stats

    def __init__(self) -> None:
        self._hubs = None
        # four unrelated notes; memory 0 stands near all of them (a hub: a short general
        # memory), memory 1 near none, memory 2 far from the message
        self.background = np.stack([_unit(1, 0, 0, 1), _unit(1, 0, 1, 0), _unit(1, 1, 0, 0),
                                    _unit(1, 0, 0, -1)])
        self.rows = np.stack([_unit(1, .3, .3, .3), _unit(0, 1, 0, .2), _unit(0, 0, 1, -1)])

    def matrix(self, contents: list[str], max_new: int | None = None) -> Any:
        return self.rows

    def fixed_matrix(self, texts: tuple[str, ...], *, wait: bool) -> Any:
        return self.background

    def present_rows(self, matrix: Any) -> Any:
        return np.ones(len(matrix), dtype=bool)

    def embed_query(self, query: str) -> Any:
        return _unit(.6, .8, 0, 0)


@pytest.mark.parametrize(("two_sided", "margins"), [
    # the message's side only: the hub stands 0.68 sd above the unrelated texts
    (False, [0.68, 0.8, -1.8]),
    # from the memory's side too: its cosine 0.745 is barely above its mean 0.72 with the
    # notes (spread 0.163), 0.15 sd; memory 1's own side is higher than the message's
    (True, [0.15, 0.8, -1.8]),
])
def test_a_two_sided_margin_counts_the_smaller_side(two_sided: bool,
                                                    margins: list[float]) -> None:
    found = retrieval._calibrated_cosines(_FixedRows(), ["message"],  # type: ignore[arg-type]
                                          ["m0", "m1", "m2"], True, two_sided)
    assert found is not None
    cosines, got, _ = found
    assert [round(float(c), 3) for c in cosines] == [0.745, 0.784, 0.0]
    assert [round(float(m), 2) for m in got] == margins


@pytest.mark.parametrize(("query", "margin"), [
    ("anything", 0.15),         # names no concept: meaning leads, margins two-sided
    ("anything cached", 0.68),  # names a concept: the message's side only
])
def test_margins_are_two_sided_only_when_meaning_leads(query: str, margin: float) -> None:
    ranked = rank(query, _entries(3), keywords=_FixedKeywords([1.0, 1.0, 1.0]),
                  vectors=_FixedRows(), now=NOW, explain=True)  # type: ignore[arg-type]
    assert round({r.entry.id: r.margin for r in ranked}["m0"], 2) == margin


LONE_STORE = ["Users see dates in their own time zone", "测试环境数据库是 mall_test",
              "订单服务调用支付网关失败时最多重试三次", "Feature flags live in the config center"]


@pytest.mark.parametrize(("query", "margins", "shown", "why_not"), [
    # one plain shared word ("time") and a margin below the floor 2.5 (no vector part): out
    ("What is the time complexity of quicksort?", [2.0, 0, 0, 0], [],
     "one shared word (time) and no meaning behind it: the word can mean something else here"),
    # the same word with the meaning a little nearer (2.6 sd: a vector part): shown
    ("What is the time complexity of quicksort?", [2.6, 0, 0, 0], ["m0"], ""),
    ("How do I center an element with flexbox?", [0, 0, 0, 2.0], [],
     "one shared word (center) and no meaning behind it: the word can mean something else here"),
    # two shared words, an identifier, a concept: each enough without a vector part
    ("Which time zone do users see?", [2.0, 0, 0, 0], ["m0"], ""),
    ("reset mall_test", [0, 2.0, 0, 0], ["m1"], ""),
    ("add a retry to the payment client", [0, 0, 2.0, 0], ["m2"], ""),
])
def test_one_plain_shared_word_needs_meaning_behind_it(
        monkeypatch: pytest.MonkeyPatch, settings: Settings, query: str, margins: list[float],
        shown: list[str], why_not: str) -> None:
    from paicli_tui.core.memory.keywords import KeywordIndex

    _fixed_vectors(monkeypatch, margins)
    moment = format_time(NOW)
    entries = [MemoryEntry(id=f"m{i}", content=text, created_at=moment, last_verified_at=moment,
                           scope="global") for i, text in enumerate(LONE_STORE)]
    ranked = rank(query, entries, keywords=KeywordIndex(settings.home), vectors=object(),
                  now=NOW, explain=True, turn=True)  # type: ignore[arg-type]
    assert [r.entry.id for r in ranked if r.shown] == shown
    if why_not:
        assert [r.why_not for r in ranked if not r.shown][0] == why_not
