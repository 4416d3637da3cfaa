"""The project's-words cache written and read by several processes at once (two searches,
or a search beside an indexer, on one PAICLI_HOME): every read gives a whole vocabulary,
equal to the one built from the index; no temporary file is left."""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

import numpy as np
from test_sq_project_words import GROUPS, PROJECT, GroupEmbedder

from paicli_tui.config import load_settings
from paicli_tui.core.code import vocabulary as vocab
from paicli_tui.core.code.indexer import CodeIndexer
from paicli_tui.core.code.lance_store import index_location, open_index

WORKERS = 4
ROUNDS = 15
MANY = " ".join(f"term{a}{b}{c}" for a in "abcdefghij" for b in "abcdefghij"
                for c in "abcdefghijklmnopqrst")
"""2,000 distinct words: a cache of a few megabytes, so writes and reads overlap."""


def _work(home: str, root: str, together: Any) -> None:
    settings = load_settings({}, {"PAICLI_HOME": home})
    location = index_location(settings, Path(root))
    tables = open_index(location)
    embedder = GroupEmbedder(GROUPS)
    path = vocab.cache_file(settings.home, location, embedder.name)
    together.wait()
    for _ in range(ROUNDS):
        built = vocab.vocabulary_for(tables, location, settings.home, embedder)
        assert "ask" in built.candidates and built.note == ""
        vocab.write_cache(path, built)  # every worker rewrites it while the others read
        back = vocab.read_cache(path)
        assert back is not None
        assert back.candidates == built.candidates and back.counts == built.counts
        assert np.array_equal(back.vectors, built.vectors)


def test_concurrent_writers_and_readers_see_whole_vocabularies(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "project"
    for rel, text in {**PROJECT, "glossary.py": f'def glossary():\n    """{MANY}"""\n'}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    settings = load_settings({}, {"PAICLI_HOME": str(home)})
    CodeIndexer(settings, root, GroupEmbedder(GROUPS)).update()
    folder = settings.home.cache_dir / "code_vocabulary"
    for old in folder.iterdir():  # every worker starts by building it
        old.unlink()

    ctx = multiprocessing.get_context("spawn")
    with ctx.Manager() as manager, ctx.Pool(WORKERS) as pool:
        together = manager.Barrier(WORKERS)  # all start their rounds at once
        # a worker's failed check is raised here, with its message
        pool.starmap_async(_work, [(str(home), str(root), together)] * WORKERS).get(180)
    files = sorted(p.name for p in folder.iterdir())
    assert len(files) == 1 and files[0].endswith(".npz")  # no temporary file left
    final = vocab.read_cache(folder / files[0])
    assert final is not None and "ask" in final.candidates
