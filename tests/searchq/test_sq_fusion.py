"""Reciprocal-rank fusion order and the --explain structure."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paicli_tui.core.code.fusion import explain, keep_in_view, rrf


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


@pytest.mark.parametrize(
    ("start", "item", "slot", "expected"),
    [
        (["a", "b", "c", "d", "e"], "e", 3, ["a", "b", "e", "c", "d"]),  # moved up to 3rd
        (["a", "b", "c", "d", "e"], "b", 3, ["a", "b", "c", "d", "e"]),  # already in view
        (["a", "b", "c", "d", "e"], "c", 3, ["a", "b", "c", "d", "e"]),  # exactly at the slot
        (["a", "b", "c", "d", "e"], "e", 1, ["e", "a", "b", "c", "d"]),
        (["a", "b"], "z", 1, ["a", "b"]),  # not fused: nothing changes
        ([], "a", 3, []),
    ],
)
def test_keep_in_view_moves_one_item_up(start, item, slot, expected) -> None:
    fused = rrf({"x": start})
    out = keep_in_view(fused, item, slot)
    assert [h.id for h in out] == expected
    assert [h.id for h in fused] == start  # pure
    scores = [h.score for h in out]
    assert scores == sorted(scores, reverse=True)  # the moved hit takes the passed hit's score
    moved = {h.id: h for h in out}
    assert all(moved[h.id].ranks == h.ranks for h in fused)  # ranks still say why


def test_keep_in_view_refuses_slot_zero() -> None:
    with pytest.raises(ValueError):
        keep_in_view([], "a", 0)


def test_hybrid_fusion_keeps_the_full_text_leader_in_view() -> None:
    from paicli_tui.core.code.search import TEXT_LEADER_SLOT, fuse_rankings

    # one id ranked first by full-text only, and agreement of both rankers on five others
    rankings = {"text": ["lead", "a", "b", "c", "d", "e"],
                "semantic": ["a", "b", "c", "d", "e", "x"]}
    order = [h.id for h in fuse_rankings(rankings)]
    assert order.index("lead") == TEXT_LEADER_SLOT - 1
    assert order[:TEXT_LEADER_SLOT - 1] == ["a", "b"]
    # the embedder's own first result gets no such place
    flipped = {"text": ["a", "b", "c", "d", "e", "x"],
               "semantic": ["lead", "a", "b", "c", "d", "e"]}
    assert [h.id for h in fuse_rankings(flipped)].index("lead") > TEXT_LEADER_SLOT - 1


def test_hybrid_fusion_weighs_full_text_above_the_embedder() -> None:
    from paicli_tui.core.code.search import fuse_rankings

    # the same two ids, each first in one ranker: the full-text first wins
    fused = fuse_rankings({"semantic": ["s", "t"], "text": ["t", "s"]})
    assert [h.id for h in fused] == ["t", "s"]
