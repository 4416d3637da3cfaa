#!/usr/bin/env python3
"""Lay out one blind search set's corpus from a clone of its repository.

usage: python benchmarks/blind_sets/prepare.py SET DEST [--repo GIT_DIR]

SET is a folder name beside this file (``java_gson``, ``java_jenetics_ext``, ``java_jox``,
``js_axios``, ``ts_query_core``, ``go_cobra``). Its ``source.json`` records the repository
URL, the pinned commit, the file list and a digest; no third-party source is kept in this
repository. The files are taken from that commit with ``git archive`` out of GIT_DIR (a
clone or a bare mirror; default ``$PAICLI_BLIND_<SET>_REPO``), written to
``DEST/<dest_prefix><file>`` and checked against the digest, so the questions' line numbers
hold. To get a clone: ``git clone <repo> DIR && git -C DIR checkout <commit>`` with the
values of source.json.

Exit 0 when DEST is ready, 3 when the source is absent (no GIT_DIR, or it lacks the commit),
4 when the extracted files differ from the pinned digest, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ABSENT, MISMATCH = 3, 4


def sets() -> list[str]:
    """The names of the blind sets shipped beside this file."""
    return sorted(p.parent.name for p in HERE.glob("*/source.json"))


def load_source(name: str) -> dict:
    """The set's source.json."""
    return json.loads((HERE / name / "source.json").read_text(encoding="utf-8"))


def digest(root: Path, rel_paths: list[str]) -> str:
    """SHA-256 over the sorted (path, file SHA-256) pairs under root."""
    h = hashlib.sha256()
    for rel in sorted(rel_paths):
        file_hash = hashlib.sha256((root / rel).read_bytes()).hexdigest()
        h.update(rel.encode() + b"\0" + file_hash.encode() + b"\n")
    return h.hexdigest()


def repo_env_var(name: str) -> str:
    return f"PAICLI_BLIND_{name.upper()}_REPO"


def prepare(name: str, dest: Path, repo: str | None) -> tuple[int, str]:
    """(exit code, message). Replaces DEST/<dest_prefix or the listed files>."""
    src = load_source(name)
    repo = repo or os.environ.get(repo_env_var(name))
    hint = (f"clone {src['repo']} at {src['commit'][:12]} and pass --repo DIR "
            f"(or set {repo_env_var(name)})")
    if not repo or not Path(repo).is_dir():
        return ABSENT, f"source of {name} absent: {hint}"
    done = subprocess.run(["git", "-C", repo, "archive", "--format=tar", src["commit"], "--",
                           *src["files"]], capture_output=True)
    if done.returncode != 0:
        err = done.stderr.decode(errors="replace").strip().splitlines()[:1]
        return ABSENT, f"{repo} cannot give commit {src['commit'][:12]} of {name} ({err}): {hint}"
    prefix = src["dest_prefix"]
    top = dest / prefix.split("/")[0] if prefix else None
    if top is not None:
        shutil.rmtree(top, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            out = dest / (prefix + member.name)
            out.parent.mkdir(parents=True, exist_ok=True)
            extracted = tar.extractfile(member)
            assert extracted is not None
            out.write_bytes(extracted.read())
    listed = [prefix + f for f in src["files"]]
    missing = [p for p in listed if not (dest / p).is_file()]
    if missing:
        return MISMATCH, f"{name}: {len(missing)} listed files missing after extraction"
    got = digest(dest, listed)
    if got != src["sha256"]:
        return MISMATCH, f"{name}: extracted files differ from the pinned digest ({got[:12]})"
    return 0, f"prepared {len(listed)} files of {name} ({src['commit'][:12]}) in {dest}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("set", choices=sets())
    ap.add_argument("dest")
    ap.add_argument("--repo", help="a clone or bare mirror of the set's repository")
    a = ap.parse_args(argv)
    code, message = prepare(a.set, Path(a.dest), a.repo)
    print(message, file=sys.stderr if code else sys.stdout)
    return code


if __name__ == "__main__":
    sys.exit(main())
