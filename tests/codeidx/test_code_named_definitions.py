"""A query that only names code is answered by those definitions first.

In rich, ``class Progress`` listed ProgressBar.__repr__, Progress.__rich__, BarColumn.render …
and never ``class Progress``: the full-text reading split the name into words and the
embedders read it as a topic. A question in words is ranked exactly as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from doubles.embedders import HashEmbedder

from paicli_tui.core.code.indexer import CodeIndexer
from paicli_tui.core.code.named_definitions import NAMED_FIRST_MAX, named_query
from paicli_tui.core.code.search import search_project

ALL = frozenset(("class", "function", "method"))


@pytest.mark.parametrize(("query", "names", "kinds"), [
    ("Progress", ("Progress",), ALL),
    ("class Progress", ("Progress",), {"class"}),
    ("Progress 类", ("Progress",), {"class"}),
    ("interface Shape", ("Shape",), {"class"}),
    ("def get_console", ("get_console",), {"function", "method"}),
    ("get_console()", ("get_console",), ALL),
    ("Progress.update", ("Progress.update",), ALL),
    ("函数 parse_args", ("parse_args",), {"function", "method"}),
    ("方法 update", ("update",), {"method"}),
    ("class Foo Bar", ("Foo", "Bar"), {"class"}),
    # a name in any script, as Java, Go, TypeScript and Python allow
    ("class 订单", ("订单",), {"class"}),
    ("订单.结算()", ("订单.结算",), ALL),
    ("方法 计算总价", ("计算总价",), {"method"}),
    ("$Proxy", ("$Proxy",), ALL),
    # questions in words, and phrases: ranked as before
    ("retry policy", None, None),
    ("class Foo Bar Baz", None, None),
    ("how is the progress bar drawn", None, None),
    ("Progress 怎么刷新", None, None),
    ("class", None, None),
    ("foo-bar", None, None),
    ("1st", None, None),
    ("订单 怎么结算", None, None),
    ("a.b'; DROP TABLE chunks", None, None),
])
def test_which_queries_name_code(query, names, kinds) -> None:
    named = named_query(query)
    if names is None:
        assert named is None
    else:
        assert named is not None and named.names == names and named.kinds == kinds


FILES = {
    "app/progress.py": (
        '"""Progress display: bars, spinners and the progress of tasks."""\n\n\n'
        "class ProgressBar:\n    \"\"\"A progress bar.\"\"\"\n\n"
        "    def render(self, width):\n        \"\"\"Render the progress bar.\"\"\"\n"
        "        return '#' * width\n\n\n"
        "class Progress:\n    \"\"\"Renders progress bars for tasks.\"\"\"\n\n"
        "    def update(self, task, advance):\n        \"\"\"Advance the progress of a task.\"\"\"\n"
        "        self.tasks[task] += advance\n\n"
        "    def render(self):\n        \"\"\"Render every progress bar.\"\"\"\n"
        "        return [bar.render(10) for bar in self.bars]\n\n\n"
        "def make_progress_bar(width):\n    \"\"\"Make a progress bar.\"\"\"\n"
        "    return ProgressBar()\n"),
    "app/console.py": (
        "def get_console():\n    \"\"\"The global console.\"\"\"\n    return None\n\n\n"
        "def render(markup):\n    \"\"\"Render console markup, progress included.\"\"\"\n"
        "    return markup\n"),
}


@pytest.fixture()
def project(settings, tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    CodeIndexer(settings, root, HashEmbedder()).update()
    return root


def _first(settings, root: Path, query: str, mode: str = "hybrid", k: int = 5):
    response = search_project(settings, root, query, mode=mode, top_k=k,
                              embedder=HashEmbedder())
    return [(hit.kind, hit.name.split("(")[0], hit.ranks.get("name")) for hit in response.hits]


@pytest.mark.parametrize("mode", ["hybrid", "text"])
@pytest.mark.parametrize(("query", "first"), [
    ("class Progress", [("class", "Progress", 1)]),
    ("Progress", [("class", "Progress", 1)]),
    ("Progress.update", [("method", "Progress.update", 1)]),
    ("get_console()", [("function", "get_console", 1)]),
    # a name several definitions share: each of them, functions before methods, then by
    # file and line
    ("render", [("function", "render", 1), ("method", "ProgressBar.render", 2),
                ("method", "Progress.render", 3)]),
    ("method render", [("method", "ProgressBar.render", 1), ("method", "Progress.render", 2)]),
])
def test_a_named_definition_comes_first(settings, project: Path, mode, query, first) -> None:
    hits = _first(settings, project, query, mode)
    assert hits[:len(first)] == first
    assert all(rank is None for _, _, rank in hits[len(first):])
    assert len({name for _, name, _ in hits}) == len(hits)  # each result once


def test_a_question_in_words_is_ranked_as_before(settings, project: Path) -> None:
    hits = _first(settings, project, "how is the progress of a task advanced")
    assert all(rank is None for _, _, rank in hits)
    response = search_project(settings, project, "class Progress", top_k=3,
                              embedder=HashEmbedder())
    assert response.plan["rankers"][0] == "name"  # --explain's plan says why it is first
    # semantic search is meaning only: a name is not looked up there
    assert all("name" not in hit.ranks for hit in search_project(
        settings, project, "Progress", mode="semantic", embedder=HashEmbedder()).hits)


def test_at_most_ten_definitions_go_first(settings, tmp_path: Path) -> None:
    root = tmp_path / "many"
    root.mkdir()
    for n in range(NAMED_FIRST_MAX + 3):
        (root / f"m{n:02}.py").write_text(f"class C{n}:\n    def run(self):\n        return {n}\n",
                                         encoding="utf-8")
    CodeIndexer(settings, root, HashEmbedder()).update()
    hits = _first(settings, root, "run", k=30)
    assert [rank for _, _, rank in hits[:NAMED_FIRST_MAX]] == list(range(1, NAMED_FIRST_MAX + 1))
    assert all(rank is None for _, _, rank in hits[NAMED_FIRST_MAX:])


def test_a_name_in_chinese_is_looked_up(settings, tmp_path: Path) -> None:
    """``class 订单`` in Java: its definition first, as for a Latin name (it was read as
    words, and the name's own class came nowhere)."""
    root = tmp_path / "shop"
    (root / "src").mkdir(parents=True)
    (root / "src" / "Shop.java").write_text(
        "class 订单 {\n    int 结算() { return 1; }\n}\n\n"
        "class Order {\n    int total() { return 2; }\n}\n", encoding="utf-8")
    CodeIndexer(settings, root, HashEmbedder()).update()
    assert _first(settings, root, "class 订单")[0] == ("class", "订单", 1)
    assert _first(settings, root, "订单.结算")[0] == ("method", "订单.结算", 1)
