"""Memory search at 1k / 10k / 50k memories: `paicli-tui memory search` from a shell (keyword
and vector) and one turn's retrieval in a running session, side by side with
`paicli-tui --version` in the same run.

    python benchmarks/bench_memory_scale.py [--sizes 1000,10000,50000] [--repeat 3]

For each size a temporary PAICLI_HOME gets a store of generated bilingual memories. The
vector cache is filled with stand-in unit vectors for every memory (a store that has been
used before: embedding 50,000 texts takes hours on two cores and is a one-time cost), so the
vector search embeds only the question and the calibration notes. "first" is the first
keyword search ever (it segments and glosses every memory and keeps the keywords beside the
vectors); "cached" is every later one. Shell figures are the best of ``--repeat`` runs (the
machine is shared); the turn figure is the median of ten turns of one session.
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
from paicli_tui.core.memory.store import serialise  # noqa: E402
from paicli_tui.core.memory.vectors import content_key  # noqa: E402


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
    rows = rng.standard_normal((count, 512)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    vectors = home / "memory" / "vectors"
    vectors.mkdir(parents=True, exist_ok=True)
    np.savez(vectors / "use-m3.npz", keys=np.array([content_key(t) for t in texts], dtype=str),
             vectors=rows)
    return texts


def _turns(home: Path, project: Path) -> float:
    """Median seconds of one turn's retrieval in a session that has warmed up."""
    from paicli_tui.core.memory.service import LocalMemoryService

    settings = load_settings(env={"PAICLI_HOME": str(home)})
    service = LocalMemoryService(settings, project, background_vectors=True)
    service.warm_up()
    service.wait_for_vectors(600)
    service.injection_block("warm up", 640)
    times = []
    for query in QUERIES + QUERIES[:4]:
        started = time.perf_counter()
        service.injection_block(query, 640)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for count in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="paicli-memscale-") as tmp:
            home, project = Path(tmp, "home"), Path(tmp, "project")
            project.mkdir()
            _seed(home, project, count)
            env = _env(home)
            version = min(_wall(["--version"], env, project) for _ in range(args.repeat))
            query = ["memory", "search", QUERIES[0]]
            first = _wall([*query, "--keywords-only"], env, project)
            keyword = min(_wall([*query, "--keywords-only"], env, project)
                          for _ in range(args.repeat))
            vector = min(_wall(query, env, project) for _ in range(args.repeat))
            turn = _turns(home, project)
            rows.append((count, version, first, keyword, vector, turn))
            print(f"  {count:>6,} done", file=sys.stderr, flush=True)
    print(f"{'memories':>9} {'--version':>10} {'kw first':>9} {'keyword':>8} {'÷ver':>5} "
          f"{'vector':>8} {'÷ver':>5} {'turn (session)':>15}")
    for count, version, first, keyword, vector, turn in rows:
        print(f"{count:>9,} {version:>9.2f}s {first:>8.2f}s {keyword:>7.2f}s "
              f"{keyword / version:>5.1f} {vector:>7.2f}s {vector / version:>5.1f} "
              f"{turn * 1000:>12.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
