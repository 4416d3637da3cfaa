"""Cap on chunks per file: index a project holding one huge file of N one-line declarations
(a 1 MB Java class of 40,000 methods by default; --language python|typescript|go for the
others), with the cap off (as before: one chunk per declaration) and on, side by side in one
run. Prints index seconds (wall and CPU), chunks and whether a late declaration is still
found by text search; asserts nothing.

    python benchmarks/bench_chunk_cap.py [--embedder default|fake] [--language java]
                                         [--skip-before] [40000]

"default" is the embedder `paicli-tui index` runs (use+minilm, offline); "fake" isolates the
parse / full-text / write cost. The "before" run with "default" takes minutes (that is the
bug); --skip-before leaves it out.
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

from bench_index import FakeEmbedder  # noqa: E402

from paicli_tui.config import load_settings  # noqa: E402
from paicli_tui.core.code.indexer import CodeIndexer  # noqa: E402
from paicli_tui.core.code.search import search_project  # noqa: E402

SOURCES = {  # name, one declaration per line (the file stays under the 1 MB indexed)
    "java": ("Big.java", "package p;\npublic class Big {\n", " int m{i}(){{return 0;}}\n", "}\n"),
    "python": ("big.py", "", "def m{i}(a): return a\n", ""),
    "typescript": ("big.ts", "", "function m{i}(a) {{ return a }}\n", ""),
    "go": ("big.go", "package big\n", "func m{i}() int {{ return 0 }}\n", ""),
}


def index_once(language: str, count: int, embedder, capped: bool) -> tuple[float, float, int, bool]:
    """(wall seconds, CPU seconds, chunks, a late declaration found by text search)."""
    name, head, line, tail = SOURCES[language]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        text = head + "".join(line.format(i=i) for i in range(count)) + tail
        (root / name).write_text(text)
        settings = load_settings({}, {"PAICLI_HOME": str(Path(tmp) / "home")})
        patch = contextlib.nullcontext() if capped else mock.patch(
            "paicli_tui.core.code.chunking.capped.cap_chunks", lambda result: result)
        with patch:
            wall, cpu = time.perf_counter(), time.process_time()
            summary = CodeIndexer(settings, root, embedder).update()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        late = f"m{count - 7}"
        found = search_project(settings, root, late, mode="text", embedder=embedder)
        hit = any(late in h.source for h in found.hits)
        return wall, cpu, summary.chunks_total, hit


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("count", nargs="?", type=int, default=40_000)
    parser.add_argument("--embedder", choices=("default", "fake"), default="default")
    parser.add_argument("--language", choices=sorted(SOURCES), default="java")
    parser.add_argument("--skip-before", action="store_true")
    args = parser.parse_args()
    if args.embedder == "fake":
        embedder = FakeEmbedder()
    else:
        from paicli_tui.core.embedders import get_code_embedder

        embedder = get_code_embedder(load_settings({}, {}))
    embedder.embed(["warm up"])
    print(f"embedder: {embedder.name}, {args.language}, {args.count:,} declarations")
    print(f"{'cap':>4} {'wall s':>8} {'cpu s':>8} {'chunks':>7} {'late name found':>16}")
    for capped in (True, False):
        if not capped and args.skip_before:
            continue
        wall, cpu, chunks, hit = index_once(args.language, args.count, embedder, capped)
        print(f"{'on' if capped else 'off':>4} {wall:>8.1f} {cpu:>8.1f} {chunks:>7} {hit!s:>16}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
