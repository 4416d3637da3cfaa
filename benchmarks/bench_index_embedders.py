#!/usr/bin/env python3
"""Full index time with each embedder, side by side, on fresh copies of one project.

usage: python benchmarks/bench_index_embedders.py PROJECT [--embedders use-m3,use]
           [--rounds 3] [--app CMD]

Copies PROJECT's source (not its ``.paicli``) to a fresh temporary folder for every run and
builds its index from scratch with ``APP index --json --embedder E``, the embedders taking
turns round after round so that a change in the machine's load falls on each alike. For
every embedder it prints the median wall time, the median CPU time of the index process
(user + system, all its threads: steadier than wall time on a shared machine, where other
work takes the cores), chunks and the embedding share, then the ratio of each to the first
embedder (the target: the offline pair ``use`` -> ``use+minilm`` within 2x of ``use-m3``,
USE alone).

Offline; writes only under temporary folders and a temporary PAICLI_HOME. Figures, not
assertions.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_search_quality import _default_app, _index_summary  # noqa: E402


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def index_once(app: list[str], project: Path, embedder: str, home: Path) -> dict[str, float]:
    """One full index of a fresh copy of ``project``: wall s, CPU s, chunks, embed s."""
    with tempfile.TemporaryDirectory(prefix="bench-index-") as tmp:
        copy = Path(tmp) / "project"
        shutil.copytree(project, copy, ignore=shutil.ignore_patterns(".paicli"))
        env = dict(os.environ, PAICLI_HOME=str(home))
        cpu, started = _children_cpu(), time.perf_counter()
        done = subprocess.run([*app, "index", "--json", "--quiet", "--embedder", embedder,
                               str(copy)], env=env, capture_output=True, text=True)
        wall, cpu = time.perf_counter() - started, _children_cpu() - cpu
        if done.returncode != 0:
            raise SystemExit(f"index with {embedder} failed: {done.stderr.strip()[-400:]}")
        summary = _index_summary(done.stdout)
    return {"wall": wall, "cpu": cpu, "chunks": float(summary.get("chunks_embedded", 0) or 0),
            "embed": float(summary.get("embed_seconds", 0.0) or 0.0)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("project")
    ap.add_argument("--embedders", default="use-m3,use")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--app", help="command that runs paicli-tui (default: this checkout)")
    a = ap.parse_args()
    app = shlex.split(a.app) if a.app else [_default_app()]
    embedders = [e for e in a.embedders.split(",") if e]
    runs: dict[str, list[dict[str, float]]] = {e: [] for e in embedders}
    with tempfile.TemporaryDirectory(prefix="bench-index-home-") as home:
        for e in embedders:  # warm-up: tokenizer caches, page cache, first imports
            index_once(app, Path(a.project), e, Path(home))
        for r in range(a.rounds):
            for e in embedders:
                run = index_once(app, Path(a.project), e, Path(home))
                runs[e].append(run)
                print(f"round {r + 1} {e:12} wall {run['wall']:6.1f} s  cpu {run['cpu']:6.1f} s"
                      f"  embed {run['embed']:6.1f} s  chunks {run['chunks']:.0f}", flush=True)
    med = {e: {k: statistics.median(x[k] for x in runs[e]) for k in runs[e][0]}
           for e in embedders}
    base = med[embedders[0]]
    print(f"\n{'embedder':12} {'wall s':>8} {'cpu s':>8} {'embed s':>8} {'wall x':>7} {'cpu x':>7}")
    for e in embedders:
        m = med[e]
        print(f"{e:12} {m['wall']:8.1f} {m['cpu']:8.1f} {m['embed']:8.1f} "
              f"{m['wall'] / base['wall']:7.2f} {m['cpu'] / base['cpu']:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
