"""When meaning leads (a message naming no concept of the table), a shared word weighs its
rarity to the power 1.5: a word many memories share is the store's own subject ("voyage" in
a shipping team's store), which memories about other sides of that subject share too; a rare
shared word keeps its weight. Real keyword index; fixed margins for the embedders."""

from __future__ import annotations

import math

import pytest

from paicli_tui.commands.memory_cmd import explain_parts
from paicli_tui.config import Settings
from paicli_tui.core.memory import retrieval
from paicli_tui.core.memory.entry import MemoryEntry, format_time
from paicli_tui.core.memory.keywords import KeywordIndex
from paicli_tui.core.memory.retrieval import concept_reading, describe, rank
from paicli_tui.core.memory.terms import text_terms
from tests.memory.test_mem_concept_reading import NOW, _fixed_vectors

STORE = ["Each voyage has one captain", "A voyage ends at the home harbour",
         "Voyage fuel is paid by the owner", "Cargo manifests are signed twice",
         "The crew roster is printed weekly"]
""""voyage" is in three of five memories (idf ln(1 + 5/3) / ln 6 = 0.5474), "manifest" in
one (idf 1)."""
UNNAMED = "check the voyage manifest"
NAMED = "check the voyage manifest before deploy"  # names §deploy and §release


def test_the_messages_name_what_the_rows_say() -> None:
    assert concept_reading(text_terms(UNNAMED)) == ""
    assert concept_reading(text_terms(NAMED)) == "release deploy"
    assert retrieval.UNNAMED_BARS.rarity == 1.5 and retrieval.NAMED_BARS.rarity == 1.0


@pytest.mark.parametrize(("rarity", "scores"), [
    # BM25 length factors × idf: voyage 0.5474 in m0-m2, manifest 1.0 in m3
    (1.0, [0.6386, 0.5546, 0.4901, 0.9506, 0.0]),
    # 0.5474 ** 1.5 = 0.4050: each "voyage" score × 0.7399 (= 0.5474 ** 0.5); manifest stays
    (1.5, [0.4725, 0.4103, 0.3626, 0.9506, 0.0]),
])
def test_a_common_word_weighs_its_rarity_to_the_power(settings: Settings, rarity: float,
                                                      scores: list[float]) -> None:
    found = KeywordIndex(settings.home).match(UNNAMED, STORE, rarity=rarity)
    assert [round(float(x), 4) for x in found.score] == scores
    assert found.rarity == rarity
    assert math.isclose(found.corpus.idf("voyag", rarity), 0.5474 ** rarity, rel_tol=1e-3)


def _entries() -> list[MemoryEntry]:
    moment = format_time(NOW)
    return [MemoryEntry(id=f"m{i}", content=text, created_at=moment, last_verified_at=moment,
                        scope="global") for i, text in enumerate(STORE)]


MARGINS = [3.0, 3.0, 3.0, 3.3, 0.0]
"""Every memory but the last stands out by meaning (3 sd: UNNAMED_BARS' support bar); m3 a
little more."""


@pytest.mark.parametrize(("query", "shown", "keyword", "rarity"), [
    # meaning leads: vector parts (3.0 - 1.5) × 0.6 = 0.9 and (3.3 - 1.5) × 0.6 = 1.08; m3 at
    # 0.9506 + 1.08 = 2.0306 sets the relative bar 1.4214; m0 0.4725 + 0.9 = 1.3725 is below
    # it (with the plain rarity it was 1.5386, and m1 1.4546: both shown)
    (UNNAMED, ["m3"], [0.9506, 0.4725, 0.4103, 0.3626], 1.5),
    # a message naming a concept keeps the plain rarity: its keyword parts are the plain ones
    (NAMED, ["m3"], [0.9506, 0.6386, 0.5546, 0.4901], 1.0),
])
def test_when_meaning_leads_the_store_subject_word_counts_for_less(
        monkeypatch: pytest.MonkeyPatch, settings: Settings, query: str, shown: list[str],
        keyword: list[float], rarity: float) -> None:
    _fixed_vectors(monkeypatch, MARGINS)
    ranked = rank(query, _entries(), keywords=KeywordIndex(settings.home), vectors=object(),
                  now=NOW, explain=True, turn=True)  # type: ignore[arg-type]
    assert [r.entry.id for r in ranked if r.shown] == shown
    assert [round(r.keyword, 4) for r in ranked] == keyword
    assert {r.rarity for r in ranked} == {rarity}
    assert {explain_parts(r)["rarity"] for r in ranked} == {rarity}
    said = "each shared word weighs its rarity to the power 1.5"
    assert all((said in describe(r)) == (rarity == 1.5) for r in ranked)


def test_with_the_plain_rarity_the_subject_word_memories_were_shown(
        monkeypatch: pytest.MonkeyPatch, settings: Settings) -> None:
    """The row above without the change: UNNAMED_BARS with rarity 1 shows m0 and m1 too."""
    _fixed_vectors(monkeypatch, MARGINS)
    from dataclasses import replace

    monkeypatch.setattr(retrieval, "UNNAMED_BARS", replace(retrieval.UNNAMED_BARS, rarity=1.0))
    ranked = rank(UNNAMED, _entries(), keywords=KeywordIndex(settings.home), vectors=object(),
                  now=NOW, turn=True)  # type: ignore[arg-type]
    assert [r.entry.id for r in ranked] == ["m3", "m0", "m1"]
    assert [round(r.relevance, 4) for r in ranked] == [2.0306, 1.5386, 1.4546]
