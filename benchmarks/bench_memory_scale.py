"""Memory search at 1k / 10k / 50k memories: `paicli-tui memory search` from a shell (keyword
and vector) and one turn's retrieval in a running session, side by side with
`paicli-tui --version` in the same run.

    python benchmarks/bench_memory_scale.py [--sizes 1000,10000,50000] [--repeat 3]

For each size a temporary PAICLI_HOME gets a store of generated bilingual memories. The
vector cache is filled with stand-in unit vectors for every memory (a store that has been
used before: embedding 50,000 texts takes hours on two cores and is a one-time cost), so the
vector search embeds only the question and the calibration notes (the English MiniLM's
cache likewise). "first" is the first
keyword search ever (it segments and glosses every memory and keeps the keywords beside the
vectors); "cached" is every later one. Shell figures are the best of ``--repeat`` runs (the
machine is shared). The turn figures are medians over one session: a message never asked
before ("new"; "new best" is the fastest of them, the least held up by other processes) and
the same messages again ("again", the query rows cached), then the parts of a new message's
turn side by side: reading the store, keywords, the English gloss, each embedder's query rows
(USE: the message, a Chinese one's gloss, its concepts; MiniLM: its English text, its
concepts), and the vector arithmetic over the store.

    python benchmarks/bench_memory_scale.py --sizes 10000 --turns-only   # the session part
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_memory import QUERIES, _facts  # noqa: E402

from paicli_tui.config import load_settings  # noqa: E402
from paicli_tui.core.memory.entry import MemoryEntry, format_time, new_entry_id, utc_now  # noqa: E402
from paicli_tui.core.memory.service import english_variant  # noqa: E402
from paicli_tui.core.memory.store import serialise  # noqa: E402
from paicli_tui.core.memory.vectors import content_key  # noqa: E402

TURN_MESSAGES = [f"{q} {suffix}" for suffix in ("", "please", "again", "today") for q in QUERIES]
"""Distinct messages (the query-row cache must not help a "new" turn)."""


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAICLI_", "OLLAMA_"))}
    env["PAICLI_HOME"] = str(home)
    return env


def _wall(args: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "paicli_tui", *args], cwd=cwd, env=env, check=True,
                   capture_output=True, timeout=3600, stdin=subprocess.DEVNULL)
    return time.perf_counter() - started


def _seed(home: Path, project: Path, count: int) -> list[str]:
    texts = _facts(count)
    now = format_time(utc_now())
    entries = [MemoryEntry(id=new_entry_id(), content=t, created_at=now, last_verified_at=now,
                           project=str(project.resolve()), token_count=10) for t in texts]
    path = home / "memory" / "long_term_memory.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(serialise(entries), encoding="utf-8")
    rng = np.random.default_rng(7)
    vectors = home / "memory" / "vectors"
    vectors.mkdir(parents=True, exist_ok=True)
    keys = np.array([content_key(t) for t in texts], dtype=str)
    for name, dim in (("use-m3", 512), (f"minilm-l6-int8-{english_variant()}", 384)):
        rows = rng.standard_normal((count, dim)).astype(np.float32)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        np.savez(vectors / f"{name}.npz", keys=keys, vectors=rows)
    return texts


def _timed(call: object, *args: object) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) of one call: on a shared machine the wall
    time mostly measures the wait for a core, the CPU time what the turn itself costs."""
    started, cpu = time.perf_counter(), time.process_time()
    call(*args)  # type: ignore[operator]
    return time.perf_counter() - started, time.process_time() - cpu


def _turns(home: Path, project: Path) -> dict[str, float]:
    """Median seconds of one turn's retrieval in a session that has warmed up: new messages,
    the same again, and the parts of a new message's turn."""
    from paicli_tui.core.memory import retrieval
    from paicli_tui.core.memory.selection import MAX_CANDIDATES
    from paicli_tui.core.memory.service import LocalMemoryService
    from paicli_tui.core.memory.terms import english_reading, english_text

    settings = load_settings(env={"PAICLI_HOME": str(home)})
    service = LocalMemoryService(settings, project, background_vectors=True)
    service.warm_up()
    service.wait_for_vectors(600)
    service.injection_block("warm up", 640)
    service.injection_block("预热一下", 640)
    new = [_timed(service.injection_block, q, 640) for q in TURN_MESSAGES]
    again = [_timed(service.injection_block, q, 640) for q in TURN_MESSAGES]
    # what a light model is offered (the candidates widened, then filled by meaning): the
    # same messages again, so the difference is the ranking's, not the query rows'
    pool = [_timed(lambda q: service._turn_ranking(q, MAX_CANDIDATES, fill_by_meaning=True), q)
            for q in TURN_MESSAGES]
    unfilled = [_timed(lambda q: service._turn_ranking(q, MAX_CANDIDATES), q)
                for q in TURN_MESSAGES]
    parts: dict[str, list[float]] = {k: [] for k in ("store", "keywords", "gloss", "use",
                                                     "minilm", "arrays")}
    use, minilm = service._vector_cache(), service._english_cache()
    for i, base in enumerate(TURN_MESSAGES):
        query = f"{base} part {i}"  # never asked before
        started = time.perf_counter()
        contents = [e.content for e in service._visible_now()]
        parts["store"].append(time.perf_counter() - started)
        started = time.perf_counter()
        terms = service._keywords.query_terms(query)
        service._keywords.match(terms, contents)
        parts["keywords"].append(time.perf_counter() - started)
        started = time.perf_counter()
        reading = english_reading(query, settings.home)
        english = english_text(query, settings.home, terms=terms, reading=reading)
        topic = retrieval.concept_reading(terms)
        parts["gloss"].append(time.perf_counter() - started)
        readings = {"use": [query, reading, topic], "minilm": [english, topic]}
        for name, cache in (("use", use), ("minilm", minilm)):
            texts = readings[name]
            started = time.perf_counter()
            for text in texts:
                if text and cache is not None:
                    cache.embed_query(text)
            parts[name].append(time.perf_counter() - started)
        started = time.perf_counter()  # every row cached now: what is left is arithmetic
        for name, cache in (("use", use), ("minilm", minilm)):
            retrieval._vector_part(cache, [(str(i), t) for i, t in enumerate(readings[name])],
                                   contents, False)
        parts["arrays"].append(time.perf_counter() - started)
    medians = {"new": statistics.median(w for w, _ in new),
               "again": statistics.median(w for w, _ in again),
               "new cpu": statistics.median(c for _, c in new),
               "again cpu": statistics.median(c for _, c in again),
               "pool": statistics.median(w for w, _ in pool),
               "unfilled": statistics.median(w for w, _ in unfilled),
               # the least-contended new turn: on a shared machine the median mostly measures
               # the wait for a core
               "new best": min(w for w, _ in new)}
    medians.update({k: statistics.median(v) for k, v in parts.items()})
    return medians


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--turns-only", action="store_true",
                        help="only the turns of a running session (no shell commands)")
    args = parser.parse_args()
    rows = []
    turns: list[tuple[int, dict[str, float]]] = []
    for count in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="paicli-memscale-") as tmp:
            home, project = Path(tmp, "home"), Path(tmp, "project")
            project.mkdir()
            _seed(home, project, count)
            env = _env(home)
            if args.turns_only:
                turns.append((count, _turns(home, project)))
                continue
            version = min(_wall(["--version"], env, project) for _ in range(args.repeat))
            query = ["memory", "search", QUERIES[0]]
            first = _wall([*query, "--keywords-only"], env, project)
            keyword = min(_wall([*query, "--keywords-only"], env, project)
                          for _ in range(args.repeat))
            vector = min(_wall(query, env, project) for _ in range(args.repeat))
            turns.append((count, _turns(home, project)))
            rows.append((count, version, first, keyword, vector))
            print(f"  {count:>6,} done", file=sys.stderr, flush=True)
    if rows:
        print(f"{'memories':>9} {'--version':>10} {'kw first':>9} {'keyword':>8} {'÷ver':>5} "
              f"{'vector':>8} {'÷ver':>5}")
    for count, version, first, keyword, vector in rows:
        print(f"{count:>9,} {version:>9.2f}s {first:>8.2f}s {keyword:>7.2f}s "
              f"{keyword / version:>5.1f} {vector:>7.2f}s {vector / version:>5.1f}")
    names = ["new", "new cpu", "new best", "again", "again cpu", "pool", "unfilled", "store",
             "keywords", "gloss", "use", "minilm", "arrays"]
    print("one turn in a session, median ms: a new message (wall, CPU, the fastest of them), "
          "the same again (wall, CPU), the light model's candidates filled by meaning and "
          "not (wall, same messages), then the parts of a new one (wall; use: its three "
          "readings, minilm: its two)")
    print(f"{'memories':>9}" + "".join(f"{n:>10}" for n in names))
    for count, medians in turns:
        print(f"{count:>9,}" + "".join(f"{medians[n] * 1000:>10.1f}" for n in names))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
