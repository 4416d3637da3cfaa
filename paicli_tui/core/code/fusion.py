"""Reciprocal-rank fusion of several rankings, with each ranker's rank kept for --explain.

RRF (Cormack et al., 2009) scores an item by ``sum(1 / (k + rank))`` over the rankings that
hold it. It needs no score calibration between rankers (BM25 scores and cosine similarities
live on different scales), which is why hybrid search uses it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class FusedHit:
    """One fused result: its id, its RRF score and its 1-based rank in every ranking
    (``None`` where that ranker did not return it)."""

    id: str
    score: float
    ranks: dict[str, int | None]


def rrf(
    rankings: Mapping[str, Sequence[str]],
    k: int = 60,
    *,
    weights: Mapping[str, float] | None = None,
    depth: int | None = None,
) -> list[FusedHit]:
    """Fuse ``rankings`` (ranker name → ids, best first) by reciprocal rank.

    Promises: every id of every ranking appears once; order is by score, ties broken by the
    best single rank, then by first appearance (ranker order, then rank), so the result is
    deterministic. A repeated id within one ranking counts at its first (best) rank.
    ``weights`` scale a ranker's contribution (default 1); ``depth`` only lets the first
    ``depth`` ids of each ranking contribute (all ids are still listed in ``ranks``).
    """
    if k < 0:
        raise ValueError("rrf: k must be >= 0")
    names = list(rankings)
    scores: dict[str, float] = {}
    ranks: dict[str, dict[str, int | None]] = {}
    best: dict[str, int] = {}
    for name in names:
        weight = 1.0 if weights is None else float(weights.get(name, 1.0))
        seen: set[str] = set()
        for position, item in enumerate(rankings[name], start=1):
            if item in seen:
                continue
            seen.add(item)
            if item not in ranks:
                ranks[item] = dict.fromkeys(names)
                scores[item] = 0.0
                best[item] = position
            ranks[item][name] = position
            best[item] = min(best[item], position)
            if depth is None or position <= depth:
                scores[item] += weight / (k + position)
    order = {item: i for i, item in enumerate(ranks)}
    ids = sorted(ranks, key=lambda i: (-scores[i], best[i], order[i]))
    return [FusedHit(i, scores[i], ranks[i]) for i in ids]


def keep_in_view(fused: list[FusedHit], item: str, slot: int) -> list[FusedHit]:
    """``fused`` with ``item`` moved up to 1-based position ``slot`` when it sits lower;
    otherwise unchanged. The moved hit takes the score of the hit it passes (the list stays
    sorted by score) and keeps its ranks, which say why it is there. Pure: returns a new
    list. An ``item`` not in ``fused`` changes nothing."""
    if slot < 1:
        raise ValueError("keep_in_view: slot must be >= 1")
    position = next((i for i, hit in enumerate(fused) if hit.id == item), None)
    if position is None or position < slot:
        return list(fused)
    out = list(fused)
    moved = out.pop(position)
    out.insert(slot - 1, FusedHit(moved.id, out[slot - 1].score, moved.ranks))
    return out


def explain(hit: FusedHit) -> str:
    """One line saying where each ranker put this result, e.g.
    ``rrf 0.0325 = text #1 + semantic #4 + semantic:en —``."""
    parts = [
        f"{name} #{rank}" if rank is not None else f"{name} —" for name, rank in hit.ranks.items()
    ]
    return f"rrf {hit.score:.4f} = " + " + ".join(parts)
