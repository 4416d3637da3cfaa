"""grep_code next to ripgrep on the same tree, in one run (prints figures; asserts nothing).

Rows: raw ``rg`` (the floor), grep_code through its ripgrep backend (rg + our gitignore-aware
formatting), and grep_code's Python scanner (what runs where rg is not installed).

Usage: python benchmarks/bench_grep.py [--files 3000] [--tree DIR]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_index import generate_tree  # noqa: E402

from paicli_tui.core.code.grep import GrepOptions, grep_code  # noqa: E402

PATTERNS = [("literal", GrepOptions("helper.taxCount", regex=False, context=2)),
            ("regex", GrepOptions(r"public int (compute|merge)\w+\(", context=0)),
            ("rare", GrepOptions("Handles refund work number 77\\b", context=2)),
            ("ignore-case", GrepOptions("ORDERSERVICE1", ignore_case=True, context=0))]


def _time(fn, repeat: int = 5) -> float:
    fn()  # warm the page cache
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        timings.append(time.perf_counter() - started)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--tree", type=Path, default=None, help="search this tree instead")
    args = parser.parse_args()
    rg = shutil.which("rg")
    with tempfile.TemporaryDirectory() as tmp:
        root = args.tree or Path(tmp) / "tree"
        if args.tree is None:
            generate_tree(root, args.files)
        files = sum(1 for p in root.rglob("*") if p.is_file())
        print(f"tree: {root} ({files} files); ripgrep: {rg or 'not installed'}")
        print(f"{'pattern':12s} {'rg raw':>10s} {'grep_code/rg':>13s} {'grep_code/py':>13s} "
              f"{'matches':>8s}")
        for label, options in PATTERNS:
            raw = backend = None
            if rg:
                flags = ["-F"] if not options.regex else []
                flags += ["-i"] if options.ignore_case else []
                command = [rg, "-n", "--hidden", "--no-require-git", *flags, "--",
                           options.pattern, "."]
                raw = _time(lambda command=command: subprocess.run(
                    command, cwd=root, capture_output=True, check=False))
                backend = _time(lambda options=options: grep_code(root, options,
                                                                   use_ripgrep=True))
            python = _time(lambda options=options: grep_code(root, options, use_ripgrep=False),
                           repeat=3)
            found = grep_code(root, options, use_ripgrep=False).total

            def ms(value: float | None) -> str:
                return f"{1000 * value:8.1f} ms" if value is not None else "       n/a"

            print(f"{label:12s} {ms(raw):>10s} {ms(backend):>13s} {ms(python):>13s} "
                  f"{found:8d}")


if __name__ == "__main__":
    main()
