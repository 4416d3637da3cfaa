"""Two embedders in one index: the stored vector, per-part rankings, fusion order, --explain.

Plumbing only, with deterministic fake embedders (the real MiniLM is tested in
test_minilm_offline.py).
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest
from doubles.embedders import HashEmbedder
from hypothesis import given, settings
from hypothesis import strategies as st

from paicli_tui.config import load_settings
from paicli_tui.core.code import search as search_module
from paicli_tui.core.code.indexer import CodeIndexer, chunk_texts, list_index_files, text_hash
from paicli_tui.core.code.query.plan import QueryPlan
from paicli_tui.core.code.search import english_query, modality_weights, search_project
from paicli_tui.core.embedders import get_embedder
from paicli_tui.core.embedders.paired import EmbedderPart, PairedEmbedder, ranking_texts

FIXTURE = Path(__file__).parent / "fixtures" / "retrieval"


def paired(dim_a: int = 8, dim_b: int = 6) -> PairedEmbedder:
    return PairedEmbedder([
        EmbedderPart("semantic", HashEmbedder("fake-a", dim_a)),
        EmbedderPart("minilm", HashEmbedder("fake-b", dim_b), english_only=True),
    ])


def test_stored_vector_is_both_parts_side_by_side_at_unit_length() -> None:
    emb = paired()
    assert emb.name == "fake-a+fake-b" and emb.dim == 14
    vectors = emb.embed(["alpha", "beta"])
    a = HashEmbedder("fake-a", 8).embed(["alpha", "beta"])
    b = HashEmbedder("fake-b", 6).embed(["alpha", "beta"])
    assert np.allclose(vectors[:, :8], a / np.sqrt(2)) and np.allclose(vectors[:, 8:], b / np.sqrt(2))
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert emb.embed([]).shape == (0, 14)


def test_a_part_query_fills_only_its_own_slot() -> None:
    emb = paired()
    q = emb.part_queries("minilm", ["where"])
    assert q.shape == (1, 14) and not q[0, :8].any() and np.isclose(np.linalg.norm(q), 1.0)
    with pytest.raises(KeyError):
        emb.part_queries("nope", ["x"])
    with pytest.raises(ValueError):
        PairedEmbedder([EmbedderPart("semantic", HashEmbedder())])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=12), min_size=2, max_size=12, unique=True),
       st.text(min_size=1, max_size=12), st.sampled_from(["semantic", "minilm"]))
def test_a_part_query_ranks_exactly_as_that_part_alone(docs: list[str], query: str,
                                                       label: str) -> None:
    emb = paired()
    part = next(p.embedder for p in emb.parts if p.label == label)
    joined = emb.embed(docs) @ emb.part_queries(label, [query])[0]
    alone = part.embed(docs) @ part.embed_queries([query])[0]
    assert np.allclose(joined, alone / np.sqrt(2), atol=1e-5)


def _plan(language: str, queries: list[str]) -> QueryPlan:
    return QueryPlan(queries[0], language, queries[-1], "words", queries)  # type: ignore[arg-type]


@pytest.mark.parametrize(("language", "queries", "english"), [
    ("en", ["retry with backoff"], "retry with backoff"),
    ("zh", ["失败后重试", "retry after failure"], "retry after failure"),
    ("zh", ["失败后重试"], ""),                       # no English reading: not asked
    ("mixed", ["FutureTask 取消", "FutureTask cancel"], "FutureTask cancel"),
    ("mixed", ["FutureTask 取消"], "FutureTask 取消"),
])
def test_the_english_only_part_gets_the_english_reading(language: str, queries: list[str],
                                                        english: str) -> None:
    assert english_query(_plan(language, queries)) == english


@pytest.mark.parametrize(("names", "expected"), [
    (["text", "semantic", "minilm"], {"text": 1.5, "semantic": 1.0, "minilm": 0.35}),
    (["text", "semantic", "semantic:en", "minilm"],
     {"text": 1.5, "semantic": 0.5, "semantic:en": 0.5, "minilm": 0.35}),
    (["semantic", "semantic:en"], {"semantic": 0.5, "semantic:en": 0.5}),
    (["semantic", "semantic:en", "minilm"],                  # semantic mode: peers
     {"semantic": 0.5, "semantic:en": 0.5, "minilm": 1.0}),
])
def test_fusion_weights_per_kind_of_evidence(names: list[str], expected: dict[str, float]) -> None:
    assert modality_weights(dict.fromkeys(names, ["x"])) == expected


def test_fusion_order_with_the_second_embedder() -> None:
    """An item both embedders put first beats one only full-text put first, which is still
    kept in the top 3; every ranker's rank is kept for --explain."""
    fused = search_module.fuse_rankings({
        "text": ["t", "a", "b", "c"], "semantic": ["a", "b", "c", "t"],
        "minilm": ["a", "c", "b", "x"]})
    assert [h.id for h in fused][:4] == ["a", "b", "t", "c"]
    assert fused[0].ranks == {"text": 2, "semantic": 1, "minilm": 1}
    assert fused[2].ranks == {"text": 1, "semantic": 4, "minilm": None}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("paired") / "proj"
    shutil.copytree(FIXTURE, root)
    home = tmp_path_factory.mktemp("home")
    cfg = load_settings({}, {"PAICLI_HOME": str(home)})
    emb = paired()
    CodeIndexer(cfg, root, emb).update()
    return cfg, root, emb


@pytest.mark.parametrize(("question", "rankers"), [
    ("keep calling a flaky function", ["text", "semantic", "minilm"]),
    ("失败后等待越来越久再重新调用", ["text", "semantic", "semantic:en", "minilm"]),
])
def test_search_runs_each_part_as_its_own_ranker(indexed, question: str,
                                                 rankers: list[str]) -> None:
    cfg, root, emb = indexed
    response = search_project(cfg, root, question, mode="hybrid", top_k=5, embedder=emb)
    assert response.plan["rankers"] == rankers
    assert response.hits and all(set(h.ranks) == set(rankers) for h in response.hits)
    semantic = search_project(cfg, root, question, mode="semantic", top_k=5, embedder=emb)
    assert semantic.plan["rankers"] == [r for r in rankers if r != "text"]


def test_get_embedder_names_the_offline_pair(tmp_path: Path) -> None:
    cfg = load_settings({}, {"PAICLI_HOME": str(tmp_path), "PAICLI_EMBEDDER": "use+minilm"})
    emb = get_embedder(cfg)
    assert emb.name == "use-m3+minilm-l6-int8" and emb.dim == 512 + 384
    assert [(p.label, p.english_only) for p in emb.parts] == [("semantic", False),
                                                              ("minilm", True)]


def test_the_models_hypothesis_is_one_more_code_ranking(indexed) -> None:
    """A light model's guessed declaration + doc is asked of the English/code embedder as
    ``minilm:code``; the two English rankings share that embedder's weight."""
    cfg, root, emb = indexed
    plan = QueryPlan("keep calling a flaky function", "en", "keep calling a flaky function",
                     "flaky function", ["keep calling a flaky function"],
                     hypothesis="def retry_with_backoff(fn, attempts) Calls fn again.")
    response = search_project(cfg, root, plan.original, mode="hybrid", top_k=5, embedder=emb,
                              plan=plan)
    assert response.plan["rankers"] == ["text", "semantic", "minilm", "minilm:code"]
    assert response.plan["hypothesis"].startswith("def retry_with_backoff(")
    assert modality_weights(dict.fromkeys(response.plan["rankers"], ["x"])) == {
        "text": 1.5, "semantic": 1.0, "minilm": 0.175, "minilm:code": 0.175}
    chinese = QueryPlan("失败后重试", "zh", "", "retry", ["失败后重试"], hypothesis="def retry(fn)")
    assert search_project(cfg, root, "失败后重试", mode="semantic", embedder=emb,
                          plan=chinese).plan["rankers"] == ["semantic", "minilm:code"]


class WordsTextEmbedder(HashEmbedder):
    """A fake English embedder that asks for the chunks' words text."""

    ranking_text = "words"


def test_each_part_embeds_the_text_it_asks_for(tmp_path: Path) -> None:
    """A part with ``ranking_text = "words"`` is handed words_embedding_text, the other part
    embedding_text, for the same chunks in the same order; the stored vector holds each
    part's own vector; an unchanged re-index embeds nothing."""
    from paicli_tui.core.code.chunking import chunk_file
    from paicli_tui.core.code.ranking_text import (
        attach_parent_docs,
        embedding_text,
        words_embedding_text,
    )

    root = tmp_path / "proj"
    shutil.copytree(FIXTURE, root)
    cfg = load_settings({}, {"PAICLI_HOME": str(tmp_path / "home")})
    plain, words = HashEmbedder("fake-a", 8), WordsTextEmbedder("fake-w", 6)
    emb = PairedEmbedder([EmbedderPart("semantic", plain),
                          EmbedderPart("minilm", words, english_only=True)])
    assert ranking_texts(emb) == ("plain", "words")
    summary = CodeIndexer(cfg, root, emb).update()
    # after the chunks the English part also reads the project's words once (vocabulary.py)
    # and the multilingual one the documented chunks' first doc sentences (doc_sentences.py)
    assert summary.chunks_embedded > 10 and summary.doc_sentences > 0
    assert len(plain.texts) == summary.chunks_embedded + summary.doc_sentences
    assert len(words.texts) == summary.chunks_embedded + summary.vocabulary_words
    chunks = [c for rel in list_index_files(root)
              for c in chunk_file(rel, (root / rel).read_text(encoding="utf-8")).chunks]
    attach_parent_docs(chunks)
    assert sorted(plain.texts[:summary.chunks_embedded]) == sorted(
        embedding_text(c) for c in chunks)
    assert sorted(words.texts[:summary.chunks_embedded]) == sorted(
        words_embedding_text(c) for c in chunks)
    pairs = dict(zip(words.texts[:summary.chunks_embedded],
                     plain.texts[:summary.chunks_embedded], strict=True))
    assert all(pairs[words_embedding_text(c)] == embedding_text(c) for c in chunks)
    again = CodeIndexer(cfg, root, emb).update()
    assert again.chunks_embedded == 0
    assert len(plain.texts) == summary.chunks_embedded + summary.doc_sentences


def test_embed_parts_puts_each_text_in_its_parts_slot() -> None:
    emb = paired()
    joined = emb.embed_parts([("alpha", "ALPHA"), ("beta", "BETA")])
    a = HashEmbedder("fake-a", 8).embed(["alpha", "beta"])
    b = HashEmbedder("fake-b", 6).embed(["ALPHA", "BETA"])
    assert np.allclose(joined, np.concatenate([a, b], axis=1) / np.sqrt(2))
    with pytest.raises(ValueError, match="1 texts for 2 parts"):
        emb.embed_parts([("only one",)])


@pytest.mark.parametrize(("text", "expected"), [
    ("abc", hashlib.sha1(b"abc").hexdigest()),           # one text: the hash it always had
    (("abc", "def"), hashlib.sha1(b"abc\x1edef").hexdigest()),
])
def test_text_hash(text: str | tuple[str, ...], expected: str) -> None:
    assert text_hash(text) == expected


def test_the_offline_pair_gives_minilm_the_words_text(tmp_path: Path) -> None:
    cfg = load_settings({}, {"PAICLI_HOME": str(tmp_path), "PAICLI_EMBEDDER": "use+minilm"})
    assert ranking_texts(get_embedder(cfg)) == ("plain", "words")
    assert ranking_texts(HashEmbedder()) == ("plain",)
    with pytest.raises(ValueError, match="unknown ranking text 'odd'"):
        chunk_texts(type("Odd", (HashEmbedder,), {"ranking_text": "odd"})())
