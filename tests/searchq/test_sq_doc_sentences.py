"""The doc sentence as the multilingual embedder's second reading of a chunk
(core.code.doc_sentences): the sentence, the z-score merge, the cache, search and --explain.

A sentence-table embedder stands in for USE: a listed text gets its listed axis (so a
question and the doc sentence written for it have cosine 1), any other text a random unit
vector in further dimensions (near orthogonal to everything).
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from doubles.embedders import HashEmbedder
from doubles.files import write_files
from doubles.one_pass import assert_read_in_one_pass

from paicli_tui.core.code import doc_sentences as ds
from paicli_tui.core.code.indexer import CodeIndexer
from paicli_tui.core.code.search import search_project
from paicli_tui.core.embedders.paired import EmbedderPart, PairedEmbedder

# (doc comment, its first sentence as read)
SENTENCES = [
    ("Select exactly one clause to complete, with a timeout. Each clause should differ.",
     "Select exactly one clause to complete, with a timeout."),
    # inline tags read as their first word, HTML left out
    ("<p>Sends {@link Channel#send(Object) the value} to {@code out}!\n\nThen more.",
     "Sends Channel.send(Object) to out!"),
    # nothing from the block tags on
    ("Closes the scope\n@param cause why\n@return nothing", "Closes the scope"),
    # a dot inside a word ends nothing; white space is one space
    ("Version 1.2 of the\n   wire   format is read here", "Version 1.2 of the wire format is read here"),
    # a Python docstring: its summary line
    ("Render the table.\n\n    Args:\n        width: the width.", "Render the table."),
    ("x" * 300, "x" * ds.MAX_CHARS),
    ("", ""),
    ("   \n ", ""),
]


@pytest.mark.parametrize(("doc", "sentence"), SENTENCES)
def test_first_sentence_table(doc: str, sentence: str) -> None:
    assert ds.first_sentence(doc) == sentence


# (chunk similarities a..d, documented chunks and their sentence similarities, depth,
#  ranking, ranked by their doc sentence). Chunk z-scores of 0.9/0.8/0.7/0.6: 1.342,
#  0.447, -0.447, -1.342
MERGES = [
    # no documented chunk: the plain order
    ([0.9, 0.8, 0.7, 0.6], {}, 4, ["a", "b", "c", "d"], set()),
    # c's sentence z 1.0 passes b (0.447); d's -1.0 still beats its own -1.342
    ([0.9, 0.8, 0.7, 0.6], {"c": 0.5, "d": 0.1}, 4, ["a", "c", "b", "d"], {"c", "d"}),
    # only the ranked ones are said to be read by their sentence
    ([0.9, 0.8, 0.7, 0.6], {"c": 0.5, "d": 0.1}, 2, ["a", "c"], {"c"}),
    # a raw similarity counts only against its own population: a sentence at 0.99 among
    # sentences at 0.99-0.98 is no better than its chunk's own place
    ([0.9, 0.8, 0.7, 0.6], {"a": 0.99, "b": 0.98}, 4, ["a", "b", "c", "d"], set()),
    # one documented chunk: its z is 0 (the mean), above d's -1.342
    ([0.9, 0.8, 0.7, 0.6], {"d": 0.99}, 4, ["a", "b", "d", "c"], {"d"}),
    # all chunks alike: ties keep the order given
    ([0.5, 0.5, 0.5], {}, 3, ["a", "b", "c"], set()),
    # a sentence of a chunk no longer in the index changes nothing
    ([0.9, 0.8, 0.7, 0.6], {"gone": 0.9, "c": 0.1}, 4, ["a", "b", "c", "d"], set()),
]


@pytest.mark.parametrize(("sims", "docs", "depth", "ranking", "by_doc"), MERGES)
def test_best_of_two_table(sims: list[float], docs: dict[str, float], depth: int,
                           ranking: list[str], by_doc: set[str]) -> None:
    ids = ["a", "b", "c", "d"][: len(sims)]
    got = ds.best_of_two(ids, np.asarray(sims), list(docs), np.asarray(list(docs.values())),
                         depth)
    assert got == (ranking, by_doc)


def test_build_leaves_undocumented_chunks_out_and_reuses_known_vectors() -> None:
    reader = HashEmbedder("fake-use", 8)
    known = {"Send it.": reader.embed(["Send it."])[0]}
    reader.texts.clear()
    built = ds.build_doc_vectors("3", ["a", "b", "c", "d"],
                                 ["Send it. Then wait.", None, "", "Wait here."], reader.embed,
                                 known)
    assert (built.version, built.ids, built.sentences) == ("3", ("a", "d"),
                                                          ("Send it.", "Wait here."))
    assert reader.texts == ["Wait here."]  # a known sentence is not embedded again
    assert np.allclose(built.vectors, reader.embed(["Send it.", "Wait here."]))


def test_cache_round_trip_is_exact_and_a_damaged_file_reads_as_none(tmp_path: Path) -> None:
    reader = HashEmbedder("fake-use", 8)
    built = ds.build_doc_vectors("5", ["a", "b"], ["One.", "Two."], reader.embed)
    path = tmp_path / "d.npz"
    ds.write_cache(path, built)
    back = ds.read_cache(path)
    assert back is not None
    assert (back.version, back.ids, back.sentences) == (built.version, built.ids, built.sentences)
    assert np.array_equal(back.vectors, built.vectors)
    assert [p.name for p in tmp_path.iterdir()] == ["d.npz"]  # no temporary file left
    path.write_bytes(b"not a numpy archive")
    assert ds.read_cache(path) is None
    assert ds.read_cache(tmp_path / "missing.npz") is None


class SentenceTable:
    """Listed texts: their axis; any other text: a random unit vector in SPARE further
    dimensions seeded by its hash. Records every text it embeds."""

    SPARE = 200

    def __init__(self, axes: dict[str, int], name: str = "fake/sentences") -> None:
        self.name = name
        self.axes = axes
        self.dim = max(axes.values()) + 1 + self.SPARE
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            if text in self.axes:
                rows[i, self.axes[text]] = 1.0
            else:
                seed = int.from_bytes(hashlib.sha1(text.encode()).digest()[:4], "little")
                rows[i, self.dim - self.SPARE:] = (
                    np.random.default_rng(seed).standard_normal(self.SPARE))
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed(texts)


QUESTION = "who gives the answer"
ASK_SENTENCE = "Send the message to the worker and wait until it replies."
PROJECT = {
    "rpc/actor.py": f'''
def ask(worker, message):
    """{ASK_SENTENCE}

    The worker must be running.
    """
    return worker.queue.put(message).wait()
''',
    "rpc/mailbox.py": '''
def post(worker, message):
    """Leave the message in the worker's queue without waiting."""
    worker.queue.put(message)
''',
    "rpc/plain.py": "def relay(worker, message):\n    return post(worker, message)\n",
    **{f"util/step{i}.py": f'def step{i}(x):\n    """Step {i} of the pipeline."""\n'
       for i in range(4)},
}


def _paired() -> tuple[PairedEmbedder, SentenceTable]:
    table = SentenceTable({QUESTION: 0, ASK_SENTENCE: 0})
    return PairedEmbedder([EmbedderPart("semantic", table),
                           EmbedderPart("minilm", HashEmbedder("fake-mini", 8),
                                        english_only=True)]), table


@pytest.fixture
def indexed(settings, project_dir: Path):
    write_files(project_dir, PROJECT)
    embedder, table = _paired()
    summary = CodeIndexer(settings, project_dir, embedder).update()
    return settings, project_dir, embedder, table, summary


def test_a_new_index_prepares_the_sentences_of_its_documented_chunks(indexed) -> None:
    settings, root, embedder, table, summary = indexed
    assert summary.doc_sentences == 6 and summary.doc_sentences_note == ""  # relay has none
    assert ASK_SENTENCE in table.texts  # embedded once, while indexing
    table.texts.clear()
    response = search_project(settings, root, QUESTION, mode="hybrid", embedder=embedder)
    assert table.texts == [QUESTION]  # the first search found the sentences ready
    assert response.plan["doc_sentences"] == 6


def test_the_multilingual_embedder_ranks_a_chunk_by_its_doc_sentence(indexed) -> None:
    settings, root, embedder, _, _ = indexed
    for mode in ("semantic", "hybrid"):
        response = search_project(settings, root, QUESTION, mode=mode, embedder=embedder)
        first = response.hits[0]
        assert first.name == "ask(worker, message)"
        assert first.ranks["semantic"] == 1
        assert first.doc_sentence == ASK_SENTENCE  # --explain says which reading ranked it
        assert first.to_json(explain=True)["doc_sentence"] == ASK_SENTENCE
        assert "doc_sentence" not in first.to_json()
        assert all(not hit.doc_sentence or hit.ranks["semantic"] for hit in response.hits)
    text = search_project(settings, root, QUESTION, mode="text", embedder=embedder)
    assert "doc_sentences" not in text.plan  # full-text alone reads no vectors


def test_explain_in_the_terminal_names_the_doc_sentence(indexed, monkeypatch, capsys) -> None:
    import paicli_tui.core.embedders as embedders
    from paicli_tui import cli

    settings, root, embedder, _, _ = indexed
    monkeypatch.setattr(embedders, "get_code_embedder", lambda _settings: embedder)
    monkeypatch.chdir(root)
    assert cli.main(["search", "--explain", "--no-rewrite", QUESTION]) == 0
    out = capsys.readouterr().out
    assert f"   semantic read its doc sentence: {ASK_SENTENCE}" in out
    assert '"doc_sentences": 6' in out


def test_only_new_sentences_are_embedded_after_an_incremental_run(indexed) -> None:
    settings, root, embedder, table, _ = indexed
    (root / "rpc" / "reply.py").write_text('def respond(x):\n    """Respond to x."""\n',
                                           encoding="utf-8")
    again = CodeIndexer(settings, root, embedder).update()
    assert again.files_indexed == 1 and again.doc_sentences == 0  # left to the first search
    table.texts.clear()
    response = search_project(settings, root, QUESTION, mode="hybrid", embedder=embedder)
    assert "Respond to x." in table.texts and ASK_SENTENCE not in table.texts
    assert response.plan["doc_sentences"] == 7


def test_an_unwritable_cache_still_searches_and_says_so(indexed) -> None:
    settings, root, embedder, _, _ = indexed
    folder = settings.home.cache_dir / "code_doc_sentences"
    shutil.rmtree(folder)
    folder.write_text("a file where a folder belongs")
    response = search_project(settings, root, QUESTION, mode="hybrid", embedder=embedder)
    assert response.plan["doc_sentences_note"].startswith("not cached")
    assert response.hits[0].name == "ask(worker, message)"
    assert response.hits[0].doc_sentence == ASK_SENTENCE


def test_an_embedder_of_one_part_reads_no_doc_sentences(settings, project_dir) -> None:
    (project_dir / "a.py").write_text('def ask(x):\n    """Ask x."""\n', encoding="utf-8")
    embedder = HashEmbedder("fake-one", 8)
    summary = CodeIndexer(settings, project_dir, embedder).update()
    assert summary.doc_sentences == 0 and summary.doc_sentences_note == ""
    response = search_project(settings, project_dir, "ask", mode="hybrid", embedder=embedder)
    assert "doc_sentences" not in response.plan
    assert not (settings.home.cache_dir / "code_doc_sentences").exists()


def test_index_command_says_when_the_sentences_could_not_be_cached(settings, project_dir,
                                                                   monkeypatch, capsys) -> None:
    import paicli_tui.core.embedders as embedders
    from paicli_tui import cli

    (project_dir / "a.py").write_text('def ask(x):\n    """Ask x."""\n', encoding="utf-8")
    settings.home.cache_dir.mkdir(parents=True, exist_ok=True)
    (settings.home.cache_dir / "code_doc_sentences").write_text("a file where a folder belongs")
    monkeypatch.setattr(embedders, "get_code_embedder", lambda _settings: _paired()[0])
    monkeypatch.chdir(project_dir)
    assert cli.main(["index"]) == 0
    assert "Note: the doc sentences for search: not cached (" in capsys.readouterr().out


def test_an_index_run_removes_the_doc_sentences_of_an_index_that_is_gone(indexed,
                                                                         tmp_path) -> None:
    """Pruned like the project words' caches (core.code.vocabulary_prune): another project's
    file naming a deleted index goes, this index's own stays, and the run says so."""
    settings, root, embedder, _, _ = indexed
    reader = HashEmbedder("fake-use", 8)
    stale = ds.cache_folder(settings.home) / "deleted-project.npz"
    ds.write_cache(stale, ds.build_doc_vectors("1", ["a"], ["One."], reader.embed),
                   str(tmp_path / "deleted" / ".paicli" / "index"))
    (root / "rpc" / "reply.py").write_text('def respond(x):\n    """Respond to x."""\n',
                                           encoding="utf-8")
    summary = CodeIndexer(settings, root, embedder).update()
    assert not stale.exists()
    assert [r["name"] for r in summary.vocabulary_caches_removed] == ["deleted-project.npz"]
    assert summary.vocabulary_caches_removed[0]["reason"].startswith("its index is gone (")
    own = list(ds.cache_folder(settings.home).glob("*.npz"))
    assert len(own) == 1 and ds.read_cache(own[0]) is not None


# A hostile repository's doc comment: a run of blank lines, or thousands of '<' or '{@code '
# without their end, made each pattern scan to the end of the doc from every start (20,000
# blank lines: 1 s; half a million, as a file can hold: most of an hour of `index`).
@pytest.mark.parametrize("doc", [
    "Parses a date.\n" + "\n " * 300_000 + "x",
    "Parses a date. " + "<" * 300_000,
    "Parses a date. " + "{@code " * 100_000,
], ids=["blank-lines", "open-angles", "open-inline-tags"])
def test_a_doc_without_ends_is_read_in_one_pass(doc: str) -> None:
    def read() -> None:
        assert ds.first_sentence(doc) == "Parses a date."

    assert_read_in_one_pass(read)


@pytest.mark.parametrize(("doc", "sentence"), [
    ("Parses a date.\n\n  @param text the text", "Parses a date."),
    ("Parses {@link Foo#bar(int) the bar} here. More.", "Parses Foo.bar(int) here."),
    ("Uses <b>bold</b> words. More.", "Uses bold words."),
    ("A list\n * of things\n@return x", "A list * of things"),
])
def test_first_sentence_after_the_one_pass_patterns(doc: str, sentence: str) -> None:
    assert ds.first_sentence(doc) == sentence
