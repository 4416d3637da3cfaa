"""A word the message repeats (a pasted log saying "timeout" twenty times) is one word of the
message: before, each repeat counted again, so a memory sharing only that word passed the
bars beside one sharing four of the message's words, and --explain listed "timeout, timeout,
timeout…"."""

from __future__ import annotations

from pathlib import Path

import pytest
from doubles.embedders import WordsEmbedder
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from paicli_tui.config import Settings
from paicli_tui.core.memory.service import LocalMemoryService

MEMORIES = ["The HTTP client timeout is 30 seconds",
            "On a timeout, retry with exponential backoff and jitter",
            "We deploy with helm"]


@pytest.fixture
def service(settings: Settings, project_dir: Path) -> LocalMemoryService:
    # keywords only: the embedder reads the message as written (repeats and all)
    service = LocalMemoryService(settings, project_dir, embedder=WordsEmbedder(),
                                 use_vectors=False)
    for text in MEMORIES:
        service.save(text, force=True)
    return service


def _shown(service: LocalMemoryService, message: str) -> list[tuple[str, float, tuple]]:
    return [(r.entry.content, round(r.keyword, 4), r.matched)
            for r in service.search(message, explain=True)]


def test_a_repeated_word_counts_once(service: LocalMemoryService) -> None:
    once = _shown(service, "timeout retry backoff jitter")
    assert once == _shown(service, "timeout " * 20 + "retry backoff jitter")
    assert [r.entry.content for r in service.search("timeout " * 20 + "retry backoff jitter")
            ] == ["On a timeout, retry with exponential backoff and jitter"]
    explained = service.search("timeout timeout timeout helm", explain=True)
    assert all(len(r.matched) == len(set(r.matched)) for r in explained)


@hypothesis_settings(max_examples=25, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow,
                                            HealthCheck.function_scoped_fixture])
@given(words=st.lists(st.sampled_from(["timeout", "retry", "helm", "deploy", "jitter",
                                       "seconds", "the", "重试", "超时"]), min_size=1,
                      max_size=6),
       repeats=st.lists(st.integers(1, 4), min_size=6, max_size=6))
def test_repeating_any_word_of_a_message_changes_nothing(
        service: LocalMemoryService, words: list[str], repeats: list[int]) -> None:
    unique = list(dict.fromkeys(words))
    plain = " ".join(unique)
    repeated = " ".join(w for w, n in zip(unique, repeats[:len(unique)], strict=True)
                        for _ in range(n))
    assert _shown(service, repeated) == _shown(service, plain)
