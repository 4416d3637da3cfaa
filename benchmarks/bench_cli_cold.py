"""CLI cold start: each sub-command as a fresh process from a shell, beside
`paicli-tui --version` in the same run (medians of --runs; prints seconds and the ratio).

A small Python project (the package's own context engine, copied) is indexed once with the
default offline embedder first. Also printed: `import lancedb` plain beside the way the
index imports it (import-time checks off), side by side.

    python benchmarks/bench_cli_cold.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COMMANDS = [
    ["--version"],
    ["sessions"],
    ["search", "--mode", "grep", "checkpoint"],
    ["search", "--mode", "text", "ledger checkpoint"],
    ["search", "--mode", "semantic", "restore the view after a crash"],
    ["search", "--mode", "hybrid", "restore the view after a crash"],
    ["index", "--quiet"],
    ["memory", "list"],
]
IMPORTS = {
    "import lancedb (plain)": "import lancedb",
    "import lancedb (checks off)": "from paicli_tui.core.code.lance_store import import_lancedb;"
                                   " import_lancedb()",
}


def wall(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False, timeout=300)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    cli = [sys.executable, "-m", "paicli_tui"]
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        shutil.copytree(REPO / "paicli_tui" / "core" / "context", project / "context")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PAICLI_")}
        env["PAICLI_HOME"] = str(Path(tmp) / "home")
        subprocess.run([*cli, "index", "--quiet"], env=env, cwd=project, check=True,
                       stdout=subprocess.DEVNULL, timeout=600)
        rows: dict[str, list[float]] = {" ".join(c): [] for c in COMMANDS}
        rows.update({name: [] for name in IMPORTS})
        for _ in range(args.runs):  # interleaved, so load changes hit every row alike
            for command in COMMANDS:
                rows[" ".join(command)].append(wall([*cli, *command], env, project))
            for name, code in IMPORTS.items():
                rows[name].append(wall([sys.executable, "-c", code], env, project))
    base = statistics.median(rows["--version"])
    print(f"{'command':<58} {'median s':>9} {'÷ --version':>12}")
    for name, samples in rows.items():
        median = statistics.median(samples)
        print(f"{name:<58} {median:>9.2f} {median / base:>11.1f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
