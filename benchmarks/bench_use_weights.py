"""USE weights read into each process (the uncompressed copy) vs mapped read-only (.npy files
opened with mmap_mode="r", handed to the model as plain ndarray views), in one run.

For each variant, two fresh processes are started at the same moment (as two `paicli-tui`
commands of one person would be); each loads the tokenizer and the weights, embeds one query
and then 64 code-sized texts, waits until the other has done the same, and reports: the
weights' load time (wall, CPU), each forward pass (wall, CPU), and its memory with both alive
(RSS, and PSS: shared pages split between the processes that map them). Variants alternate,
--runs times; medians, and mapped ÷ copy. Last, the forward pass alone: both variants in one
process with one BLAS thread, alternating (the least disturbed by other load).

    python benchmarks/bench_use_weights.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = r"""
import json, sys, time
from pathlib import Path
variant, cache, barrier, me = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]

def memory():
    found = {}
    for line in open("/proc/self/smaps_rollup"):
        key, _, rest = line.partition(":")
        if key in ("Rss", "Pss"):
            found[key.lower()] = int(rest.split()[0]) / 1024
    return found

def timed(work):
    wall, cpu = time.perf_counter(), time.process_time()
    value = work()
    return value, time.perf_counter() - wall, time.process_time() - cpu

from paicli_tui.core.embedders.use import load_backend, load_mapped_weights, load_tokenizer
tokenizer = load_tokenizer(cache)
load = load_backend if variant == "copy" else load_mapped_weights
backend, load_wall, load_cpu = timed(lambda: load(cache, tokenizer, 2))
after_load = memory()
_, query_wall, query_cpu = timed(lambda: backend.encode(["where is a refund issued"]))
texts = [f"def handler_{i}(request):\n    '''Refund order {i}, 退款 {i}.'''\n"
         f"    return refund(order_{i}, amount=request.total * {i})\n" * (1 + i % 6)
         for i in range(64)]
vectors, batch_wall, batch_cpu = timed(lambda: backend.encode(texts))
(barrier / me).touch()
while len(list(barrier.iterdir())) < 2:
    time.sleep(0.01)
both = memory()
time.sleep(0.3)  # the other measures while this one is still alive
print(json.dumps({"load_wall": load_wall, "load_cpu": load_cpu, "query_wall": query_wall,
                  "query_cpu": query_cpu, "batch_wall": batch_wall, "batch_cpu": batch_cpu,
                  "rss_load": after_load["rss"], "pss_load": after_load["pss"],
                  "rss_both": both["rss"], "pss_both": both["pss"],
                  "checksum": float(abs(vectors).sum())}))
"""

SAME_PROCESS = r"""
import json, statistics, sys, time
from pathlib import Path
from paicli_tui.core.embedders.use import load_backend, load_mapped_weights, load_tokenizer
cache = Path(sys.argv[1])
tokenizer = load_tokenizer(cache)
variants = {"copy": load_backend(cache, tokenizer, 1),
            "mapped": load_mapped_weights(cache, tokenizer, 1)}
texts = [f"def handler_{i}(request):\n    '''Refund order {i}, 退款 {i}.'''\n"
         f"    return refund(order_{i}, amount=request.total * {i})\n" * (1 + i % 6)
         for i in range(64)]
times = {name: [] for name in variants}
for backend in variants.values():
    backend.encode(texts)  # every page the pass touches is in
for _ in range(int(sys.argv[2])):
    for name, backend in variants.items():
        started = time.process_time()
        backend.encode(texts)
        times[name].append(time.process_time() - started)
print(json.dumps({name: statistics.median(v) for name, v in times.items()}))
"""
"""Both variants in one process, one BLAS thread, alternating: the forward pass alone. (With
two BLAS threads on a busy machine, the CPU seconds above are mostly OpenBLAS threads
spinning while they wait for a core: measured 3.3 s vs 0.35 s for the same 64 texts.)"""

FIELDS = [("load_wall", "weights load, wall s"), ("load_cpu", "weights load, CPU s"),
          ("query_wall", "1 query, wall s"), ("query_cpu", "1 query, CPU s"),
          ("batch_wall", "64 chunks, wall s"), ("batch_cpu", "64 chunks, CPU s"),
          ("rss_load", "RSS after load, MB"), ("pss_load", "PSS after load, MB"),
          ("rss_both", "RSS, two alive, MB"), ("pss_both", "PSS, two alive, MB")]


def pair(variant: str, cache: Path, work: Path) -> list[dict]:
    barrier = Path(tempfile.mkdtemp(dir=work))
    runs = [subprocess.Popen([sys.executable, "-c", CHILD, variant, str(cache), str(barrier),
                              str(n)], stdout=subprocess.PIPE, text=True) for n in range(2)]
    outputs = [r.communicate(timeout=600)[0] for r in runs]
    if any(r.returncode for r in runs):
        raise SystemExit(f"{variant}: a child failed")
    return [json.loads(o.strip().splitlines()[-1]) for o in outputs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        cache = work / "cache"
        for variant in ("mapped", "copy"):  # write both caches (mapped first: writing it
            # removes an uncompressed copy), warm the page cache
            pair(variant, cache, work)
        results: dict[str, list[dict]] = {"copy": [], "mapped": []}
        for _ in range(args.runs):
            for variant in ("copy", "mapped"):
                results[variant].extend(pair(variant, cache, work))
                time.sleep(0.2)
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        alone = json.loads(subprocess.run(
            [sys.executable, "-c", SAME_PROCESS, str(cache), str(max(5, 2 * args.runs + 1))],
            capture_output=True, text=True, env=env, check=True).stdout.strip().splitlines()[-1])
    sums = {v: {round(r["checksum"], 3) for r in rs} for v, rs in results.items()}
    same = sums["copy"] == sums["mapped"] and len(sums["copy"]) == 1
    print(f"{args.runs} runs x 2 processes per variant; identical vectors: {same}")
    print(f"{'median':<24} {'copy':>9} {'mapped':>9} {'mapped/copy':>12}")
    for key, label in FIELDS:
        copy = statistics.median(r[key] for r in results["copy"])
        mapped = statistics.median(r[key] for r in results["mapped"])
        print(f"{label:<24} {copy:>9.3f} {mapped:>9.3f} {mapped / copy if copy else 0:>11.2f}x")
    print(f"{'64 chunks, 1 thread, CPU':<24} {alone['copy']:>9.3f} {alone['mapped']:>9.3f} "
          f"{alone['mapped'] / alone['copy']:>11.2f}x   (one process, both variants)")


if __name__ == "__main__":
    main()
