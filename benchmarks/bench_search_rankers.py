#!/usr/bin/env python3
"""Each ranker alone and fused, in one process, on an index that already exists.

usage: python benchmarks/bench_search_rankers.py PROJECT QUESTIONS [--eval-dir DIR]
           [--weights 0.5,1.0] [--json-out FILE] [--embedders-fail SHARE [--draws N]]

PROJECT must be indexed (``paicli-tui index``) with the embedder named by the settings
(the default offline pair ``use+minilm``, or ``PAICLI_EMBEDDER``); QUESTIONS is a question file in the dev set's
format (the dev set, ``heldout_jdk/questions.json``, ``blind_sets/*/questions.json``). Every
question is planned and ranked once by each ranker (full-text, the multilingual embedder on the
question and its English reading, the English/code embedder), then scored with the shared
score.py hit rule at k=5 for:

- each ranker alone (``text``, ``use`` = the multilingual rankings fused, ``minilm``),
- the vector rankings fused (``semantic`` mode), and
- hybrid without the second embedder and with it at each ``--weights`` value
  (ENGLISH_EMBEDDER_WEIGHT; the app's own value is marked).

Beside recall@5 each variant shows recall@20 (a ranker that has the answer in its top 20
can still help a fusion, one that does not cannot), and a last block says, in counts only,
what the app's fusion does with full-text's answers: how many of full-text's top-5 hits it
keeps, how many it finds that full-text alone does not, and how many questions any single
ranker answers in its top 5. Counts, no question ids: the block may be printed for a set
nobody may look into.

``--embedders-fail SHARE`` then scores every variant again with the embedders made wrong
for that share of the questions (each question's embedder rankings swapped for another
question's of the set, seeded, ``--draws`` draws; full-text keeps its own): how a fusion holds
up on a codebase where the embedders fail, as they do on the blind Java sets, measured on a
seen set. Mean recall@5 per variant, no question ids.

Searching in-process skips the per-query start of a CLI run, so a sweep costs seconds; the
figures equal a ``paicli-tui search`` run's (same functions, same index). Use it to tune on
the dev set and to report the other sets, never to tune on them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_search_heldout import DEFAULT_EVAL, load_score  # noqa: E402

SUPERTYPES: list[Any] = [lambda name: []]
"""The index's extends/implements lookup, set when the index is opened."""


def rank_all(project: Path, questions: list[dict[str, Any]]) -> list[tuple[dict, dict, dict]]:
    """(question, rankings, rows) for every question."""
    from paicli_tui.config import load_settings
    from paicli_tui.core.code import search as s
    from paicli_tui.core.code.lance_store import index_location, open_index
    from paicli_tui.core.code.query import plan_query
    from paicli_tui.core.embedders import get_code_embedder

    settings = load_settings({}, dict(os.environ))
    tables = open_index(index_location(settings, project))
    if tables is None or tables.chunks is None:
        raise SystemExit(f"no index in {project}: run paicli-tui index there first")
    SUPERTYPES[:] = [s.supertype_lookup(tables)]  # as search_project answers declarations
    embedder = get_code_embedder(settings)
    s._check_embedder(tables.meta, embedder)
    out = []
    for q in questions:
        plan = plan_query(q["question"], home=settings.home)
        rows: dict[str, dict[str, Any]] = {}
        related = s.project_words(tables, index_location(settings, project), settings,
                                  embedder, plan)  # as hybrid search adds them
        rankings = s._fulltext_rankings(tables.chunks, plan, rows, related.clauses())
        docs = s.doc_sentences(tables, index_location(settings, project), settings, embedder)
        rankings.update(s._vector_rankings(tables.chunks, plan, embedder, rows, docs))
        out.append((q, rankings, rows))
    return out


DEPTH = 20
"""Results scored per question: recall@5 and MRR@5 read the first 5 of them, recall@20 all."""


def first_rank(score: Any, fused: list[Any], rows: dict, q: dict, k: int = 5) -> int | None:
    from paicli_tui.core.code.search import answers_for

    records = []
    for item, _via, _declaration in answers_for(fused, rows, SUPERTYPES[0])[:k]:
        row = rows[item.id]
        records.append({"path": row["path"], "names": [row["name"]],
                        "ranges": [(int(row["start_line"]), int(row["end_line"]))]})
    return score.first_hit_rank(records, q["targets"], k)


def variants(weights: list[float]) -> dict[str, Any]:
    """Variant name -> (rankings -> fused list)."""
    from paicli_tui.core.code import search as s
    from paicli_tui.core.code.fusion import rrf

    def only(prefixes: tuple[str, ...]):
        def fuse(r: dict) -> list:
            picked = {n: ids for n, ids in r.items() if n.startswith(prefixes)}
            return rrf(picked, weights=s.modality_weights(picked)) if picked else []
        return fuse

    def hybrid(weight: float | None):
        def fuse(r: dict) -> list:
            picked = {n: ids for n, ids in r.items() if weight is not None or n != "minilm"}
            saved = s.ENGLISH_EMBEDDER_WEIGHT
            s.ENGLISH_EMBEDDER_WEIGHT = weight if weight is not None else saved
            try:
                return s.fuse_rankings(picked)
            finally:
                s.ENGLISH_EMBEDDER_WEIGHT = saved
        return fuse

    from paicli_tui.core.code.search import ENGLISH_EMBEDDER_WEIGHT

    out: dict[str, Any] = {"text alone": only(("text",)), "use alone": only(("semantic",)),
                           "minilm alone": only(("minilm",)),
                           "semantic (use+minilm)": only(("semantic", "minilm")),
                           "hybrid text+use": hybrid(None)}
    for w in weights:
        mark = " (app)" if w == ENGLISH_EMBEDDER_WEIGHT else ""
        out[f"hybrid text+use+minilm w={w}{mark}"] = hybrid(w)
    return out


def summary(deep: dict[str, int | None], ranked: list[tuple[dict, dict, dict]]
            ) -> tuple[float, float, float, float, float]:
    """(recall@5 EN, ZH, all, MRR@5, recall@20) of one variant's first-hit ranks at DEPTH."""
    def recall(lang: str | None, at: int = 5) -> float:
        ids = [q["id"] for q, _, _ in ranked if lang is None or q["lang"] == lang]
        return sum(deep[i] is not None and deep[i] <= at for i in ids) / max(1, len(ids))

    mrr = sum(1 / r for r in deep.values() if r and r <= 5) / max(1, len(deep))
    return recall("en"), recall("zh"), recall(None), mrr, recall(None, DEPTH)


def fusion_summary(table: dict[str, dict[str, int | None]]) -> str:
    """Counts only: full-text's top-5 hits the app's hybrid keeps, the hits it adds, and the
    questions some ranker alone answers in its top 5."""
    app = next((v for name, v in table.items() if name.endswith("(app)")), None)
    if app is None:
        return "(the app's weight is not among --weights: no fusion summary)"
    text = table["text alone"]
    alone = [table[n] for n in ("text alone", "use alone", "minilm alone")]
    found = [i for i, rank in text.items() if rank]
    kept = sum(1 for i in found if app[i])
    added = sum(1 for i, rank in app.items() if rank and not text[i])
    any_alone = sum(1 for i in app if any(ranks[i] for ranks in alone))
    return (f"hybrid (app) keeps {kept} of full-text's {len(found)} top-5 hits, adds {added}; "
            f"some ranker alone has {any_alone} of {len(app)} in its top 5")


def embedders_fail(ranked: list[tuple[dict, dict, dict]], share: float, seed: int
                   ) -> list[tuple[dict, dict, dict]]:
    """``ranked`` with the embedders wrong for about ``share`` of the questions: a chosen
    question's embedder rankings (every ranking but full-text's) are another question's of
    the same set, coherent but about something else, as an embedder that misreads a
    codebase answers. Seeded by ``seed``; full-text's ranking stays the question's own."""
    draw = random.Random(seed)
    out = []
    for n, (q, rankings, rows) in enumerate(ranked):
        if len(ranked) > 1 and draw.random() < share:
            other = draw.choice([m for m in range(len(ranked)) if m != n])
            _, wrong, wrong_rows = ranked[other]
            rankings = {"text": rankings.get("text", []),
                        **{name: ids for name, ids in wrong.items() if name != "text"}}
            rows = {**wrong_rows, **rows}
        out.append((q, rankings, rows))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("project")
    ap.add_argument("questions")
    ap.add_argument("--eval-dir", default=str(DEFAULT_EVAL))
    ap.add_argument("--weights", default="0.5,0.75,1.0")
    ap.add_argument("--json-out")
    ap.add_argument("--embedders-fail", type=float, metavar="SHARE",
                    help="also score with the embedders wrong for this share of questions")
    ap.add_argument("--draws", type=int, default=4)
    a = ap.parse_args()
    doc = json.loads(Path(a.questions).read_text(encoding="utf-8"))
    exts = tuple(sorted({Path(t["path"]).suffix.lstrip(".") for q in doc["questions"]
                         for t in q["targets"]} | {"py"}))
    score = load_score(Path(a.eval_dir), exts)
    ranked = rank_all(Path(a.project), doc["questions"])
    table: dict[str, dict[str, int | None]] = {}
    print(f"# {a.questions}: {len(ranked)} questions, recall@5 / MRR@5")
    print(f"{'variant':40} {'EN':>6} {'ZH':>6} {'all':>6} {'MRR':>6} {'@20':>6}")
    fusions = variants([float(w) for w in a.weights.split(",") if w])
    for name, fuse in fusions.items():
        deep = {q["id"]: first_rank(score, fuse(r), rows, q, DEPTH) for q, r, rows in ranked}
        table[name] = {i: rank if rank is not None and rank <= 5 else None
                       for i, rank in deep.items()}
        print(f"{name:40} " + " ".join(f"{x:6.3f}" for x in summary(deep, ranked)))
    print(fusion_summary(table))
    if a.embedders_fail:
        print(f"# embedders wrong for {a.embedders_fail:.0%} of the questions, "
              f"mean recall@5 over {a.draws} draws")
        for name, fuse in fusions.items():
            found = [sum(first_rank(score, fuse(r), rows, q) is not None
                         for q, r, rows in embedders_fail(ranked, a.embedders_fail, seed))
                     for seed in range(a.draws)]
            print(f"{name:40} {sum(found) / len(found) / max(1, len(ranked)):6.3f}")
    if a.json_out:
        Path(a.json_out).write_text(json.dumps(table, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
