"""``/init``: a first PAI.md drafted from what the project itself shows.

No model is asked: the draft lists facts read from the files — languages by file count, the
build and test commands that the project's own config files define, the top-level layout,
and conventions written in config (line length, indentation, linters, type checking). The
person reviews and edits it before anything is written, and an existing PAI.md is never
overwritten.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections import Counter
from pathlib import Path

from ...regular_files import read_regular_text

LANGUAGES = {
    ".py": "Python", ".ts": "TypeScript", ".tsx": "TypeScript", ".js": "JavaScript",
    ".jsx": "JavaScript", ".mjs": "JavaScript", ".go": "Go", ".java": "Java", ".kt": "Kotlin",
    ".rs": "Rust", ".rb": "Ruby", ".php": "PHP", ".cs": "C#", ".c": "C", ".h": "C/C++",
    ".cpp": "C++", ".cc": "C++", ".swift": "Swift", ".scala": "Scala", ".vue": "Vue",
    ".sql": "SQL", ".sh": "Shell",
}
SKIPPED_DIRS = {".git", ".paicli", "node_modules", ".venv", "venv", "__pycache__", "dist",
                "build", "target", ".idea", ".vscode", ".mypy_cache", ".pytest_cache", "vendor"}
MAX_FILES = 20_000
MAKE_TARGET = re.compile(r"^([A-Za-z][\w-]*)\s*:(?!=)", re.MULTILINE)


def _count_languages(root: Path) -> Counter[str]:
    counts: Counter[str] = Counter()
    seen = 0
    for _folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.startswith(".")]
        for name in files:
            language = LANGUAGES.get(os.path.splitext(name)[1].lower())
            if language:
                counts[language] += 1
            seen += 1
            if seen >= MAX_FILES:
                return counts
    return counts


def _read(path: Path) -> str:
    try:  # a build file is short; a FIFO or a sparse giant in its place is not read
        return read_regular_text(path, 1_000_000)[0]
    except OSError:
        return ""


def _python(root: Path, commands: list[str], conventions: list[str]) -> None:
    text = _read(root / "pyproject.toml")
    if not text:
        return
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):  # an array nested 100,000 deep
        return
    tool = data.get("tool", {}) if isinstance(data.get("tool"), dict) else {}
    extras = data.get("project", {}).get("optional-dependencies", {}) \
        if isinstance(data.get("project"), dict) else {}
    extra = next((e for e in ("test", "tests", "dev") if e in extras), None)
    commands.append(f"Install: `pip install -e '.[{extra}]'`" if extra
                    else "Install: `pip install -e .`")
    if "pytest" in tool or "pytest" in text:
        commands.append("Test: `pytest -q`")
    ruff = tool.get("ruff")
    if isinstance(ruff, dict):
        commands.append("Lint: `ruff check .`")
        if "line-length" in ruff:
            conventions.append(f"Python lines at most {ruff['line-length']} characters (ruff).")
    if "mypy" in tool:
        commands.append("Types: `mypy .`")
    if isinstance(tool.get("black"), dict) and "line-length" in tool["black"]:
        conventions.append(f"Formatted with black, lines at most "
                           f"{tool['black']['line-length']}.")


def _node(root: Path, commands: list[str], conventions: list[str]) -> None:
    text = _read(root / "package.json")
    if not text:
        return
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return
    manager = ("pnpm" if (root / "pnpm-lock.yaml").exists() else
               "yarn" if (root / "yarn.lock").exists() else
               "bun" if (root / "bun.lockb").exists() else "npm")
    commands.append(f"Install: `{manager} install`")
    scripts = data.get("scripts") if isinstance(data.get("scripts"), dict) else {}
    for name in ("build", "test", "lint", "typecheck", "format"):
        if name in scripts:
            run = f"{manager} test" if name == "test" else f"{manager} run {name}"
            commands.append(f"{name.capitalize()}: `{run}`")
    if manager != "npm":
        conventions.append(f"Use {manager}, not npm (the lock file is {manager}'s).")
    tsconfig = _read(root / "tsconfig.json")
    if re.search(r'"strict"\s*:\s*true', tsconfig):
        conventions.append("TypeScript in strict mode.")


def _others(root: Path, commands: list[str], conventions: list[str]) -> None:
    if (root / "go.mod").exists():
        commands += ["Build: `go build ./...`", "Test: `go test ./...`"]
    if (root / "Cargo.toml").exists():
        commands += ["Build: `cargo build`", "Test: `cargo test`"]
    if (root / "pom.xml").exists():
        commands += ["Build: `mvn -q package`", "Test: `mvn -q test`"]
    elif any((root / n).exists() for n in ("build.gradle", "build.gradle.kts")):
        wrapper = "./gradlew" if (root / "gradlew").exists() else "gradle"
        commands += [f"Build: `{wrapper} build`", f"Test: `{wrapper} test`"]
    makefile = _read(root / "Makefile")
    targets = [t for t in MAKE_TARGET.findall(makefile) if t not in (".PHONY",)]
    if targets:
        commands.append("Make targets: " + ", ".join(f"`make {t}`" for t in targets[:8]))
    editorconfig = _read(root / ".editorconfig")
    style = re.search(r"indent_style\s*=\s*(\w+)", editorconfig)
    size = re.search(r"indent_size\s*=\s*(\d+)", editorconfig)
    if style:
        conventions.append(f"Indent with {style.group(1)}"
                           + (f", {size.group(1)} wide" if size else "") + " (.editorconfig).")
    for name, what in ((".prettierrc", "Prettier"), (".eslintrc.json", "ESLint"),
                       ("eslint.config.js", "ESLint"), (".pre-commit-config.yaml", "pre-commit")):
        if (root / name).exists():
            conventions.append(f"{what} is configured ({name}); keep its checks passing.")


def draft_rules(project_root: Path) -> str:
    """The draft PAI.md text for ``project_root``."""
    root = Path(project_root)
    languages = _count_languages(root)
    commands: list[str] = []
    conventions: list[str] = []
    _python(root, commands, conventions)
    _node(root, commands, conventions)
    _others(root, commands, conventions)
    layout = sorted(p.name for p in root.iterdir()
                    if p.is_dir() and p.name not in SKIPPED_DIRS and not p.name.startswith("."))
    lines = [f"# {root.name}", "",
             "Project rules for coding agents (drafted by /init from the project's files: "
             "check and complete it).", ""]
    lines.append("## Languages")
    if languages:
        lines += [f"- {name} ({count} files)" for name, count in languages.most_common(6)]
    else:
        lines.append("- (no source files found)")
    lines += ["", "## Build and test"]
    lines += [f"- {c}" for c in commands] or ["- (no build or test configuration found)"]
    lines += ["", "## Layout"]
    lines += [f"- `{name}/`" for name in layout[:20]] or ["- (a flat project)"]
    lines += ["", "## Conventions"]
    lines += [f"- {c}" for c in conventions] or ["- (none found in config files)"]
    lines += ["- Run the tests before saying a change is done."]
    return "\n".join(lines) + "\n"
