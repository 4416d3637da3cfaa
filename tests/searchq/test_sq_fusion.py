"""Reciprocal-rank fusion order and the --explain structure."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paicli_tui.core.code.fusion import explain, explain_dict, rrf


def test_rrf_scores_and_order_with_k_60() -> None:
    hits = rrf({"text": ["a", "b", "c"], "semantic": ["b", "d", "a"]}, k=60)
    assert [h.id for h in hits] == ["b", "a", "d", "c"]
    by_id = {h.id: h for h in hits}
    assert by_id["b"].score == pytest.approx(1 / 62 + 1 / 61)
    assert by_id["a"].score == pytest.approx(1 / 61 + 1 / 63)
    assert by_id["d"].ranks == {"text": None, "semantic": 2}
    assert by_id["c"].ranks == {"text": 3, "semantic": None}


def test_ties_break_by_best_rank_then_first_seen() -> None:
    hits = rrf({"x": ["a", "b"], "y": ["b", "a"]})
    assert [h.id for h in hits] == ["a", "b"]  # equal scores and best ranks: first seen wins


def test_duplicate_in_one_ranking_counts_once_at_best_rank() -> None:
    (hit,) = rrf({"x": ["a", "a", "a"]}, k=0)
    assert hit.score == 1.0 and hit.ranks == {"x": 1}


def test_weights_and_depth() -> None:
    hits = rrf({"x": ["a", "b"], "y": ["b"]}, k=0, weights={"y": 0.25}, depth=1)
    by_id = {h.id: h for h in hits}
    assert by_id["a"].score == 1.0
    assert by_id["b"].score == 0.25  # x's rank 2 is past depth 1
    assert by_id["b"].ranks == {"x": 2, "y": 1}


def test_negative_k_is_refused() -> None:
    with pytest.raises(ValueError):
        rrf({"x": ["a"]}, k=-1)


def test_explain_output() -> None:
    (first, *_rest) = rrf({"text": ["a"], "semantic": ["b", "a"]})
    assert explain(first) == f"rrf {first.score:.4f} = text #1 + semantic #2"
    hit = rrf({"text": ["z"], "semantic": []})[0]
    assert explain(hit).endswith("text #1 + semantic —")
    assert explain_dict(hit) == {"score": round(1 / 61, 6), "ranks": {"text": 1, "semantic": None}}


rankings = st.dictionaries(
    st.sampled_from(["text", "semantic", "gloss"]),
    st.lists(st.sampled_from(list("abcdefgh")), max_size=8),
    max_size=3,
)


@given(rankings)
def test_rrf_invariants(r: dict[str, list[str]]) -> None:
    hits = rrf(r)
    ids = [h.id for h in hits]
    assert len(ids) == len(set(ids)) == len({i for lst in r.values() for i in lst})
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:], strict=False))
    for h in hits:
        assert set(h.ranks) == set(r)
        for name, rank in h.ranks.items():
            assert (rank is None) == (h.id not in r[name])
            if rank is not None:
                assert r[name].index(h.id) + 1 == rank
