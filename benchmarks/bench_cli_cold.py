"""CLI cold start: each sub-command as a fresh process from a shell, beside
`paicli-tui --version` in the same run (medians of --runs; prints seconds and the ratio).

Wall and CPU seconds (user + system of the command's process, less disturbed by other load
on a shared machine) are printed. A small Python project (the package's own context engine,
copied) is indexed once with the default offline embedder first. Also printed: `import lancedb` plain beside the way the
index imports it (import-time checks off), side by side.

    python benchmarks/bench_cli_cold.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import resource
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
    ["search", "--mode", "text", "崩溃后怎么恢复视图"],
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


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system of the child) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False, timeout=300)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


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
        rows: dict[str, list[tuple[float, float]]] = {" ".join(c): [] for c in COMMANDS}
        rows.update({name: [] for name in IMPORTS})
        for _ in range(args.runs):  # interleaved, so load changes hit every row alike
            for command in COMMANDS:
                rows[" ".join(command)].append(timed([*cli, *command], env, project))
            for name, code in IMPORTS.items():
                rows[name].append(timed([sys.executable, "-c", code], env, project))
    print_table(rows)
    return 0


def print_table(samples: dict[str, list[tuple[float, float]]]) -> None:
    """Median wall and CPU seconds per command, each beside --version's."""
    wall = {name: statistics.median(v[0] for v in values) for name, values in samples.items()}
    cpu = {name: statistics.median(v[1] for v in values) for name, values in samples.items()}
    print(f"{'command':<58} {'wall s':>7} {'÷ ver':>6} {'CPU s':>7} {'÷ ver':>6}")
    for name in samples:
        print(f"{name:<58} {wall[name]:>7.2f} {wall[name] / wall['--version']:>5.1f}× "
              f"{cpu[name]:>7.2f} {cpu[name] / cpu['--version']:>5.1f}×")


if __name__ == "__main__":
    sys.exit(main())
