#!/usr/bin/env python3
"""The light-model rerank's plumbing, measured with scripted models (no model is asked).

usage: python benchmarks/bench_search_rerank.py PROJECT QUESTIONS [--eval-dir DIR]
           [--draws N] [--seed S] [--json-out FILE]

PROJECT must be indexed (``paicli-tui index``); QUESTIONS is a question file in the dev set's
format. Every question is searched once in hybrid mode for its fused top 30 (the app's own
``search_project``, offline plan, no rewrite), then that response goes through the app's
rerank stage (core.code.rerank: the cards, the request, the strict parser, the reorder, the cut
to 5) with a scripted model in place of the light model:

- ``fused``: no rerank (the app without a light model);
- ``oracle``: answers the numbers of the cards that hold a target (read from the request's
  card headers; judged by score.py's hit rule), and an unusable answer when none does: what
  the stage can lift when the model is right;
- ``half right``: the oracle on a seeded half of the questions, ``random`` on the others;
- ``random``: 10 distinct card numbers drawn at random (mean over ``--draws`` draws);
- ``adversarial``: the 10 last fused cards that hold no target, worst first: the most the
  stage can lose.

Printed per variant: recall@5 (all, EN, ZH), MRR@5 and recall@30 (the stage only reorders
the top 30, so recall@30 must equal the fused one; the script checks it), and the size of the
requests. These are plumbing figures, never a real model's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_search_heldout import DEFAULT_EVAL, load_score  # noqa: E402

_HEADER = re.compile(r"^\[(\d+)\] ", re.MULTILINE)


def card_numbers(request: str) -> list[int]:
    """The card numbers listed in a rerank request, in order."""
    return [int(n) for n in _HEADER.findall(request)]


def fused_responses(project: Path, questions: list[dict[str, Any]]) -> list[Any]:
    from paicli_tui.config import load_settings
    from paicli_tui.core.code.rerank import RERANK_DEPTH
    from paicli_tui.core.code.search import search_project

    settings = load_settings({}, dict(os.environ))
    return [search_project(settings, project, q["question"], mode="hybrid",
                           top_k=RERANK_DEPTH) for q in questions]


def _copy(response: Any) -> Any:
    from copy import deepcopy

    return deepcopy(response)


def score_hits(score: Any, hits: list[Any], targets: list[dict[str, Any]], k: int
               ) -> int | None:
    records = [score._record_from_dict(hit.to_json()) for hit in hits]
    return score.first_hit_rank([r for r in records if r], targets, k)


def run_variant(score: Any, settings: Any, responses: list[Any],
                questions: list[dict[str, Any]], answer_for: Callable[[int, str, Any], str]
                ) -> list[tuple[int | None, int | None]]:
    """(rank@5, rank@30) per question after the rerank stage with a scripted model that
    answers ``answer_for(question index, request, fused response)``."""
    from paicli_tui.core.code.rerank import rerank_response
    from paicli_tui.core.code.rerank import skipped as not_reranked

    out = []
    for i, (response, q) in enumerate(zip(responses, questions, strict=True)):
        fused = _copy(response)

        async def model(system: str, user: str, i: int = i, fused: Any = fused) -> str:
            return answer_for(i, user, fused)

        if answer_for is NO_MODEL:
            ranked = not_reranked(_copy(response), "no model", 30)
        else:
            ranked = asyncio.run(rerank_response(settings, _copy(response), model, 30))
        out.append((score_hits(score, ranked.hits, q["targets"], 5),
                    score_hits(score, ranked.hits, q["targets"], 30)))
    return out


def NO_MODEL(i: int, request: str, fused: Any) -> str:  # noqa: N802 - a marker
    return ""


def summary(name: str, ranks: list[tuple[int | None, int | None]],
            questions: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(questions)
    at5 = [r5 is not None for r5, _ in ranks]
    by_lang = {lang: [hit for hit, q in zip(at5, questions, strict=True) if q["lang"] == lang]
               for lang in ("en", "zh")}
    return {"variant": name, "recall@5": sum(at5) / n,
            "EN": sum(by_lang["en"]) / max(1, len(by_lang["en"])),
            "ZH": sum(by_lang["zh"]) / max(1, len(by_lang["zh"])),
            "MRR@5": sum(1 / r5 for r5, _ in ranks if r5) / n,
            "recall@30": sum(r30 is not None for _, r30 in ranks) / n}


def mean(rows: list[dict[str, Any]], name: str) -> dict[str, Any]:
    keys = ("recall@5", "EN", "ZH", "MRR@5", "recall@30")
    return {"variant": name, **{k: sum(r[k] for r in rows) / len(rows) for k in keys}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--eval-dir", type=Path, default=DEFAULT_EVAL)
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)

    from paicli_tui.config import load_settings
    from paicli_tui.core.code import rerank

    # every variant asks its own scripted model: nothing is read from or written to the cache
    rerank.cached_order = lambda settings, response: None
    rerank._remember = lambda settings, response, ids: None
    os.environ.setdefault("PAICLI_LOG_LEVEL", "warning")
    settings = load_settings({}, dict(os.environ))
    score = load_score(args.eval_dir)
    questions = json.loads(args.questions.read_text(encoding="utf-8"))["questions"]
    responses = fused_responses(args.project, questions)

    def holds_target(i: int, number: int, fused: Any) -> bool:
        hit = fused.hits[number - 1]
        return score_hits(score, [hit], questions[i]["targets"], 1) is not None

    def oracle(i: int, request: str, fused: Any) -> str:
        right = [n for n in card_numbers(request) if holds_target(i, n, fused)]
        return " ".join(map(str, right)) or "none of them"

    def adversarial(i: int, request: str, fused: Any) -> str:
        wrong = [n for n in reversed(card_numbers(request)) if not holds_target(i, n, fused)]
        return " ".join(map(str, wrong[:10]))

    def random_model(draw: int) -> Callable[[int, str, Any], str]:
        def answer(i: int, request: str, fused: Any) -> str:
            numbers = card_numbers(request)
            pick = random.Random(f"{args.seed}/{draw}/{i}").sample(numbers, min(10, len(numbers)))
            return " ".join(map(str, pick))
        return answer

    def half_right(draw: int) -> Callable[[int, str, Any], str]:
        rand = random_model(draw)

        def answer(i: int, request: str, fused: Any) -> str:
            right = random.Random(f"{args.seed}/half/{draw}/{i}").random() < 0.5
            return oracle(i, request, fused) if right else rand(i, request, fused)
        return answer

    rows = [summary("fused (no rerank)", run_variant(score, settings, responses, questions,
                                                     NO_MODEL), questions),
            summary("oracle", run_variant(score, settings, responses, questions, oracle),
                    questions)]
    rows.append(mean([summary("half", run_variant(score, settings, responses, questions,
                                                  half_right(d)), questions)
                      for d in range(args.draws)], f"half right ({args.draws} draws)"))
    rows.append(mean([summary("random", run_variant(score, settings, responses, questions,
                                                    random_model(d)), questions)
                      for d in range(args.draws)], f"random ({args.draws} draws)"))
    rows.append(summary("adversarial", run_variant(score, settings, responses, questions,
                                                   adversarial), questions))
    fused30 = rows[0]["recall@30"]
    assert all(abs(r["recall@30"] - fused30) < 1e-9 for r in rows), "recall@30 changed"
    print(f"{'scripted model':<26} {'recall@5':>8} {'EN':>5} {'ZH':>5} {'MRR@5':>6} "
          f"{'recall@30':>9}")
    for r in rows:
        print(f"{r['variant']:<26} {r['recall@5']:>8.3f} {r['EN']:>5.2f} {r['ZH']:>5.2f} "
              f"{r['MRR@5']:>6.3f} {r['recall@30']:>9.3f}")
    from paicli_tui.core.code.rerank import rerank_request

    sizes = sorted(len(rerank_request(r.query, r.hits)) for r in responses)
    print(f"request: {len(sizes)} questions, median {sizes[len(sizes) // 2]:,} characters, "
          f"largest {sizes[-1]:,}")
    if args.json_out:
        args.json_out.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
