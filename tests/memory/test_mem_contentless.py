"""A memory made only of stop words ("the and of to is a") says nothing: it is never shown,
however near its vectors sit to an empty message ("ok", "lol", an emoji) — before, it was
shown for almost any of them. Memories in a script without keywords here (Cyrillic) are
still found by meaning alone."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from paicli_tui.config import Settings
from paicli_tui.core.memory.service import LocalMemoryService
from paicli_tui.core.memory.terms import has_words

CONTENTLESS = ["the and of to is a", "it is what it is", "的 了 是 在"]
RUSSIAN = "Релизы выкатываются только через конвейер"
EMPTY_MESSAGES = ["ok", "lol", "…", "😀", "hmm ok", "好的"]


class TopicEmbedder:
    """Every text on one of three axes: empty talk (stop words, "ok", emoji), the Russian
    release topic, or anything else spread over the remaining dimensions by its length. So
    an empty message sits right on top of the contentless memories."""

    name = "fake/topics"

    def __init__(self) -> None:
        self.dim = 16

    def _row(self, text: str) -> np.ndarray:
        row = np.zeros(self.dim, dtype=np.float32)
        if text in CONTENTLESS or text in EMPTY_MESSAGES:
            row[0] = 1.0
        elif "выкат" in text or "релиз" in text.lower():
            row[1] = 1.0
        else:
            row[2 + sum(map(ord, text)) % (self.dim - 2)] = 1.0
        return row

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([self._row(t) for t in texts], dtype=np.float32).reshape(
            len(texts), self.dim)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed(texts)


def _service(settings: Settings, project_dir: Path, *memories: str) -> LocalMemoryService:
    service = LocalMemoryService(settings, project_dir, embedder=TopicEmbedder(),
                                 background_vectors=False)
    for text in [*memories, RUSSIAN, "We deploy with helm"]:
        service.save(text, force=True)
    return service


@pytest.mark.parametrize("text, words", [
    ("the and of to is a", True), ("的 了 是", True), ("ok", True), ("2024", True),
    ("😀😀", False), ("…", False), (RUSSIAN, False), ("관리자 권한", False), ("", False),
])
def test_which_texts_hold_words_read_here(text: str, words: bool) -> None:
    assert has_words(text) is words


@pytest.mark.parametrize("memory", CONTENTLESS)
def test_a_contentless_memory_is_never_shown(settings: Settings, project_dir: Path,
                                             memory: str) -> None:
    service = _service(settings, project_dir, memory)
    for message in EMPTY_MESSAGES:
        assert [r.entry.content for r in service.search(message)] == [], message
        explained = {r.entry.content: r for r in service.search(message, explain=True)}
        assert memory not in explained or not explained[memory].shown


def test_a_memory_in_a_script_without_keywords_is_still_found_by_meaning(
        settings: Settings, project_dir: Path) -> None:
    service = _service(settings, project_dir, CONTENTLESS[0])
    shown = [r.entry.content for r in service.search("как выкатить новый релиз")]
    assert shown == [RUSSIAN]
