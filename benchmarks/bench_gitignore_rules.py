""".gitignore of many rules: the project walk every grep, glob and index run shares, over a
tree of --files files under a root .gitignore of N rules of one shape, with the rules tried
one by one on every path (as before) and filed by the literal text they need (as now), side
by side in one run. Prints CPU seconds per walk and per path; asserts nothing.

    python benchmarks/bench_gitignore_rules.py [--files 2000] [--skip-before] [20000]

Shapes: plain names, ``*.ext123`` (a leading wildcard), ``**/dir123/*.log``, ``*name123*``
and ``*name123*.tmp`` (three wildcards: walked state by state in Python, never joined into a
regex). The one-by-one run of the last two takes minutes at 20,000 rules (that is the bug);
the code before joined runs of regex-safe rules, so its first three shapes cost ~3 ms a path.
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

from paicli_tui.core.code import ignore  # noqa: E402

SHAPES = {"plain": "name{i}", "star-ext": "*.ext{i}", "deep": "**/dir{i}/*.log",
          "star-both": "*name{i}*", "star-mid": "*name{i}*.tmp"}


def one_by_one(self: ignore.IgnoreMatcher, path: Path, base: str) -> None:
    """The matcher as it was: every rule of the file kept in a list, each tried on each path."""
    try:
        text, _ = ignore.read_regular_text(path, ignore.MAX_IGNORE_FILE_BYTES)
    except OSError:
        return
    self.rules.extend(ignore.parse_gitignore(text, base))


def walk_seconds(root: Path, filed: bool) -> tuple[float, int]:
    patch = contextlib.nullcontext() if filed else mock.patch.object(
        ignore.IgnoreMatcher, "add_file", one_by_one)
    with patch:
        started = time.process_time()
        count = sum(1 for _ in ignore.walk_project_files(root))
        return time.process_time() - started, count


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("rules", nargs="?", type=int, default=20_000)
    parser.add_argument("--files", type=int, default=2_000)
    parser.add_argument("--skip-before", action="store_true")
    args = parser.parse_args()
    print(f"{args.rules:,} rules, {args.files:,} files")
    print(f"{'shape':>10} {'matcher':>10} {'cpu s':>8} {'ms/path':>8}")
    for shape, line in SHAPES.items():
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / ".gitignore").write_text(
                "".join(line.format(i=i) + "\n" for i in range(args.rules)))
            for d in range(max(1, args.files // 50)):
                folder = root / "src" / f"pkg{d}"
                folder.mkdir(parents=True)
                for f in range(50):
                    (folder / f"File{f}.java").write_text("x")
            for filed in (False, True):
                if not filed and args.skip_before:
                    continue
                seconds, count = walk_seconds(root, filed)
                print(f"{shape:>10} {'filed' if filed else 'one by one':>10} {seconds:>8.2f} "
                      f"{seconds / count * 1000:>8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
