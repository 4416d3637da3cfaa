#!/usr/bin/env python3
"""Check a blind set's questions.json against its prepared corpus.

usage: python benchmarks/blind_sets/verify_targets.py SET PROJECT_DIR [--tool]

Without the product, for every target it checks that

- the file is one of the set's pinned files and exists under PROJECT_DIR;
- ``start_line`` declares the target (TypeScript and JavaScript: ``function name``, a method
  ``name(`` or ``constructor(``, JavaScript also ``const name = ...``; Go: ``func name(`` or
  ``func (recv) name(``; Java: annotations, then modifiers, type parameters and return type
  before ``name(``, also when the name opens the next line, a constructor being named after
  its class); TypeScript overload signatures right above the implementation belong to it;
- the declaration's braces close exactly on ``end_line`` (comments, strings, template and
  raw-string literals ignored): the nesting depth is above zero on the line before
  ``end_line``, zero after it, and never negative;
- the question does not contain the target's simple name;

and that the set has as many EN as ZH questions (``per_lang`` in source.json, 15 unless
given), unique ids, ids matching their language and
no target shared by two questions. With ``--tool`` it also checks that paicli-tui's chunker
has a chunk of that name at that range. Exit 0 when everything holds, 1 otherwise, 2 when
PROJECT_DIR lacks the corpus.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUOTES = "\"'`"


REGEX_BEFORE = "(,=:[!&|?{};+-*%<>~^"
REGEX_AFTER_WORDS = ("return", "typeof", "case", "in", "of", "yield", "await", "void")


def starts_regex(before: str) -> bool:
    """Whether a ``/`` after `before` opens a regular-expression literal (JavaScript and
    TypeScript; after a value such as ``a`` or ``)`` it is a division)."""
    text = before.rstrip()
    if not text or text[-1] in REGEX_BEFORE:
        return True
    word = re.search(r"[A-Za-z_$][\w$]*$", text)
    return word is not None and word.group(0) in REGEX_AFTER_WORDS


def end_of_regex(line: str, i: int) -> int:
    """The index after the regular-expression literal starting at ``line[i] == "/"`` (escapes
    and ``[...]`` classes, where a ``/`` does not end it, respected; flags are left as code)."""
    j, in_class = i + 1, False
    while j < len(line):
        ch = line[j]
        if ch == "\\":
            j += 2
            continue
        if ch == "[":
            in_class = True
        elif ch == "]":
            in_class = False
        elif ch == "/" and not in_class:
            return j + 1
        j += 1
    return j


def strip_code(line: str, state: str | None, lang: str = "ts") -> tuple[str, str | None]:
    """The code of a line without comments and literals (regular-expression literals too in
    TypeScript and JavaScript), and the open multi-line construct (``/*`` or a backtick) it
    ends in, if any."""
    out: list[str] = []
    i = 0
    while i < len(line):
        if state == "/*":
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), state
            i, state = end + 2, None
            continue
        if state == "`":
            end = line.find("`", i)
            if end < 0:
                return "".join(out), state
            i, state = end + 1, None
            continue
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            state, i = "/*", i + 2
            continue
        ch = line[i]
        if ch == "`":
            state, i = "`", i + 1
            continue
        if ch == "/" and lang in ("ts", "js") and starts_regex(line[:i]):
            i = end_of_regex(line, i)
            continue
        if ch in QUOTES:
            j = i + 1
            while j < len(line) and line[j] != ch:
                j += 2 if line[j] == "\\" else 1
            i = j + 1
            continue
        out.append(ch)
        i += 1
    return "".join(out), state


LANGS = {".go": "go", ".ts": "ts", ".js": "js", ".java": "java"}
NOT_A_TYPE = ("return", "new", "throw", "else", "case")


def language(path: str) -> str:
    """The verifier's language of a pinned file, by its extension."""
    return LANGS[Path(path).suffix]


def declares_java(line: str, simple: str) -> bool:
    """Whether `line` is a Java method or constructor declaration of `simple` (modifiers, type
    parameters and return type before the name; a call or a ``new`` is not one)."""
    m = re.match(r"\s*((?:[\w$.<>\[\]?,]+(?:<[^()]*>)?\s+)*)" + re.escape(simple) + r"\s*\(", line)
    if m is None:
        return False
    words = m.group(1).split()
    return not any(w in NOT_A_TYPE for w in words) and not line.rstrip().endswith(";")


def declares_java_split(lines: list[str], start: int, simple: str) -> bool:
    """Whether line `start` holds only the modifiers and return type of a Java declaration of
    `simple` whose name opens the next line (``static <V> Set<V>`` / ``extract(...)``)."""
    head, name_line = lines[start - 1].strip(), lines[start].strip()
    return (bool(head) and not head.endswith((";", "{", ")", ","))
            and name_line.startswith(simple) and declares_java(head + " " + name_line, simple))


def declares(line: str, simple: str, lang: str) -> bool:
    """Whether `line` starts the declaration of `simple`."""
    name = re.escape(simple)
    if lang == "go":
        return re.match(r"\s*func\s+(?:\([^)]*\)\s*)?" + name + r"\s*[(\[]", line) is not None
    if lang == "java":
        return declares_java(line, simple)
    if lang == "js" and re.match(r"\s*(?:export\s+)?(?:const|let|var)\s+" + name + r"\s*=", line):
        return True
    if simple == "constructor":
        return re.match(r"\s*constructor\s*\(", line) is not None
    return re.match(
        r"\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\s*\*?\s*)?"
        r"(?:(?:public|private|protected|static|readonly|override|async|get|set)\s+)*"
        + "#?" + name + r"\s*[(<]", line) is not None


def past_overloads(lines: list[str], simple: str, start: int, end: int, lang: str) -> int:
    """The implementation's line when `start` is a TypeScript overload signature of `simple`
    (a declaration without a body, followed by another declaration of it); else `start`."""
    while (lang in ("ts", "js") and start < end and "{" not in lines[start - 1]
           and declares(lines[start - 1], simple, lang) and declares(lines[start], simple, lang)):
        start += 1
    return start


def check_range(lines: list[str], simple: str, start: int, end: int, lang: str) -> str | None:
    """None when [start, end] is exactly one declaration of `simple`, else the problem."""
    if not (1 <= start <= end <= len(lines)):
        return f"range {start}-{end} outside the file ({len(lines)} lines)"
    if lang == "java":
        if start > 1 and lines[start - 2].strip().startswith("@"):
            return f"the annotation on line {start - 1} belongs to the declaration"
        if start > 1 and declares_java_split(lines, start - 1, simple):
            return f"the return type on line {start - 1} belongs to the declaration"
        start = skip_annotations(lines, start, end)
    if not declares(lines[start - 1], simple, lang) and not (
            lang == "java" and start < end and declares_java_split(lines, start, simple)):
        return f"line {start} does not declare {simple}: {lines[start - 1].strip()[:80]!r}"
    depth, state = 0, None
    for n in range(start - 1, end):
        code, state = strip_code(lines[n], state, lang)
        for ch in code:
            depth += {"{": 1, "}": -1}.get(ch, 0)
            if depth < 0:
                return f"a brace closes below the declaration on line {n + 1}"
        if n == end - 2 and depth == 0:
            return f"the declaration is closed before end_line {end} (line {n + 1})"
    if depth != 0:
        return f"braces still open ({depth}) at end_line {end}"
    return None


def skip_annotations(lines: list[str], start: int, end: int) -> int:
    """The first line at or after `start` that is not part of a Java annotation (annotations,
    also ones whose parentheses span lines, belong to the declaration that follows)."""
    depth = 0
    while start < end:
        code, _ = strip_code(lines[start - 1], None, "java")
        if depth == 0 and not code.lstrip().startswith("@"):
            break
        depth += code.count("(") - code.count(")")
        start += 1
    return start


def check_with_tool(root: Path, path: str, name: str, start: int, end: int) -> str | None:
    """None when paicli-tui's chunker has a chunk called `name` at exactly [start, end]."""
    from paicli_tui.core.code.chunking import chunk_file

    chunks = chunk_file(path, (root / path).read_text(encoding="utf-8")).chunks
    same = [c for c in chunks if c.name.split("(")[0] == name]
    if any((c.start_line, c.end_line) == (start, end) for c in same):
        return None
    found = ", ".join(f"{c.start_line}-{c.end_line}" for c in same) or "none"
    return f"tool chunks named {name}: {found}"


def verify_questions(doc: dict, source: dict, lang: str) -> list[str]:
    """Problems of the question file itself (no corpus needed)."""
    qs = doc["questions"]
    problems: list[str] = []
    ids = [q["id"] for q in qs]
    if len(set(ids)) != len(ids):
        problems.append("set: duplicate ids")
    want = source.get("per_lang", 15)
    for ql in ("en", "zh"):
        n = sum(q["lang"] == ql for q in qs)
        if n != want:
            problems.append(f"set: {n} {ql} questions, want {want}")
    pinned = {source["dest_prefix"] + f for f in source["files"]}
    seen: dict[tuple[str, int], str] = {}
    for q in qs:
        if q["kind"] not in ("semantic", "near-keyword"):
            problems.append(f"{q['id']}: bad kind {q['kind']!r}")
        if not q["id"].startswith(q["lang"]):
            problems.append(f"{q['id']}: id does not match lang {q['lang']}")
        if q["lang"] == "zh" and not re.search(r"[\u4e00-\u9fff]", q["question"]):
            problems.append(f"{q['id']}: a zh question without Chinese")
        for t in q["targets"]:
            key = (t["path"], t["start_line"])
            if key in seen:
                problems.append(f"{q['id']}: target {t['name']} also in {seen[key]}")
            seen[key] = q["id"]
            if t["path"] not in pinned:
                problems.append(f"{q['id']}: {t['path']} is not a pinned file")
            simple = t["name"].rsplit(".", 1)[-1].lstrip("#")
            if simple != "constructor" and re.search(
                    r"(?i)(?<![A-Za-z0-9_])" + re.escape(simple) + r"(?![A-Za-z0-9_])",
                    q["question"]):
                problems.append(f"{q['id']}: question contains the name {simple}")
    return problems


def verify(name: str, root: Path, use_tool: bool) -> list[str]:
    """Every problem found, as 'id: message' lines (empty when the set is sound)."""
    doc = json.loads((HERE / name / "questions.json").read_text(encoding="utf-8"))
    source = json.loads((HERE / name / "source.json").read_text(encoding="utf-8"))
    lang = language(source["files"][0])
    problems = verify_questions(doc, source, lang)
    for q in doc["questions"]:
        for t in q["targets"]:
            file = root / t["path"]
            if not file.is_file():
                problems.append(f"{q['id']}: missing file {t['path']}")
                continue
            lines = file.read_text(encoding="utf-8").splitlines()
            simple = t["name"].rsplit(".", 1)[-1].lstrip("#")
            start = past_overloads(lines, simple, t["start_line"], t["end_line"], lang)
            err = check_range(lines, simple, start, t["end_line"], lang)
            if err:
                problems.append(f"{q['id']}: {t['path']} {t['name']}: {err}")
            if use_tool:
                err = check_with_tool(root, t["path"], t["name"], t["start_line"], t["end_line"])
                if err:
                    problems.append(f"{q['id']}: {t['path']}: {err}")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("set", choices=sorted(p.parent.name for p in HERE.glob("*/source.json")))
    ap.add_argument("project_dir")
    ap.add_argument("--tool", action="store_true", help="also compare with paicli-tui's chunker")
    a = ap.parse_args(argv)
    root = Path(a.project_dir)
    source = json.loads((HERE / a.set / "source.json").read_text(encoding="utf-8"))
    if not (root / (source["dest_prefix"] + source["files"][0])).is_file():
        print(f"no corpus of {a.set} in {root}: run prepare.py {a.set} {root} first",
              file=sys.stderr)
        return 2
    problems = verify(a.set, root, a.tool)
    for p in problems:
        print(p)
    n = len(json.loads((HERE / a.set / "questions.json").read_text(encoding="utf-8"))["questions"])
    print(f"{a.set}: {n} questions checked: {'OK' if not problems else f'{len(problems)} problem(s)'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
