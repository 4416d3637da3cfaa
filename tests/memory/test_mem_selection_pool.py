"""What the light model is offered to choose from: the offline ranking's shown memories, the
best that missed its bars, and then the memories with no evidence at all, nearest in meaning
first, up to MAX_CANDIDATES. In a domain the concept table does not know most targets have no
evidence (no shared word, a meaning below the floors), and a chooser that never sees them
cannot find them. The offline choice and `memory search --explain` are unchanged."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from doubles.embedders import HashEmbedder

from paicli_tui.config import Settings
from paicli_tui.core.memory.selection import MAX_CANDIDATES
from paicli_tui.core.memory.service import LocalMemoryService

WAIT_S = 60  # a bound for a slow machine, never a measure of speed
QUERY = "zq wv"  # words no memory holds: every memory's evidence can only be its meaning


class PlantedEmbedder(HashEmbedder):
    """HashEmbedder's unrelated unit vectors, except that a text listed in ``cosines`` is put
    at exactly that cosine to the query's vector: the meaning of each memory, chosen."""

    def __init__(self, cosines: dict[str, float]) -> None:
        super().__init__("fake/planted", 256)
        self.cosines = cosines

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = super().embed(texts)
        axis = super().embed([QUERY])[0]
        for i, text in enumerate(texts):
            if text in self.cosines:
                other = rows[i] - float(rows[i] @ axis) * axis
                other /= np.linalg.norm(other)
                cosine = self.cosines[text]
                rows[i] = cosine * axis + np.sqrt(1 - cosine ** 2) * other
        return rows


# below any floor (unrelated text stands about ±0.06 from the query at 256 dimensions)
NEAR = {f"Memory number {n} about subject {chr(65 + n)}": 0.05 - 0.004 * n for n in range(12)}
FAR = {f"Unrelated note {n} on topic {chr(97 + n)}": -0.3 for n in range(26)}
"""Farther from the query than anything unrelated: offered last, if at all."""


def _service(settings: Settings, project: Path, texts: Sequence[str]) -> LocalMemoryService:
    service = LocalMemoryService(settings, project, embedder=PlantedEmbedder(NEAR | FAR),
                                 background_vectors=False,
                                 clock=lambda: datetime(2026, 12, 7, tzinfo=UTC))
    for text in texts:
        assert service.save(text, force=True).written, text
    return service


def test_without_evidence_a_memory_is_offered_only_to_a_chooser(settings: Settings,
                                                                 project_dir: Path) -> None:
    service = _service(settings, project_dir, list(NEAR))
    assert service.injection_block(QUERY, 5_000) == ""  # the offline choice: nothing passes
    assert service._turn_ranking(QUERY, MAX_CANDIDATES) == []  # nor is anything near a bar
    pool = service._turn_ranking(QUERY, MAX_CANDIDATES, fill_by_meaning=True)
    assert sorted(item.entry.content for item in pool) == sorted(NEAR)
    margins = [item.margin for item in pool]
    assert margins == sorted(margins, reverse=True)  # nearest first, by the ranking's measure
    assert all(not item.shown and item.why_not.startswith("no evidence") for item in pool)


@pytest.mark.parametrize(("limit", "offered"), [(5, 5), (MAX_CANDIDATES, MAX_CANDIDATES)])
def test_the_pool_is_filled_up_to_its_limit_and_no_further(settings: Settings,
                                                          project_dir: Path, limit: int,
                                                          offered: int) -> None:
    service = _service(settings, project_dir, [*NEAR, *FAR])
    pool = service._turn_ranking(QUERY, limit, fill_by_meaning=True)
    assert len(pool) == offered
    offered_texts = [item.entry.content for item in pool]
    assert set(offered_texts[:len(NEAR)]) <= set(NEAR)  # the near ones before the far ones


def test_nothing_is_filled_before_the_meaning_is_read(settings: Settings,
                                                      project_dir: Path) -> None:
    """No vectors (none ready, or none configured): nothing says which memory is nearer, so
    nothing without evidence is offered (and no request is made for an empty pool)."""
    service = LocalMemoryService(settings, project_dir, use_vectors=False)
    for text in NEAR:
        assert service.save(text, force=True).written
    assert service._turn_ranking(QUERY, MAX_CANDIDATES, fill_by_meaning=True) == []


def test_the_light_model_can_choose_a_memory_with_no_evidence(settings: Settings,
                                                             project_dir: Path) -> None:
    target = list(NEAR)[-1]
    service = _service(settings, project_dir, [*NEAR, *FAR])
    requests: list[str] = []

    async def light(_system: str, user: str) -> str:
        requests.append(user)
        body = user.split("<memories>\n", 1)[1].split("\n</memories>", 1)[0]
        return next(line.split(".", 1)[0] for line in body.splitlines()
                    if line.endswith(target))

    choice = asyncio.run(service.selected_block(QUERY, 5_000, light))
    assert len(requests) == 1 and choice.candidates == MAX_CANDIDATES
    assert target in choice.block and choice.chosen and choice.fallback == ""
    assert sum(1 for line in choice.block.splitlines() if line.startswith("- [")) == 1


@pytest.mark.parametrize("go_ahead", ["continue", "ok", "继续"])
def test_a_go_ahead_gets_no_request(settings: Settings, project_dir: Path,
                                    go_ahead: str) -> None:
    """One word of content is a go-ahead, not a task: without a memory sharing it, there is
    nothing to offer and no request to make, as before memories were filled by meaning."""
    service = _service(settings, project_dir, list(NEAR))
    assert service._turn_ranking(go_ahead, MAX_CANDIDATES, fill_by_meaning=True) == []
    requests: list[str] = []

    async def light(_system: str, user: str) -> str:
        requests.append(user)
        return "none"

    choice = asyncio.run(service.selected_block(go_ahead, 5_000, light))
    assert requests == [] and choice.block == "" and not choice.asked


def test_a_memory_of_stop_words_alone_is_never_offered(settings: Settings,
                                                       project_dir: Path) -> None:
    service = _service(settings, project_dir, [*NEAR, "and then the of it"])
    pool = service._turn_ranking(QUERY, MAX_CANDIDATES, fill_by_meaning=True)
    assert "and then the of it" not in [item.entry.content for item in pool]
    assert len(pool) == len(NEAR)


LATE = [f"Imported note {n} awaiting its vector" for n in range(6)]


class HeldEmbedder(PlantedEmbedder):
    """PlantedEmbedder that holds the vectors of LATE until ``release`` is set: memories
    still being embedded in the background (a store just imported, a new embedder)."""

    def __init__(self) -> None:
        super().__init__(NEAR)
        self.release = threading.Event()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if any(text in LATE for text in texts):
            self.release.wait(WAIT_S)
        return super().embed(texts)


def test_a_memory_whose_meaning_is_not_read_yet_is_not_offered_as_near(
        settings: Settings, project_dir: Path) -> None:
    """Vectors come in the background: a memory not embedded yet has no nearness, and was
    offered to the light model after the near ones as if it were next nearest."""
    embedder = HeldEmbedder()
    service = LocalMemoryService(settings, project_dir, embedder=embedder,
                                 clock=lambda: datetime(2026, 12, 7, tzinfo=UTC))
    try:
        for text in NEAR:
            assert service.save(text, force=True).written
        service._turn_ranking(QUERY, MAX_CANDIDATES)  # the message's own vector is made
        assert service.wait_for_vectors(WAIT_S)
        assert service._turn_ranking(QUERY, MAX_CANDIDATES, fill_by_meaning=True)
        for text in LATE:
            assert service.save(text, force=True).written
        pool = service._turn_ranking(QUERY, MAX_CANDIDATES, fill_by_meaning=True)
        assert sorted(item.entry.content for item in pool) == sorted(NEAR)
    finally:
        embedder.release.set()
