"""The memory retrieval sets (benchmarks/memret): every set file keeps the shape its README
promises, and the benchmark's scoring counts what it says it counts.

The checks read only the shape (scopes, counts, languages, keys, ages, shared words), never
print a set's memories or messages: the blind sets stay unread by whoever tunes retrieval.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[2]
SETS_DIR = CHECKOUT / "benchmarks" / "memret"
sys.path.insert(0, str(CHECKOUT / "benchmarks"))  # the scoring code is benchmark-only
from bench_memory_retrieval import (  # noqa: E402
    DEFAULT_SETS,
    UNSEEN_SETS,
    check_shared_words,
    language,
    score,
    score_everyday,
)

SETS = ["blind", "blind2", "blind3", "dev", "dev2"]
FUNCTION_WORDS = {"the", "in", "to", "a", "an", "of", "on", "for", "and", "is", "it"}
"""Words a message may share with a target: they carry no topic (the README says so)."""


def _load(name: str) -> dict:
    return json.loads((SETS_DIR / f"{name}.json").read_text(encoding="utf-8"))


def test_every_set_file_is_checked_here_and_listed_in_the_readme() -> None:
    assert sorted(p.stem for p in SETS_DIR.glob("*.json")) == sorted([*SETS, "everyday"])
    readme = (SETS_DIR / "README.md").read_text(encoding="utf-8")
    for name in SETS:
        assert f"`{name}.json`" in readme


def test_unseen_sets_exist_and_a_run_without_sets_never_includes_them() -> None:
    """blind2 and blind3 are run by name only, once a session: a tuning run left at its
    default must not measure them by accident."""
    assert UNSEEN_SETS == {"blind2", "blind3"} and UNSEEN_SETS <= set(SETS)
    assert DEFAULT_SETS.split(",") == ["dev", "blind"]


@pytest.mark.parametrize("name", SETS)
def test_set_has_the_promised_shape(name: str) -> None:
    data = _load(name)
    assert data["name"] == name
    memories, messages = data["memories"], data["messages"]
    keys = [m["key"] for m in memories]
    assert len(keys) == len(set(keys)) == 81
    scopes = [m["scope"] for m in memories]
    assert (scopes.count("project"), scopes.count("global"), scopes.count("other")) == (61, 10, 10)
    assert all(isinstance(m["age_days"], int) and 0 <= m["age_days"] <= 400 for m in memories)
    assert len({m["content"] for m in memories}) == 81
    scope_of = dict(zip(keys, scopes, strict=True))

    assert len({m["key"] for m in messages}) == len({m["text"] for m in messages}) == 35
    with_targets = [m for m in messages if m["targets"]]
    langs = [language(m["text"]) for m in with_targets]
    assert (len(with_targets), langs.count("en"), langs.count("zh")) == (30, 15, 15)
    for message in with_targets:
        targets = message["targets"]
        assert 1 <= len(targets) <= 3 and len(set(targets)) == len(targets), message["key"]
        assert all(scope_of[t] in ("project", "global") for t in targets), message["key"]


@pytest.mark.parametrize("name", SETS)
def test_targets_share_only_function_words_with_their_message(name: str) -> None:
    """Each target is cross-language or a paraphrase: `--check` lists shared words, and the
    only ones allowed are words that carry no topic."""
    problems = check_shared_words(_load(name))
    content = [p for p in problems
               if not set(ast.literal_eval(p.split(": ", 1)[1])) <= FUNCTION_WORDS]
    assert content == []


@pytest.mark.parametrize("name", SETS)
def test_set_has_both_kinds_of_target(name: str) -> None:
    data = _load(name)
    text_of = {m["key"]: m["content"] for m in data["memories"]}
    kinds = [language(text_of[t]) != language(m["text"])
             for m in data["messages"] for t in m["targets"]]
    cross, para = sum(kinds), len(kinds) - sum(kinds)
    assert cross >= 10 and para >= 10, (cross, para)


TINY = {
    "memories": [
        {"key": "p1", "scope": "project", "age_days": 1, "content": "测试库在本机"},
        {"key": "p2", "scope": "project", "age_days": 1, "content": "Deploys need a tag"},
        {"key": "p3", "scope": "project", "age_days": 1, "content": "前端用 pnpm"},
        {"key": "o1", "scope": "other", "age_days": 1, "content": "别的项目"},
    ],
    "messages": [
        {"key": "e1", "text": "Point the tests at a local database", "targets": ["p1"]},
        {"key": "z1", "text": "发布上线", "targets": ["p2", "p3"]},
        {"key": "n1", "text": "What is a monad?", "targets": []},
    ],
}


@pytest.mark.parametrize(("shown", "expected"), [
    # e1 finds its cross-language target; z1 finds one of two (cross), shows a wrong one and a
    # leak; the message with nothing relevant gets two
    ({"e1": ["p1"], "z1": ["p2", "p1", "o1"], "n1": ["p3", "p2"]},
     {"recall": 0.667, "recall_en": 1.0, "recall_zh": 0.5, "recall_cross": 1.0,
      "recall_para": 0.0, "precision": 0.5, "shown_relevant": 4, "irrelevant_avg": 2.0,
      "leaks": 1, "found": 2, "targets": 3, "misses": ["z1→p3"]}),
    ({"e1": [], "z1": [], "n1": []},
     {"recall": 0.0, "recall_en": 0.0, "recall_zh": 0.0, "recall_cross": 0.0,
      "recall_para": 0.0, "precision": None, "shown_relevant": 0, "irrelevant_avg": 0.0,
      "leaks": 0, "found": 0, "targets": 3, "misses": ["e1→p1", "z1→p2", "z1→p3"]}),
])
def test_score_counts_exactly(shown: dict, expected: dict) -> None:
    result = score(TINY, shown)
    assert {k: result[k] for k in expected} == expected


@pytest.mark.parametrize(("choice", "text", "concepts"), [
    # the shipped table: "query the live database" names sql, production and database
    ("shipped", "query the live database", ["sql", "production", "database"]),
    ("shipped", "生产库超时", ["production", "timeout"]),
    # no table: the proxy for a domain the table does not cover
    ("none", "query the live database", []),
    ("none", "生产库超时", []),
    # another table, in concepts.tsv's format
    ("file", "query the live database", ["telemetry"]),
    ("file", "遥测数据", ["telemetry"]),
])
def test_benchmark_reads_with_the_chosen_concept_table(
        choice: str, text: str, concepts: list[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from bench_memory_retrieval import use_concept_table

    from paicli_tui.core.memory import terms

    monkeypatch.setattr(terms, "concepts", terms.concepts)  # restored after the test
    table = tmp_path / "table.tsv"
    table.write_text("# a comment\ntelemetry\tdatabase\t遥测\n", encoding="utf-8")
    use_concept_table(str(table) if choice == "file" else choice)
    assert terms.concept_names(terms.text_terms(text, gloss=False)) == concepts


def test_the_everyday_probe_has_its_shape() -> None:
    """Everyday messages in both languages; the memories welcome for each are named for the
    seen stores only, by keys those stores hold."""
    probe = _load("everyday")
    messages = probe["messages"]
    assert len(messages) == 50 and len({m["key"] for m in messages}) == 50
    assert [language(m["text"]) for m in messages].count("zh") == 26  # 24 English
    stores = {name: {m["key"] for m in _load(name)["memories"] if m["scope"] != "other"}
              for name in ("dev", "blind")}
    for message in messages:
        assert set(message["welcome"]) == {"dev", "blind"}
        for name, keys in message["welcome"].items():
            assert set(keys) <= stores[name]


EVERYDAY = {"messages": [{"key": "q1", "text": "fix the typo", "welcome": {"dev": ["g6"]}},
                         {"key": "q2", "text": "rename this", "welcome": {"dev": []}},
                         {"key": "q3", "text": "删除这个文件", "welcome": {"blind": ["g4"]}}]}


@pytest.mark.parametrize(("store", "shown", "expected"), [
    # q1's welcome memory and a wrong one; q2 two wrong; q3 (welcome only on blind) one wrong
    ("dev", {"q1": ["g6", "d3"], "q2": ["d1", "d2"], "q3": ["g4"]},
     {"messages": 3, "wrong": 4, "welcome": 1, "with_wrong": 3,
      "wrong_by_message": {"q1": ["d3"], "q2": ["d1", "d2"], "q3": ["g4"]}}),
    ("blind", {"q1": [], "q2": [], "q3": ["g4"]},
     {"messages": 3, "wrong": 0, "welcome": 1, "with_wrong": 0, "wrong_by_message": {}}),
])
def test_the_everyday_probe_counts_exactly(store: str, shown: dict, expected: dict) -> None:
    assert score_everyday(EVERYDAY, store, shown) == expected
