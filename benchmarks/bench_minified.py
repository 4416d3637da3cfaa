"""Minified-file benchmark: index a project holding one single-line bundle of N functions,
with minified detection off (as before: every function chunk carried the whole line) and on,
side by side in one run. Prints index seconds, chunk count, stored chunk text and the
ratios; asserts nothing.

    python benchmarks/bench_minified.py [--embedder use|fake] [2000 6000]

"use" is the offline default embedder (what `paicli-tui index` runs); "fake" isolates the
parse / full-text / write cost. The "before" run at 6,000 functions with "use" takes minutes
(that is the bug); pass --skip-before-over N to leave out the slow before runs.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_index import make_embedder  # noqa: E402

from paicli_tui.config import load_settings  # noqa: E402
from paicli_tui.core.code.indexer import CodeIndexer  # noqa: E402
from paicli_tui.core.code.lance_store import index_location, open_index  # noqa: E402


def bundle(functions: int) -> str:
    return "".join(f"function f{i}(a,b){{return a*{i}+b}}" for i in range(functions)) + "\n"


def index_once(functions: int, embedder, detect: bool) -> tuple[float, int, int]:
    """(seconds, chunks, characters of chunk text stored)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        (root / "dist").mkdir(parents=True)
        (root / "dist" / "bundle.js").write_text(bundle(functions))
        settings = load_settings({}, {"PAICLI_HOME": str(Path(tmp) / "home")})
        # off: the detector finds nothing, so the parser chunks the bundle as before
        patch = contextlib.nullcontext() if detect else mock.patch(
            "paicli_tui.core.code.chunking.minified.classify", lambda path, text: None)
        with patch:
            started = time.perf_counter()
            summary = CodeIndexer(settings, root, embedder).update()
            seconds = time.perf_counter() - started
        sources = open_index(index_location(settings, root)).chunks.to_arrow() \
            .column("source").to_pylist()
        return seconds, summary.chunks_total, sum(len(s) for s in sources)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", nargs="*", type=int, default=[2000, 6000])
    parser.add_argument("--embedder", choices=("use", "fake"), default="use")
    parser.add_argument("--skip-before-over", type=int, default=10**9)
    args = parser.parse_args()
    embedder = make_embedder(args.embedder)
    embedder.embed(["warm up"])
    print(f"embedder: {args.embedder}")
    print(f"{'functions':>9} {'detection':>9} {'index s':>8} {'chunks':>7} {'stored MB':>10}")
    for size in args.sizes:
        after = index_once(size, embedder, detect=True)
        before = index_once(size, embedder, detect=False) \
            if size <= args.skip_before_over else None
        for label, row in (("off", before), ("on", after)):
            if row is not None:
                print(f"{size:>9} {label:>9} {row[0]:>8.2f} {row[1]:>7} {row[2] / 1e6:>10.3f}")
        if before is not None:
            print(f"{size:>9} {'off ÷ on':>9} {before[0] / after[0]:>7.1f}× {'':>7} "
                  f"{before[2] / after[2]:>9.0f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
