#!/usr/bin/env python3
"""Search quality of the installed app on the shared development set (rich 15.0.0).

usage: python benchmarks/bench_search_quality.py [--project DIR] [--app CMD]
           [--modes grep,semantic,text,hybrid] [--jobs 2] [--eval-dir DIR] [--verbose]

1. Prepares the corpus with ``prepare.sh`` when PROJECT has no ``rich/`` folder yet.
2. Builds the index from scratch with ``APP index`` (timed; the chunk count is read from its
   output) and prints index time and chunks/s.
3. Runs ``score.py APP PROJECT --skip-index`` on the same index and prints its per-mode,
   per-language recall@5 table.

Offline; writes only under PROJECT/.paicli and a temporary PAICLI_HOME. Figures, not
assertions: compare runs side by side on the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval" / "code"


def _default_app() -> str:
    beside = Path(sys.executable).with_name("paicli-tui")
    return str(beside) if beside.exists() else (shutil.which("paicli-tui") or "paicli-tui")


def _index_summary(output: str) -> dict[str, object]:
    """The JSON summary an index run prints (last JSON line), else the chunk count found in a
    'N chunks' line of plain output."""
    for line in reversed(output.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                data = json.loads(line)
            except ValueError:
                continue
            if isinstance(data, dict):
                return data
    m = re.findall(r"([\d,]+)\s+chunks?\b", output)
    return {"chunks_total": int(m[-1].replace(",", ""))} if m else {}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--project", default="/tmp/rich-dev")
    ap.add_argument("--app", default=_default_app())
    ap.add_argument("--modes", default="grep,semantic,text,hybrid")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--eval-dir", default=str(DEFAULT_EVAL))
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()

    eval_dir = Path(a.eval_dir)
    project = Path(a.project)
    if not (eval_dir / "score.py").exists():
        print(f"no score.py in {eval_dir} (use --eval-dir)", file=sys.stderr)
        return 2
    if not (project / "rich").is_dir():
        subprocess.run(
            ["bash", str(eval_dir / "prepare.sh"), str(project), sys.executable], check=True
        )

    env = dict(os.environ, RUST_LOG="error")
    home = tempfile.mkdtemp(prefix="paicli-bench-home-")
    env["PAICLI_HOME"] = home
    try:
        shutil.rmtree(project / ".paicli" / "index", ignore_errors=True)
        app = shlex.split(a.app)
        started = time.perf_counter()
        done = subprocess.run(
            [*app, "index", "--json"], cwd=project, env=env, capture_output=True, text=True
        )
        if done.returncode != 0:  # an index command without --json
            started = time.perf_counter()
            done = subprocess.run(
                [*app, "index"], cwd=project, env=env, capture_output=True, text=True
            )
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            print(f"index failed ({done.returncode}):\n{done.stderr[-2000:]}", file=sys.stderr)
            return 1
        summary = _index_summary(done.stdout + "\n" + done.stderr)
        chunks = summary.get("chunks_total") or summary.get("chunks")
        own = summary.get("seconds")
        embed = summary.get("embed_seconds")
        print(
            f"index (full, from scratch): wall {seconds:.1f} s incl. process start"
            + (f", indexer {own:.1f} s" if isinstance(own, (int, float)) else "")
            + (f", embedding {embed:.1f} s" if isinstance(embed, (int, float)) else "")
        )
        if isinstance(chunks, int) and chunks:
            base = own if isinstance(own, (int, float)) and own > 0 else seconds
            line = f"chunks: {chunks}, {chunks / base:.0f} chunks/s (indexer)"
            if isinstance(embed, (int, float)) and embed > 0:
                line += f", embedder alone {chunks / embed:.0f} chunks/s"
            print(line)
        else:
            print("chunks: not reported by the index command")

        cmd = [
            sys.executable,
            str(eval_dir / "score.py"),
            a.app,
            str(project),
            "--skip-index",
            "--modes",
            a.modes,
            "--jobs",
            str(a.jobs),
        ]
        if a.verbose:
            cmd.append("--verbose")
        scored = subprocess.run(cmd, env=env, capture_output=True, text=True)
        print(scored.stdout, end="")
        if scored.returncode != 0:
            print(scored.stderr[-2000:], file=sys.stderr)
        return scored.returncode
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
