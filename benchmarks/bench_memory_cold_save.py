"""One explicit save in a fresh process, with and without the canonical forms kept beside the
store, side by side in one run.

    python benchmarks/bench_memory_cold_save.py [--sizes 1000,10000] [--rounds 5]

"cold" is the first save of a new MemoryStore with the in-process caches cleared: the file is
parsed, every stored memory's forms are needed for the duplicate and conflict scan, the file
is written (tmp, fsync, replace). Three variants, interleaved round by round so a busy machine
disturbs them alike (the best round of each is reported):

- ``no cache``: the forms sidecar is not used at all (every form computed and every entry
  encoded again: the path before the sidecar existed);
- ``first save``: no sidecar yet (the first save after an upgrade): forms computed, then the
  sidecar written;
- ``cached``: the sidecar of the previous save is read; only the new fact's forms computed,
  and the new line is appended to the file's bytes (the sidecar proves they are ours).

Then ``warm``: the same process saving again, with and without the sidecar (the cost of
keeping it up to date, against encoding every entry again).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_memory import FakeEmbedder, _clear_caches, seeded_home  # noqa: E402

from paicli_tui.core.memory import forms_cache  # noqa: E402
from paicli_tui.core.memory.service import LocalMemoryService  # noqa: E402
from paicli_tui.core.memory.store import MemoryStore  # noqa: E402

VARIANTS = ("no cache", "first save", "cached")
WARM = ("warm no cache", "warm cached")


def _without_sidecar(store: MemoryStore) -> MemoryStore:
    store._forms.attach = lambda entries: 0  # type: ignore[method-assign]
    store._forms.record = lambda entries, written=None: None  # type: ignore[method-assign]
    store._forms.proves = lambda data: False  # type: ignore[method-assign]
    return store


def _service(settings, project: Path, path: Path, variant: str) -> LocalMemoryService:
    store = MemoryStore(path)
    if variant == "no cache":
        _without_sidecar(store)
    return LocalMemoryService(settings, project, store=store, embedder=FakeEmbedder())


def _save_once(settings, project: Path, path: Path, variant: str, index: int,
               service: LocalMemoryService | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one save."""
    if service is None:
        if variant != "cached":
            path.with_name(path.name + ".forms.jsonl").unlink(missing_ok=True)
        _clear_caches()
        service = _service(settings, project, path, variant)
    started, cpu = time.perf_counter(), time.process_time()
    fact = f"probe {os.urandom(10).hex()} 仅用于测试 {os.urandom(10).hex()} ({variant} {index})"
    result = service.save(fact)
    elapsed = (time.perf_counter() - started, time.process_time() - cpu)
    assert result.status == "saved", result
    return elapsed


def bench(count: int, rounds: int) -> dict[str, tuple[float, float]]:
    with seeded_home(count) as (settings, project, path):
        times: dict[str, list[tuple[float, float]]] = {v: [] for v in (*VARIANTS, *WARM)}
        for index in range(rounds):
            for variant in VARIANTS:
                times[variant].append(_save_once(settings, project, path, variant, index))
        # warm: the same process saving again (forms already on the entries)
        services = {}
        for variant in ("no cache", "cached"):  # each on its own copy of the store
            copy = path.with_name(f"warm-{variant.replace(' ', '-')}.json")
            shutil.copyfile(path, copy)
            shutil.copyfile(path.with_name(path.name + ".forms.jsonl"),
                            copy.with_name(copy.name + ".forms.jsonl"))
            services[f"warm {variant}"] = _service(settings, project, copy, variant)
        for service in services.values():
            service.list_visible()
        for index in range(rounds):
            for name, service in services.items():
                times[name].append(_save_once(settings, project, path, name, index, service))
        return {v: (min(w for w, _ in t), min(c for _, c in t)) for v, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"forms rule {forms_cache.RULE}")
    columns = (*VARIANTS, *WARM)
    print("best of each: wall ms / CPU ms (CPU is what a busy machine disturbs least)")
    print(f"{'memories':>9} " + " ".join(f"{v:>17}" for v in columns)
          + "   CPU ratio cold cached/no cache, warm cached/no cache")
    for count in (int(s) for s in args.sizes.split(",")):
        best = bench(count, args.rounds)
        print(f"{count:>9} " + " ".join(f"{best[v][0] * 1000:8.0f}/{best[v][1] * 1000:<8.0f}"
                                          for v in columns)
              + f"   ×{best['cached'][1] / best['no cache'][1]:.2f}, "
              + f"×{best['warm cached'][1] / best['warm no cache'][1]:.2f}")


if __name__ == "__main__":
    main()
