"""The project's own words for a question asked in other words (core.code.vocabulary).

A word table embedder stands in for the English/code model: words of one group are near
(cosine 0.8), any other pair is orthogonal, so every expected neighbour is exact.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from doubles.files import write_files

from paicli_tui.core.code import vocabulary as vocab
from paicli_tui.core.code.indexer import CodeIndexer
from paicli_tui.core.code.search import search_project


class GroupEmbedder:
    """Each listed word: its group's axis plus half its own axis (two words of one group have
    cosine 0.8, of two groups 0); any other text: a random unit vector seeded by its hash in
    SPARE further dimensions (near orthogonal to everything). Records what it is asked."""

    SPARE = 400

    def __init__(self, groups: dict[str, Sequence[str]], name: str = "fake/groups") -> None:
        self.name = name
        self.groups = {w: g for g, words in enumerate(groups.values()) for w in words}
        self.words = sorted(self.groups)
        self.listed = len(groups) + len(self.words)
        self.dim = self.listed + self.SPARE
        self.asked: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            if text in self.groups:
                rows[i, self.groups[text]] = 1.0
                rows[i, len(set(self.groups.values())) + self.words.index(text)] = 0.5
            else:
                seed = int.from_bytes(hashlib.sha1(text.encode()).digest()[:4], "little")
                rows[i, self.listed:] = np.random.default_rng(seed).standard_normal(self.SPARE)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        self.asked.extend(texts)
        return self.embed(texts)


GROUPS = {"reply": ["answer", "ask", "respond", "answers"], "mistake": ["mistake", "errors"],
          "speed": ["fast", "quick", "rapid", "swift", "hasty"]}


def _vocabulary(counts: dict[str, int], chunks: int = 400) -> vocab.Vocabulary:
    embedder = GroupEmbedder(GROUPS)
    candidates = tuple(sorted(w for w, n in counts.items() if n <= vocab.MAX_SHARE * chunks))
    vectors = embedder.embed(list(candidates))
    return vocab.Vocabulary("1", chunks, counts, candidates, vectors)


def test_word_counts_are_chunk_counts_of_lower_case_words_of_three_letters() -> None:
    counts = vocab.word_counts(["Send the answer, answer it", "ask ASK an ox", "x_answer"])
    assert dict(counts) == {"send": 1, "the": 1, "answer": 2, "ask": 1}  # x_answer holds it


def test_content_words_keep_question_order_once_without_stop_words() -> None:
    assert vocab.content_words("Where is the Answer sent, the answer to a mistake?") == [
        "answer", "sent", "mistake"]


# (question, chunk counts of the project's words, chunks, words added)
CASES = [
    # "answer" is absent: its group's project words, best first (all 0.8: alphabetical order
    # of the candidates), at most NEIGHBOURS, never another form of it ("answers")
    ("send back the answer", {"ask": 2, "respond": 1, "answers": 1, "send": 9, "back": 9}, 400,
     ["ask", "respond"]),
    # used in more than RARE_CHUNKS chunks: the question's word is the project's word
    ("send back the answer", {"answer": 4, "ask": 2, "respond": 1}, 400, []),
    # used in RARE_CHUNKS chunks: still rare, still bridged
    ("send back the answer", {"answer": 3, "ask": 2}, 400, ["ask"]),
    # ... but not in a project of 200 chunks, where 3 is over RARE_SHARE (1%) of them
    ("send back the answer", {"answer": 3, "ask": 2}, 200, []),
    ("send back the answer", {"answer": 2, "ask": 2}, 200, ["ask"]),
    # a small project bridges only the words it never uses
    ("send back the answer", {"answer": 1, "ask": 1}, 50, []),
    ("send back the answer", {"ask": 1}, 50, ["ask"]),
    # a word of another group is never near enough
    ("a mistake happened", {"ask": 1, "respond": 1}, 400, []),
    # two rare words, each its own neighbours, each added once, question order
    ("fast answer or a mistake", {"quick": 1, "rapid": 1, "swift": 1, "hasty": 1,
                                  "errors": 2, "ask": 1}, 400,
     ["hasty", "quick", "rapid", "ask", "errors"]),
    # a word more than MAX_SHARE of the chunks hold is never added
    ("send back the answer", {"ask": 21, "respond": 1}, 400, ["respond"]),
]


@pytest.mark.parametrize(("question", "counts", "chunks", "added"), CASES)
def test_related_words_table(question: str, counts: dict[str, int], chunks: int,
                             added: list[str]) -> None:
    embedder = GroupEmbedder(GROUPS)
    assert vocab.related_words(_vocabulary(counts, chunks), question,
                               embedder.embed_queries) == added


# (question, chunk counts of the project's words, already related, abbreviations added)
ABBREVIATION_CASES = [
    # a word the project never uses: the project words it starts with, longest first
    ("timeout in milliseconds", {"millis": 3, "milli": 1, "mill": 1, "timeout": 9}, (),
     ["millis", "milli"]),
    # never more than ABBREVIATIONS per word, never under ABBREVIATION_MIN letters
    ("the repository path", {"repos": 1, "repo": 4, "rep": 9, "path": 9}, (),
     ["repos", "repo"]),
    ("the specification", {"specifi": 1, "speci": 1, "spec": 4}, (), ["specifi", "speci"]),
    ("wait for the answers", {"ans": 3}, (), []),
    # a word the project uses (or its stem) is its own word: nothing added
    ("timeout in milliseconds", {"milliseconds": 1, "millis": 3}, (), []),
    ("parse the configurations", {"configur": 2, "config": 4}, (), []),  # stem configur
    # already among the related words: not twice
    ("timeout in milliseconds", {"millis": 3, "milli": 1}, ("millis",), ["milli"]),
    # a stop word is no abbreviation
    ("whichever side", {"which": 9, "side": 9}, (), []),
]


@pytest.mark.parametrize(("question", "counts", "taken", "added"), ABBREVIATION_CASES)
def test_abbreviations_table(question: str, counts: dict[str, int], taken: tuple[str, ...],
                             added: list[str]) -> None:
    assert vocab.abbreviations(_vocabulary(counts), question, taken) == added


def test_only_rare_words_are_embedded_at_search_time() -> None:
    embedder = GroupEmbedder(GROUPS)
    vocab.related_words(_vocabulary({"send": 50, "back": 40, "ask": 1}), "send back the answer",
                        embedder.embed_queries)
    assert embedder.asked == ["answer"]


def test_build_reuses_known_vectors_and_leaves_common_words_out() -> None:
    embedder = GroupEmbedder(GROUPS)
    texts = [f"value ask {i}" for i in range(30)] + ["respond quick"]
    known = {"ask": embedder.embed(["ask"])[0]}
    built = vocab.build_vocabulary("7", texts, embedder.embed_queries, known)
    assert built.version == "7" and built.chunks == 31
    assert built.counts["value"] == 30 and built.counts["respond"] == 1
    assert built.candidates == ("quick", "respond")  # value and ask: in over 5% of chunks
    assert embedder.asked == ["quick", "respond"]  # nothing known is embedded again
    assert np.allclose(built.vectors, embedder.embed(["quick", "respond"]))


def test_cache_round_trip_is_exact_and_a_damaged_file_reads_as_none(tmp_path: Path) -> None:
    built = _vocabulary({"ask": 2, "respond": 1, "send": 9})
    path = tmp_path / "v.npz"
    vocab.write_cache(path, built)
    back = vocab.read_cache(path)
    assert back is not None
    assert (back.version, back.chunks, back.counts, back.candidates) == (
        built.version, built.chunks, built.counts, built.candidates)
    assert np.array_equal(back.vectors, built.vectors)
    assert [p.name for p in tmp_path.iterdir()] == ["v.npz"]  # no temporary file left
    path.write_bytes(b"not a numpy archive")
    assert vocab.read_cache(path) is None
    assert vocab.read_cache(tmp_path / "missing.npz") is None


FILLER = {f"util/step{i}.py": f'def step{i}(x):\n    """Step {i} of the pipeline."""\n'
          for i in range(4)}
PROJECT = {
    "rpc/actor.py": '''
def ask(worker, message):
    """Send the message to the worker and wait until it replies."""
    return worker.queue.put(message).wait()
''',
    "rpc/mailbox.py": '''
def post(worker, message):
    """Leave the message in the worker's queue without waiting."""
    worker.queue.put(message)
''',
    **FILLER,
}
QUESTION = "who gives the answer"


@pytest.fixture
def indexed(settings, project_dir: Path):
    write_files(project_dir, PROJECT)
    embedder = GroupEmbedder(GROUPS)
    CodeIndexer(settings, project_dir, embedder).update()
    return settings, project_dir, embedder


def test_hybrid_search_finds_code_in_the_projects_word_and_says_which(indexed) -> None:
    settings, root, embedder = indexed
    hybrid = search_project(settings, root, QUESTION, mode="hybrid", embedder=embedder)
    assert hybrid.plan["project_words"] == ["ask"]
    assert "vocabulary" not in hybrid.plan  # cached fine: nothing to say
    assert hybrid.hits[0].name == "ask(worker, message)"
    assert hybrid.hits[0].ranks["text"] == 1  # found by full-text through the added word
    text = search_project(settings, root, QUESTION, mode="text", embedder=embedder)
    assert text.plan["project_words"] == []  # full-text alone keeps to the question's words
    assert text.hits == []


def test_an_added_word_weighs_less_than_a_question_word(indexed) -> None:
    settings, root, embedder = indexed
    # "post" is the question's own word and "ask" only a related one: post stays first
    response = search_project(settings, root, "post the answer", mode="hybrid",
                              embedder=embedder)
    assert response.plan["project_words"] == ["ask"]
    text_ranks = {h.name: h.ranks["text"] for h in response.hits}
    assert text_ranks["post(worker, message)"] == 1
    assert text_ranks["ask(worker, message)"] == 2


def test_an_abbreviation_in_the_code_is_found_for_the_word_written_out(indexed) -> None:
    settings, root, embedder = indexed
    (root / "rpc" / "clock.py").write_text(
        'def wait_millis(n):\n    """Sleep n ms."""\n', encoding="utf-8")
    CodeIndexer(settings, root, embedder).update()
    response = search_project(settings, root, "pause for some milliseconds", mode="hybrid",
                              embedder=embedder)
    assert response.plan["project_abbreviations"] == ["millis", "milli"]  # and its stem
    assert response.hits[0].name == "wait_millis(n)"
    assert response.hits[0].ranks["text"] == 1


def test_the_vocabulary_is_cached_per_index_version(indexed) -> None:
    settings, root, embedder = indexed
    embedder.asked.clear()
    search_project(settings, root, QUESTION, mode="hybrid", embedder=embedder)
    search_project(settings, root, QUESTION, mode="hybrid", embedder=embedder)
    assert "ask" not in embedder.asked  # the project's words come from the cache
    (root / "rpc" / "reply.py").write_text('def respond(x):\n    """Respond to x."""\n',
                                           encoding="utf-8")
    CodeIndexer(settings, root, embedder).update()
    embedder.asked.clear()
    again = search_project(settings, root, QUESTION, mode="hybrid", embedder=embedder)
    assert "respond" in embedder.asked and "ask" not in embedder.asked  # only new words
    assert again.plan["project_words"] == ["ask", "respond"]


def test_a_session_reads_the_cache_file_once_while_it_is_unchanged(indexed, monkeypatch
                                                                   ) -> None:
    """Every hybrid search of a session needs the vocabulary: it is read from its file once
    and held while the file and the index version stay as they were."""
    settings, root, embedder = indexed
    reads = []
    real = vocab.read_cache
    monkeypatch.setattr(vocab, "read_cache", lambda path: reads.append(path) or real(path))
    for _ in range(3):
        response = search_project(settings, root, QUESTION, mode="hybrid", embedder=embedder)
        assert response.plan["project_words"] == ["ask"]
    assert len(reads) <= 1
    (root / "rpc" / "reply.py").write_text('def respond(x):\n    """Respond to x."""\n',
                                           encoding="utf-8")
    CodeIndexer(settings, root, embedder).update()  # a new index version: read again
    again = search_project(settings, root, QUESTION, mode="hybrid", embedder=embedder)
    assert again.plan["project_words"] == ["ask", "respond"]


def test_an_unwritable_cache_still_searches_and_says_so(indexed) -> None:
    settings, root, embedder = indexed
    shutil.rmtree(settings.home.cache_dir / "code_vocabulary")  # what the indexer made
    (settings.home.cache_dir / "code_vocabulary").write_text("a file where a folder belongs")
    response = search_project(settings, root, QUESTION, mode="hybrid", embedder=embedder)
    assert response.plan["project_words"] == ["ask"]
    assert response.plan["vocabulary"].startswith("not cached")
    assert response.hits[0].name == "ask(worker, message)"



def test_a_new_index_prepares_the_words_and_an_incremental_run_leaves_them(settings,
                                                                         project_dir) -> None:
    write_files(project_dir, PROJECT)
    embedder = GroupEmbedder(GROUPS)
    first = CodeIndexer(settings, project_dir, embedder).update()
    assert first.vocabulary_words > 0 and first.vocabulary_note == ""
    assert "ask" in embedder.asked
    embedder.asked.clear()
    response = search_project(settings, project_dir, QUESTION, mode="hybrid", embedder=embedder)
    assert response.plan["project_words"] == ["ask"]
    assert "ask" not in embedder.asked  # the first search found them ready
    (project_dir / "rpc" / "reply.py").write_text("def respond(x):\n    return x\n",
                                                  encoding="utf-8")
    again = CodeIndexer(settings, project_dir, embedder).update()
    assert again.files_indexed == 1 and again.vocabulary_words == 0


def test_words_that_cannot_be_cached_at_index_time_are_noted(settings, project_dir) -> None:
    (project_dir / "a.py").write_text("def ask(x):\n    return x\n", encoding="utf-8")
    settings.home.cache_dir.mkdir(parents=True, exist_ok=True)
    (settings.home.cache_dir / "code_vocabulary").write_text("a file where a folder belongs")
    summary = CodeIndexer(settings, project_dir, GroupEmbedder(GROUPS)).update()
    assert summary.chunks_total == 1
    assert summary.vocabulary_note.startswith("not cached")


def test_index_command_says_when_the_words_could_not_be_cached(settings, project_dir,
                                                               monkeypatch, capsys) -> None:
    import paicli_tui.core.embedders as embedders
    from paicli_tui import cli

    (project_dir / "a.py").write_text("def ask(x):\n    return x\n", encoding="utf-8")
    settings.home.cache_dir.mkdir(parents=True, exist_ok=True)
    (settings.home.cache_dir / "code_vocabulary").write_text("a file where a folder belongs")
    monkeypatch.setattr(embedders, "get_code_embedder", lambda _settings: GroupEmbedder(GROUPS))
    monkeypatch.chdir(project_dir)
    assert cli.main(["index"]) == 0
    out = capsys.readouterr().out
    assert "Note: the project's words for search: not cached (" in out
