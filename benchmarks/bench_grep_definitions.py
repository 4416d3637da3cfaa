"""Where grep mode puts the definition of a name: for every class defined exactly once in a
project (``class Name`` at the start of a line, any language with that keyword), search the
bare name in grep mode without an index and report the rank of the result holding the
definition line (top 30; worse counts as "not found").

    python benchmarks/bench_grep_definitions.py PROJECT_DIR [--limit 60]

Prints share at rank 1, share in the top 5, mean reciprocal rank and the names not found. The
names come from the project itself (no list to tune on), taken in sorted order, every n-th to
stay within --limit.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

from paicli_tui.config import load_settings
from paicli_tui.core.code.search import search_project

DEFINITION = re.compile(r"^class\s+([A-Za-z_]\w*)", re.MULTILINE)


def definitions(root: Path) -> dict[str, tuple[str, int]]:
    found: dict[str, list[tuple[str, int]]] = {}
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in DEFINITION.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.setdefault(match.group(1), []).append((path.relative_to(root).as_posix(), line))
    return {name: places[0] for name, places in found.items() if len(places) == 1}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("project", type=Path)
    parser.add_argument("--limit", type=int, default=60)
    args = parser.parse_args()
    root = args.project.resolve()
    names = definitions(root)
    step = max(1, len(names) // args.limit)
    chosen = sorted(names)[::step][:args.limit]
    with tempfile.TemporaryDirectory() as home:
        settings = load_settings({}, {"PAICLI_HOME": home})
        ranks: Counter[int] = Counter()
        missed: list[str] = []
        reciprocal = 0.0
        for name in chosen:
            path, line = names[name]
            hits = search_project(settings, root, name, mode="grep", top_k=30).hits
            rank = next((i for i, h in enumerate(hits, 1) if h.path == path and
                         (h.start_line <= line <= h.end_line or
                          getattr(h, "match_line", 0) == line)), None)
            if rank is None:
                missed.append(name)
            else:
                ranks[rank] += 1
                reciprocal += 1 / rank
    total = len(chosen)
    top1 = ranks[1] / total
    top5 = sum(v for k, v in ranks.items() if k <= 5) / total
    print(f"{total} class names from {root.name}: rank 1 {top1:.2f}, top 5 {top5:.2f}, "
          f"MRR {reciprocal / total:.3f}, not in top 30: {len(missed)}")
    if missed:
        print("not found:", ", ".join(missed[:20]), file=sys.stderr)


if __name__ == "__main__":
    main()
