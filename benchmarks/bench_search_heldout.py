#!/usr/bin/env python3
"""Search quality of the installed app on the held-out Java set (JDK 25 java.base subset).

usage: python benchmarks/bench_search_heldout.py [--project DIR] [--app CMD] [--src-zip ZIP]
           [--modes grep,semantic,text,hybrid] [--jobs 2] [--eval-dir DIR] [--verbose]

A generalisation check next to bench_search_quality.py (whose dev set is a Python library):
a different language, codebase and question author. See benchmarks/heldout_jdk/README.md.

1. Unzips the fixed subset with ``heldout_jdk/prepare.sh`` into PROJECT (a temporary folder,
   removed at the end, unless --project is given). Prints "skipped: ..." and exits 0 when no
   JDK src.zip is found or its sources are not the pinned ones (CI machines without a JDK).
2. Builds the index from scratch with ``APP index`` and prints index time and chunks/s.
3. Runs the shared ``score.py`` hit rule and table on the same index with
   ``--questions heldout_jdk/questions.json``. score.py only recognises ``.py`` paths, so it
   is loaded as a module and its path patterns are widened to ``.java`` before ``main()``
   runs; the hit rule itself is unchanged.

Offline; writes only under PROJECT and a temporary PAICLI_HOME. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
SET_DIR = HERE / "heldout_jdk"
DEFAULT_EVAL = HERE.parents[1] / "shared" / "eval" / "code"
SRC_ZIP_CANDIDATES = (
    "/usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip",
    "/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip",
)
# prepare.sh exit codes: 3 = no src.zip, 4 = sources differ from the pinned subset
SKIP_CODES = {3: "JDK src.zip not found", 4: "JDK src.zip is not the pinned JDK 25.0.3 one"}

sys.path.insert(0, str(HERE))
from bench_search_quality import _default_app, _index_summary  # noqa: E402


def find_src_zip(given: str | None) -> str | None:
    """--src-zip when given (None if it does not exist), else the first existing src.zip among
    $JDK_SRC_ZIP, known JDKs and $JAVA_HOME."""
    if given:
        return given if os.path.isfile(given) else None
    java_home = os.environ.get("JAVA_HOME")
    for cand in (given, os.environ.get("JDK_SRC_ZIP"), SRC_ZIP_CANDIDATES[0],
                 java_home and os.path.join(java_home, "lib", "src.zip"), *SRC_ZIP_CANDIDATES[1:]):
        if cand and os.path.isfile(cand):
            return cand
    return None


def load_score(eval_dir: Path, exts: tuple[str, ...] = ("py", "java")) -> ModuleType:
    """score.py as a module whose result parser also accepts paths ending in `exts` (by
    default .py and .java; the hit rule is untouched)."""
    spec = importlib.util.spec_from_file_location("heldout_score", eval_dir / "score.py")
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {eval_dir / 'score.py'}")
    score = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(score)
    alts = "|".join(exts)
    ext = r"\.(?:" + alts + ")"
    score.PY_PATH_RE = re.compile(
        r"(?:file://)?((?:[A-Za-z]:)?[\w.~@+\-/\\]*[\w\-]" + ext + r")(?![\w])")
    score.RANGE_PATTERNS[0] = re.compile(
        ext + r"[:#(\s,]+L?(\d+)\s*(?:-|–|—|:|\.\.|to|,)\s*L?(\d+)")
    score.SINGLE_PATTERNS[0] = re.compile(ext + r"[:#(]L?(\d+)\b")
    plain_norm = score._norm_path

    def norm_path(p: str) -> str:
        return plain_norm(re.sub(r"(\.(?:" + alts + r"))[:#(].*$", r"\1", p.strip()))

    def module_suffixes(path: str) -> list[str]:
        mod = re.sub(r"\.(?:" + alts + ")$", "", path)
        parts = [p for p in mod.split("/") if p and p != "__init__"]
        return [".".join(parts[i:]) for i in range(len(parts))]

    score._norm_path = norm_path
    score._module_suffixes = module_suffixes
    return score


def index_project(app: list[str], project: Path) -> None:
    """A fresh index of `project`, with its time and chunk rate printed."""
    shutil.rmtree(project / ".paicli" / "index", ignore_errors=True)
    started = time.perf_counter()
    done = subprocess.run([*app, "index", "--json"], cwd=project, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"index failed ({done.returncode}):\n{done.stderr[-2000:]}")
    summary = _index_summary(done.stdout + "\n" + done.stderr)
    chunks = summary.get("chunks_total") or summary.get("chunks")
    own = summary.get("seconds")
    base = own if isinstance(own, (int, float)) and own > 0 else seconds
    print(f"index (full, from scratch): wall {seconds:.1f} s incl. process start"
          + (f", indexer {own:.1f} s" if isinstance(own, (int, float)) else ""))
    if isinstance(chunks, int) and chunks:
        print(f"chunks: {chunks}, {chunks / base:.0f} chunks/s (indexer)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--project", help="corpus folder (default: a temporary one)")
    ap.add_argument("--app", default=_default_app())
    ap.add_argument("--src-zip", help="JDK src.zip (default: $JDK_SRC_ZIP or a known JDK)")
    ap.add_argument("--modes", default="grep,semantic,text,hybrid")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--eval-dir", default=str(DEFAULT_EVAL))
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()

    zip_path = find_src_zip(a.src_zip)
    if zip_path is None:
        print(f"skipped: {SKIP_CODES[3]} (pass --src-zip or set JDK_SRC_ZIP)")
        return 0
    eval_dir = Path(a.eval_dir)
    if not (eval_dir / "score.py").exists():
        print(f"no score.py in {eval_dir} (use --eval-dir)", file=sys.stderr)
        return 2

    made_project = a.project is None
    project = Path(a.project or tempfile.mkdtemp(prefix="paicli-heldout-jdk-"))
    home = tempfile.mkdtemp(prefix="paicli-heldout-home-")
    saved_env = dict(os.environ)
    try:
        prep = subprocess.run(["bash", str(SET_DIR / "prepare.sh"), str(project), zip_path],
                              capture_output=True, text=True)
        if prep.returncode in SKIP_CODES:
            print(f"skipped: {SKIP_CODES[prep.returncode]} ({prep.stderr.strip().splitlines()[0]})")
            return 0
        if prep.returncode != 0:
            print(f"prepare.sh failed ({prep.returncode}):\n{prep.stderr}", file=sys.stderr)
            return 1
        print(f"# {prep.stdout.strip()}")

        os.environ.update(PAICLI_HOME=home, RUST_LOG="error")
        try:
            index_project(shlex.split(a.app), project)
        except RuntimeError as exc:
            print(str(exc), file=sys.stderr)
            return 1

        score = load_score(eval_dir)
        argv = [a.app, str(project), "--skip-index", "--questions",
                str(SET_DIR / "questions.json"), "--modes", a.modes, "--jobs", str(a.jobs)]
        if a.verbose:
            argv.append("--verbose")
        sys.stdout.flush()
        return int(score.main(argv) or 0)
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        shutil.rmtree(home, ignore_errors=True)
        if made_project:
            shutil.rmtree(project, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
