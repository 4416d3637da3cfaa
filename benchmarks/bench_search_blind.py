#!/usr/bin/env python3
"""Search quality of the installed app on the blind sets (TypeScript, Go, Java, JavaScript).

usage: python benchmarks/bench_search_blind.py [--set java_gson,js_axios,ts_query_core,go_cobra]
           [--repo SET=GIT_DIR ...] [--project-root DIR] [--app CMD]
           [--modes grep,semantic,text,hybrid] [--jobs 2] [--eval-dir DIR] [--verbose]

See benchmarks/blind_sets/README.md. For each set:

1. Lays out its pinned files with ``blind_sets/prepare.py`` from a clone of its repository
   (``--repo SET=DIR`` or ``$PAICLI_BLIND_<SET>_REPO``). Without one it prints
   "skipped: ..." for that set and goes on (exit 0): no third-party source is kept here.
2. Builds the index from scratch with ``APP index`` and prints index time and chunks/s.
3. Runs the shared ``score.py`` hit rule and table on the same index, with its path patterns
   widened to the set's extension (as bench_search_heldout.py does for .java).

Which sets are still blind (never tuned on) and which are seen is in blind_sets/README.md.

Offline; writes only under the project folders (temporary unless --project-root) and a
temporary PAICLI_HOME. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SETS_DIR = HERE / "blind_sets"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(SETS_DIR))
from bench_search_heldout import DEFAULT_EVAL, index_project, load_score  # noqa: E402
from bench_search_quality import _default_app  # noqa: E402
from prepare import load_source, prepare, sets  # noqa: E402


def run_set(name: str, repo: str | None, project: Path, a: argparse.Namespace) -> int:
    code, message = prepare(name, project, repo)
    if code == 3:
        print(f"skipped: {message}")
        return 0
    if code != 0:
        print(f"{name}: {message}", file=sys.stderr)
        return 1
    print(f"# {message}")
    index_project(shlex.split(a.app), project)
    ext = Path(load_source(name)["files"][0]).suffix.lstrip(".")
    score = load_score(Path(a.eval_dir), ("py", "java", ext))
    argv = [a.app, str(project), "--skip-index", "--questions",
            str(SETS_DIR / name / "questions.json"), "--modes", a.modes, "--jobs", str(a.jobs)]
    if a.verbose:
        argv.append("--verbose")
    if a.json_out:
        argv += ["--json-out", f"{a.json_out}.{name}.json"]
    sys.stdout.flush()
    return int(score.main(argv) or 0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default=",".join(sets()), help="comma-separated set names")
    ap.add_argument("--repo", action="append", default=[], metavar="SET=GIT_DIR")
    ap.add_argument("--project-root", help="keep each corpus in DIR/SET (default: temporary)")
    ap.add_argument("--app", default=_default_app())
    ap.add_argument("--modes", default="grep,semantic,text,hybrid")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--eval-dir", default=str(DEFAULT_EVAL))
    ap.add_argument("--json-out", help="per-question ranks to PREFIX.SET.json")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    if not (Path(a.eval_dir) / "score.py").exists():
        print(f"no score.py in {a.eval_dir} (use --eval-dir)", file=sys.stderr)
        return 2
    repos = dict(r.split("=", 1) for r in a.repo if "=" in r)
    worst = 0
    for name in [s for s in a.set.split(",") if s]:
        if name not in sets():
            print(f"unknown set {name!r}; sets: {', '.join(sets())}", file=sys.stderr)
            return 2
        root = Path(a.project_root) if a.project_root else Path(tempfile.mkdtemp(prefix="paicli-blind-"))
        project = root / name if a.project_root else root
        project.mkdir(parents=True, exist_ok=True)
        home = tempfile.mkdtemp(prefix="paicli-blind-home-")
        saved_env = dict(os.environ)
        os.environ.update(PAICLI_HOME=home, RUST_LOG="error")
        print(f"## blind set {name}: {json.dumps(load_source(name)['repo'])}")
        try:
            worst = max(worst, run_set(name, repos.get(name), project, a))
        except RuntimeError as exc:
            print(str(exc), file=sys.stderr)
            worst = 1
        finally:
            os.environ.clear()
            os.environ.update(saved_env)
            shutil.rmtree(home, ignore_errors=True)
            if not a.project_root:
                shutil.rmtree(root, ignore_errors=True)
    return worst


if __name__ == "__main__":
    sys.exit(main())
