"""grep mode ranks the definition of a word above its uses, keeps the line that matched and
counts the raw matches; scores fall with rank.

The project is a small copy of the shape that went wrong in rich: `Progress` is used in type
hints (`Iterable[ProgressType]`), in calls and imports, and defined once (`class Progress`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from doubles.embedders import HashEmbedder

from paicli_tui.core.code.indexer import CodeIndexer
from paicli_tui.core.code.search import search_project

PROGRESS = '''from typing import Iterable, TypeVar

ProgressType = TypeVar("ProgressType")


def track(
    sequence: Iterable[ProgressType],
) -> Iterable[ProgressType]:
    """Track progress by iterating over a sequence."""
    with Progress() as progress:
        yield from progress.track(sequence)


class Progress(JupyterMixin):
    """Renders an auto-updating progress bar(s)."""

    def __init__(self) -> None:
        self.tasks = []

    def add_task(self, description: str) -> int:
        return len(self.tasks)
'''
BAR = '''from .progress import Progress


def make_bar(total: int) -> Progress:
    return Progress()


def progress_total(bar) -> int:
    return bar.total
'''


@pytest.fixture
def project(project_dir: Path) -> Path:
    (project_dir / "progress.py").write_text(PROGRESS)
    (project_dir / "bar.py").write_text(BAR)
    (project_dir / "notes.md").write_text("The progress display is built on Progress.\n")
    return project_dir


def test_without_an_index_the_defining_window_comes_first(settings, project) -> None:
    response = search_project(settings, project, "Progress", mode="grep", top_k=10)
    assert [(h.path, h.match_line, h.match_text) for h in response.hits] == [
        ("progress.py", 14, "class Progress(JupyterMixin):"),
        ("bar.py", 1, "from .progress import Progress"),
        ("notes.md", 1, "The progress display is built on Progress.")]
    # every line holding the word, whatever the ranking kept
    assert (response.match_lines, response.match_files) == (13, 3)


@pytest.mark.parametrize("query,first", [
    ("Progress", ("Progress", 14, "class Progress(JupyterMixin):")),
    ("class Progress", ("Progress", 14, "class Progress(JupyterMixin):")),
    ("progress_total", ("progress_total(bar)", 8, "def progress_total(bar) -> int:")),
    ("track", ("track(sequence: Iterable[ProgressType])", 6, "def track(")),
])
def test_with_an_index_definitions_rank_above_uses(settings, project, query, first) -> None:
    CodeIndexer(settings, project, HashEmbedder()).update()
    hits = search_project(settings, project, query, mode="grep", top_k=30).hits
    assert (hits[0].name, hits[0].match_line, hits[0].match_text) == first
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert [h.ranks["grep"] for h in hits] == list(range(1, len(hits) + 1))


def test_whole_words_rank_above_longer_names(settings, project) -> None:
    """`track()` (the function using `Progress`) holds the word whole and shows the line where
    it is written as typed; the `ProgressType` line holds it only inside a longer name: the
    use ranks above the near miss."""
    CodeIndexer(settings, project, HashEmbedder()).update()
    hits = search_project(settings, project, "Progress", mode="grep", top_k=30).hits
    shown = [(h.path, h.start_line, h.match_text) for h in hits]
    track = shown.index(("progress.py", 6, "with Progress() as progress:"))
    near_miss = shown.index(("progress.py", 3, 'ProgressType = TypeVar("ProgressType")'))
    assert (track, near_miss) == (1, 6)


def test_json_carries_the_line_and_the_counts(settings, project) -> None:
    response = search_project(settings, project, "Progress", mode="grep", top_k=1)
    data = response.to_json()
    assert data["matches"] == {"lines": 13, "files": 3}
    assert data["results"][0]["match_line"] == 14
    assert data["results"][0]["match_text"] == "class Progress(JupyterMixin):"


def test_cli_prints_the_line_and_the_counts(settings, project, capsys, monkeypatch) -> None:
    from paicli_tui import cli

    monkeypatch.setenv("PAICLI_HOME", str(settings.home.home))
    assert cli.main(["search", "--mode", "grep", "--top-k", "2", "--project", str(project),
                     "Progress"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "13 matching lines in 3 files; the best 2 places:",
        "1. progress.py:14  (1.7548)",
        "   14: class Progress(JupyterMixin):",
        "2. bar.py:1  (1.0558)",
        "   1: from .progress import Progress",
    ]


CHINESE = '''def 计算(x):
    """计算剩余时间"""
    return x * 2


class 进度条:
    pass
'''


@pytest.mark.parametrize("query,first_line", [
    ("计算", "def 计算(x):"),         # a two-character word, the commonest length in Chinese
    ("剩余", '"""计算剩余时间"""'),
    ("进度条", "class 进度条:"),
    ("ab cd", None),                  # two ASCII letters in a question stay below the bar
])
def test_a_two_character_chinese_word_is_grepped(query, first_line, settings,
                                                 project_dir: Path) -> None:
    """`paicli-tui search 计算 --mode grep` in a project whose code says `def 计算` answered
    'No results': grep dropped every word under three characters, and most Chinese words
    have two. A word of two CJK characters is grepped; two ASCII letters still are not."""
    (project_dir / "工具.py").write_text(CHINESE + "ab = 1\n")
    response = search_project(settings, project_dir, query, mode="grep", top_k=5)
    texts = [hit.match_text for hit in response.hits]
    assert (texts[0] if texts else None) == first_line
