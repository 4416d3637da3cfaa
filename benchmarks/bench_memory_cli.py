"""`paicli-tui memory search` (keyword and vector, English and Chinese) and `memory save` from
a shell, each beside `paicli-tui --version` in the same run, at 1k / 10k / 50k memories.

    python benchmarks/bench_memory_cli.py [--sizes 1000,10000,50000] [--runs 3]

Each size gets a temporary PAICLI_HOME with a store of generated bilingual memories and
their vectors (USE and the MiniLM English reading) already cached (a store that has been
used: see bench_memory_scale.py). One
warm-up run of every command fills the per-home caches (keywords, jieba's table, the USE
copies) first, as any earlier use would. Commands are interleaved run by run, so a change of
load hits every row alike; each save stores a new fact. Prints medians of wall and CPU
seconds (user + system, of the command's process: less disturbed by other load on a shared
machine) and their ratios to `--version`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_cli_cold import print_table, timed  # noqa: E402
from bench_memory_scale import _env, _seed  # noqa: E402

from paicli_tui.core.memory.service import english_variant  # noqa: E402
from paicli_tui.core.memory.vectors import content_key  # noqa: E402

ENGLISH_ROWS = f"minilm-l6-int8-{english_variant()}.npz"
"""The English reading's vector cache (MiniLM, 384-d) of the memory service."""


def _seed_english(home: Path, texts: list[str]) -> None:
    """Stand-in rows for the English reading too (a used store has them: the CLI embeds at
    most a few hundred missing ones per search, which is not what is measured here)."""
    import numpy as np

    rows = np.random.default_rng(8).standard_normal((len(texts), 384)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    np.savez(home / "memory" / "vectors" / ENGLISH_ROWS,
             keys=np.array([content_key(t) for t in texts], dtype=str), vectors=rows)

COMMANDS = {
    "--version": ["--version"],
    "memory search (keyword, English)": ["memory", "search", "which database do we use",
                                         "--keywords-only"],
    "memory search (keyword, Chinese)": ["memory", "search", "怎么运行测试", "--keywords-only"],
    "memory search (vector, English)": ["memory", "search", "which database do we use"],
    "memory search (vector, Chinese)": ["memory", "search", "怎么运行测试"],
    "memory save": ["memory", "save"],
}


def measure(count: int, runs: int) -> dict[str, list[tuple[float, float]]]:
    """(wall, CPU) samples of every command against a store of ``count`` memories."""
    with tempfile.TemporaryDirectory(prefix="paicli-memcli-") as tmp:
        home, project = Path(tmp, "home"), Path(tmp, "project")
        project.mkdir()
        _seed_english(home, _seed(home, project, count))
        env = _env(home)
        saves = 0

        def run(argv: list[str]) -> tuple[float, float]:
            nonlocal saves
            if argv == ["memory", "save"]:
                saves += 1
                argv = [*argv, f"release train {saves} ships on Thursday {count}"]
            return timed([sys.executable, "-m", "paicli_tui", *argv], env, project)

        for argv in COMMANDS.values():  # warm-up: the per-home caches
            run(argv)
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in COMMANDS}
        for _ in range(runs):
            for name, argv in COMMANDS.items():
                samples[name].append(run(argv))
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for count in (int(s) for s in args.sizes.split(",")):
        samples = measure(count, args.runs)
        print(f"\n{count:,} memories")
        print_table(samples)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
