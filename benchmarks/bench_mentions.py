"""@ completion in the chat input: the time one key takes to list the files an @word may
mean, for growing projects, with the file list prepared once (as the input keeps it) and
unprepared side by side in one run (prints figures; asserts nothing).

Usage: python benchmarks/bench_mentions.py [--sizes 1000,10000,50000] [--repeat 20]
"""

from __future__ import annotations

import argparse
import random
import statistics
import string
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from paicli_tui.core.agent.mentions import FileIndex, file_candidates  # noqa: E402

TYPED = ["", "a", "src/ap", "order", "xyzq"]
"""Nothing yet, one letter, a path start, a common word, letters found only in order."""


def project_files(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    words = ["src", "main", "test", "order", "service", "util", "api", "core", "model"]
    files = []
    for _ in range(count):
        depth = rng.randint(1, 6)
        parts = [rng.choice(words) if rng.random() < 0.5 else
                 "".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 10)))
                 for _ in range(depth)]
        files.append("/".join(parts) + rng.choice([".py", ".java", ".ts", ".md"]))
    return files


def median_ms(call, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    print(f"{'files':>7} {'typed':>8} {'prepared ms':>12} {'unprepared ms':>14} {'ratio':>6}")
    for size in (int(s) for s in args.sizes.split(",")):
        files = project_files(size)
        prepare = median_ms(lambda files=files: FileIndex(files), max(3, args.repeat // 4))
        index = FileIndex(files)
        for typed in TYPED:
            kept = median_ms(lambda t=typed, i=index: file_candidates(i, t), args.repeat)
            fresh = median_ms(lambda t=typed, f=files: file_candidates(f, t),
                              max(3, args.repeat // 4))
            print(f"{size:>7} {typed!r:>8} {kept:>12.2f} {fresh:>14.2f} "
                  f"{fresh / max(kept, 1e-6):>6.1f}")
        print(f"{size:>7} {'(prepare once per read)':>24} {prepare:.1f} ms")


if __name__ == "__main__":
    main()
