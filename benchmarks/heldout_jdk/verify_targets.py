#!/usr/bin/env python3
"""Check questions.json of the held-out JDK set against a prepared corpus.

usage: python benchmarks/heldout_jdk/verify_targets.py PROJECT_DIR [--questions FILE] [--tool]

PROJECT_DIR is the folder made by ``prepare.sh`` (it holds ``java/``). For every target it
checks, without using the product, that

- the file exists;
- the range starts at the declaration (annotations allowed before it): the first code line
  names the target's simple name followed by ``(`` (for a constructor, its class name);
- the body's braces open on the declaration and close exactly on ``end_line``;
- the question does not contain the target's simple name.

and that the set has 15 EN + 15 ZH questions, unique ids and no target shared by two
questions. With ``--tool`` it also chunks each target file with paicli-tui's own Java chunker
and checks that a method chunk with the same name and line range exists (so the targets match
what ``paicli-tui search`` returns). Exit 0 when everything holds, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _strip_code(line: str, in_block: bool) -> tuple[str, bool]:
    """The line without comments, string and char literals; whether a /* */ is still open."""
    out: list[str] = []
    i = 0
    while i < len(line):
        if in_block:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i, in_block = end + 2, False
            continue
        ch = line[i]
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            in_block, i = True, i + 2
            continue
        if ch in "\"'":
            j = i + 1
            while j < len(line) and line[j] != ch:
                j += 2 if line[j] == "\\" else 1
            i = j + 1
            continue
        out.append(ch)
        i += 1
    return "".join(out), in_block


def check_range(lines: list[str], simple: str, start: int, end: int) -> str | None:
    """None when [start, end] is exactly one declaration of `simple`, else the problem."""
    if not (1 <= start <= end <= len(lines)):
        return f"range {start}-{end} outside the file ({len(lines)} lines)"
    i = start - 1
    while i < end and lines[i].strip().startswith("@"):
        i += 1  # annotations belong to the declaration
    if not re.search(r"\b" + re.escape(simple) + r"\s*\(", " ".join(lines[i:i + 4])):
        return f"line {i + 1} does not declare {simple}(: {lines[i].strip()[:80]!r}"
    depth, opened, in_block = 0, False, False
    for n in range(i, end):
        code, in_block = _strip_code(lines[n], in_block)
        for ch in code:
            if ch == "{":
                depth, opened = depth + 1, True
            elif ch == "}":
                depth -= 1
                if opened and depth == 0 and n + 1 != end:
                    return f"body closes on line {n + 1}, not on end_line {end}"
    if not opened or depth != 0:
        return f"braces do not balance between {start} and {end}"
    return None


def check_with_tool(root: Path, path: str, name: str, start: int, end: int) -> str | None:
    """None when paicli-tui's chunker has a method chunk `name(...)` at exactly [start, end]."""
    from paicli_tui.core.code.chunking import chunk_file

    chunks = chunk_file(path, (root / path).read_text(encoding="utf-8")).chunks
    same = [c for c in chunks if c.kind == "method" and c.name.split("(")[0] == name]
    if any((c.start_line, c.end_line) == (start, end) for c in same):
        return None
    found = ", ".join(f"{c.start_line}-{c.end_line}" for c in same) or "none"
    return f"tool chunks named {name}: {found}"


def verify(root: Path, questions_file: Path, use_tool: bool) -> list[str]:
    """Every problem found, as 'id: message' lines (empty when the set is sound)."""
    doc = json.loads(questions_file.read_text(encoding="utf-8"))
    qs = doc["questions"]
    problems: list[str] = []
    ids = [q["id"] for q in qs]
    if len(set(ids)) != len(ids):
        problems.append("set: duplicate ids")
    for lang in ("en", "zh"):
        n = sum(q["lang"] == lang for q in qs)
        if n != 15:
            problems.append(f"set: {n} {lang} questions, want 15")
    seen: dict[tuple[str, str, int], str] = {}
    for q in qs:
        if q["kind"] not in ("semantic", "near-keyword"):
            problems.append(f"{q['id']}: bad kind {q['kind']!r}")
        if not q["id"].startswith(q["lang"]):
            problems.append(f"{q['id']}: id does not match lang {q['lang']}")
        for t in q["targets"]:
            key = (t["path"], t["name"], t["start_line"])
            if key in seen:
                problems.append(f"{q['id']}: target {t['name']} also in {seen[key]}")
            seen[key] = q["id"]
            simple = t["name"].rsplit(".", 1)[-1]
            if re.search(r"(?i)\b" + re.escape(simple) + r"\b", q["question"]):
                problems.append(f"{q['id']}: question contains the name {simple}")
            file = root / t["path"]
            if not file.is_file():
                problems.append(f"{q['id']}: missing file {t['path']}")
                continue
            lines = file.read_text(encoding="utf-8").splitlines()
            err = check_range(lines, simple, t["start_line"], t["end_line"])
            if err:
                problems.append(f"{q['id']}: {t['path']} {t['name']}: {err}")
            if use_tool:
                err = check_with_tool(root, t["path"], t["name"], t["start_line"], t["end_line"])
                if err:
                    problems.append(f"{q['id']}: {t['path']}: {err}")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("project_dir")
    ap.add_argument("--questions", default=str(HERE / "questions.json"))
    ap.add_argument("--tool", action="store_true", help="also compare with paicli-tui's chunker")
    a = ap.parse_args(argv)
    root = Path(a.project_dir)
    if not (root / "java").is_dir():
        print(f"no {root}/java: run prepare.sh {root} first", file=sys.stderr)
        return 2
    problems = verify(root, Path(a.questions), a.tool)
    for p in problems:
        print(p)
    n = len(json.loads(Path(a.questions).read_text(encoding="utf-8"))["questions"])
    print(f"{n} questions checked: {'OK' if not problems else f'{len(problems)} problem(s)'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
