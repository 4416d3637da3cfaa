"""The second reading of a memory's meaning: an English-only embedder (the shipped MiniLM)
reads every memory and message as English text — a Chinese one through its offline gloss,
followed by the names of the concepts it names — calibrated like the multilingual one and
added to the relevance. Fake embedders at the protocol; the real one in the slow tests of
test_mem_relevance.py."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from doubles.embedders import WordsEmbedder

from paicli_tui.config import Settings
from paicli_tui.core.memory import retrieval
from paicli_tui.core.memory.retrieval import describe
from paicli_tui.core.memory.service import LocalMemoryService, english_variant
from paicli_tui.core.memory.terms import english_text


def _words(name: str) -> WordsEmbedder:
    """256 dimensions, a question mark read as a space."""
    return WordsEmbedder(name, 256, spaces="?")


@pytest.mark.parametrize(("text", "expected"), [
    # English text is read as it is, then the concepts it names that it does not say
    ("We deploy on Fridays after the review", "We deploy on Fridays after the review release"),
    ("Icons come from lucide-react only", "Icons come from lucide-react only icon"),
    ("Use British spelling in docs", "Use British spelling in docs"),
    # Chinese text through its gloss; the concepts carry what the dictionary misses
    ("工单列表分页用游标分页，不用 offset", "list pager cursor offset ticket pagination"),
    ("开发库是 helpdesk_dev，在本机 5432 端口",
     "exploit library helpdesk_dev 5432 port devenv helpdesk local"),
])
def test_english_text_is_the_reading_and_the_concepts(text: str, expected: str) -> None:
    assert english_text(text) == expected


def _service(settings: Settings, project: Path, texts: list[str]
             ) -> tuple[LocalMemoryService, WordsEmbedder, WordsEmbedder]:
    main, english = _words("fake/multilingual"), _words("fake/english")
    service = LocalMemoryService(settings, project, embedder=main, english_embedder=english,
                                 background_vectors=False)
    for text in texts:
        assert service.save(text, force=True).written
    return service, main, english


STORE = ["生产库只能通过跳板机访问", "日志用 structlog 输出 JSON", "Icons come from lucide-react only",
         "每周三下午发版"]


def test_the_english_embedder_reads_english_text_in_its_own_cache(
        settings: Settings, project_dir: Path) -> None:
    service, main, english = _service(settings, project_dir, STORE)
    service.search("which icon set")
    assert set(STORE) <= set(main.embedded)  # the multilingual one reads the memories as written
    assert {english_text(t) for t in STORE} <= set(english.embedded)
    assert not set(STORE[:2]) & set(english.embedded)  # never the Chinese text itself
    assert english.embedded[-2:] == ["which icon set", "icon"]  # the query and its concepts
    vectors = settings.home.memory_dir / "vectors"
    assert sorted(p.name for p in vectors.glob("*.npz")) == [
        f"fake_english-{english_variant()}.npz", "fake_multilingual.npz"]
    before = len(english.embedded)
    fresh = LocalMemoryService(settings, project_dir, embedder=_words("fake/multilingual"),
                               english_embedder=english, background_vectors=False)
    fresh.search("which icon set")
    assert english.embedded[before:] == ["which icon set", "icon"]  # memories' rows: the file


def test_an_english_reading_match_adds_to_the_relevance(settings: Settings,
                                                        project_dir: Path) -> None:
    service, _, _ = _service(settings, project_dir, STORE)
    ranked = service.search("live database access", explain=True)
    item = next(r for r in ranked if r.entry.content == STORE[0])
    # the multilingual fake shares no word with the Chinese memory; the English reading
    # shares "production" and "access" (the concepts both name)
    assert item.margin < retrieval.VECTOR_Z_FLOOR < item.english_margin
    expected = (item.english_margin - retrieval.ENGLISH_Z_FLOOR) * retrieval.ENGLISH_SCALE
    assert math.isclose(item.vector, expected, rel_tol=1e-5)
    assert math.isclose(item.relevance, item.keyword + item.vector, rel_tol=1e-5)
    assert "in English: cosine" in describe(item)


def test_without_an_english_embedder_the_relevance_is_unchanged(settings: Settings,
                                                                project_dir: Path) -> None:
    main = _words("fake/multilingual")
    service = LocalMemoryService(settings, project_dir, embedder=main, background_vectors=False)
    for text in STORE:
        service.save(text, force=True)
    ranked = service.search("How do I reach the live database?", explain=True)
    assert all(r.english_cosine == 0 and r.english_margin == 0 for r in ranked)
    assert "in English" not in describe(ranked[0])
    assert [p.name for p in (settings.home.memory_dir / "vectors").glob("*.npz")] == [
        "fake_multilingual.npz"]


def test_a_failing_english_embedder_leaves_the_other_evidence(settings: Settings,
                                                              project_dir: Path) -> None:
    class Broken(WordsEmbedder):
        def embed(self, texts: list[str]) -> np.ndarray:
            raise RuntimeError("model missing")

    main = _words("fake/multilingual")
    service = LocalMemoryService(settings, project_dir, embedder=main,
                                 english_embedder=Broken("fake/english"),
                                 background_vectors=False)
    for text in STORE:
        service.save(text, force=True)
    ranked = service.search("icons lucide-react", explain=True)
    assert ranked[0].entry.content == STORE[2] and ranked[0].shown
    assert ranked[0].english_cosine == 0 and ranked[0].margin > 0


@pytest.mark.parametrize(("embedder", "english"), [
    ("use", "minilm-l6-int8"),      # the offline default: USE and the English MiniLM
    ("offline", "minilm-l6-int8"),
    ("use-m3", None),               # USE named alone, as for the code index
    ("minilm", None),               # a single configured embedder is used alone
])
def test_which_embedders_memory_uses(settings: Settings, project_dir: Path, embedder: str,
                                     english: str | None) -> None:
    service = LocalMemoryService(settings.with_overrides(embedder=embedder), project_dir)
    cache = service._english_cache()  # built lazily; no model is loaded here
    assert (cache.embedder.name if cache is not None else None) == english
