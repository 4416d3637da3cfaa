"""bench_search_rankers' --embedders-fail: the embedders wrong for a share of the questions,
full-text's own ranking kept."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_search_rankers import embedders_fail  # noqa: E402


def _ranked() -> list[tuple[dict, dict, dict]]:
    return [({"id": f"q{n}"},
             {"text": [f"t{n}"], "semantic": [f"s{n}"], "semantic:en": [f"e{n}"],
              "minilm": [f"m{n}"]},
             {f"t{n}": {"n": n}, f"s{n}": {"n": n}, f"e{n}": {"n": n}, f"m{n}": {"n": n}})
            for n in range(3)]


def test_no_share_changes_nothing() -> None:
    assert embedders_fail(_ranked(), 0.0, seed=1) == _ranked()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_question_gets_another_questions_embedders_and_keeps_its_full_text(
        seed: int) -> None:
    for (q, rankings, rows), (_, own, own_rows) in zip(embedders_fail(_ranked(), 1.0, seed),
                                                       _ranked(), strict=True):
        other = rankings["semantic"][0][1:]
        assert other != q["id"][1:]
        assert rankings == {"text": own["text"], "semantic": [f"s{other}"],
                            "semantic:en": [f"e{other}"], "minilm": [f"m{other}"]}
        assert rows.keys() == own_rows.keys() | {f"s{other}", f"e{other}", f"m{other}",
                                                 f"t{other}"}


def test_a_draw_is_repeatable_and_a_lone_question_is_left_alone() -> None:
    assert embedders_fail(_ranked(), 0.5, seed=7) == embedders_fail(_ranked(), 0.5, seed=7)
    lone = _ranked()[:1]
    assert embedders_fail(lone, 1.0, seed=0) == lone
