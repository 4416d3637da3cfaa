"""Shared by the benchmarks that check work grows linearly with hostile input: CPU seconds at
N, 2N and 4N characters for each shape, and the ratio of the last to the first (linear work
gives about 4, quadratic about 16)."""

from __future__ import annotations

import time
from collections.abc import Callable

RATIO_LIMIT = 8.0


def cpu_seconds(run: Callable[[], object], repeat: int = 1) -> float:
    started = time.process_time()
    for _ in range(repeat):
        run()
    return max(time.process_time() - started, 1e-3)  # a too-quick run's ratio is noise


def report_growth(shapes: dict[str, Callable[[int], str]], work: Callable[[str], object],
                  size: int, repeat: int = 1) -> int:
    """Print each shape's times and ratio; 1 when a ratio is over RATIO_LIMIT, else 0."""
    worst = 0.0
    width = max(len(name) for name in shapes) + 1
    for name, shape in shapes.items():
        times = []
        for factor in (1, 2, 4):
            text = shape(size * factor)
            times.append(cpu_seconds(lambda text=text: work(text), repeat))
        ratio = times[2] / times[0]
        worst = max(worst, ratio)
        print(f"{name:{width}} " + "  ".join(f"{t:7.3f}s" for t in times)
              + f"  ratio {ratio:5.1f}")
    return 1 if worst > RATIO_LIMIT else 0
