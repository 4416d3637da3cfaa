"""The memory vector cache keeps its rows as one matrix (read from the file with a hash → row
index, new rows folded in on save). Whatever the sequence of stores, partial embedding and
new processes: every row is the embedder's vector of its own text, rows not embedded yet are
zero and marked absent, nothing embedded is lost, and no text is embedded twice."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from doubles.embedders import HashEmbedder
from hypothesis import given, settings
from hypothesis import strategies as st

from paicli_tui.core.memory.vectors import VectorCache

TEXTS = [f"memory {c}" for c in "abcdefghij"] + ["生产库只读", "Redis 锁"]

stores = st.lists(st.lists(st.sampled_from(TEXTS), max_size=8), min_size=1, max_size=5)
"""A sequence of stores the cache is asked about (duplicates and reorders included)."""


@settings(max_examples=40, deadline=None)
@given(stores=stores, caps=st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=5,
                                    max_size=5), reopen=st.lists(st.booleans(), min_size=5,
                                                                 max_size=5))
def test_rows_are_their_texts_vectors_and_nothing_is_lost(stores: list[list[str]],
                                                         caps: list[int | None],
                                                         reopen: list[bool]) -> None:
    reference = HashEmbedder("fake-8")
    with tempfile.TemporaryDirectory() as tmp:
        embedder = HashEmbedder("fake-8")
        cache = VectorCache(Path(tmp), embedder)
        embedded: set[str] = set()
        for texts, cap, fresh_process in zip(stores, caps, reopen, strict=False):
            if fresh_process:
                cache = VectorCache(Path(tmp), embedder)
            matrix = cache.matrix(list(texts), max_new=cap)
            present = cache.present_rows(matrix)
            embedded |= set(embedder.texts)
            assert matrix.shape == (len(texts), 8)
            for i, text in enumerate(texts):
                if text in embedded:
                    assert present[i]
                    np.testing.assert_allclose(matrix[i], reference.embed([text])[0], rtol=1e-6)
                else:
                    assert not present[i] and not matrix[i].any()
            assert len(embedder.texts) == len(set(embedder.texts))  # never embedded twice
        # a new process finds every row embedded so far, without embedding anything
        later = HashEmbedder("fake-8")
        everything = sorted(embedded)
        matrix = VectorCache(Path(tmp), later).matrix(everything)
        assert later.texts == []
        if everything:
            np.testing.assert_allclose(matrix, reference.embed(everything), rtol=1e-6)
