"""Reading the project's own scripts for the command guard (behaviour §16).

A command that runs a file of the project (``./build.sh``, ``bash build.sh``,
``python tool.py``, ``make``, ``npm run x``, ``cargo run``) is only as local as that file. This
module finds and reads such files, within one budget per command line, and says why when it
cannot: a file outside the project, missing, not a regular file, binary (a compiled program
cannot be read), too large, or beyond the budget. The caller counts every such case as
external. What a file *does* is judged by :mod:`shell`; here only text is found.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass, field

MAX_FILE_BYTES = 512_000
MAX_TOTAL_BYTES = 4_000_000
MAX_FILES = 400
_SKIPPED_DIRS = frozenset({".git", "target", "node_modules", ".venv", "venv", "__pycache__",
                           "vendor", ".paicli"})


class Unreadable(Exception):
    """The file a command runs cannot be read, so the command cannot be shown local."""


@dataclass
class ProjectFiles:
    """The project's files as one command line's classification may read them: one budget,
    and what the line writes (a script written by the same line is never trusted)."""

    root: str | None
    read_bytes: int = 0
    read_files: int = 0
    written: set[str] = field(default_factory=set)
    tree_changed: bool = False
    """The line checks out, patches or unpacks files: no file of the project can be trusted
    to hold, when the script runs, what it holds now."""

    def __post_init__(self) -> None:
        if self.root is not None:
            self.root = os.path.realpath(self.root)

    def locate(self, cwd: str | None, name: str) -> str:
        """The real path of ``name`` (as the command wrote it, from ``cwd``) inside the
        project; Unreadable when it is elsewhere or the directory is not known."""
        if self.root is None:
            raise Unreadable(f"{name} is a file no project was given to read it from")
        if cwd is None:
            raise Unreadable(f"{name} runs in a directory that cannot be known from the text")
        if "$" in name or "`" in name or "*" in name or "?" in name:
            raise Unreadable(f"{name[:60]} names a file that cannot be known from the text")
        path = os.path.realpath(os.path.join(cwd, os.path.expanduser(name)))
        if not self.inside(path):
            raise Unreadable(f"{name} is outside the project")
        return path

    def inside(self, path: str) -> bool:
        return self.root is not None and (path == self.root
                                          or path.startswith(self.root + os.sep))

    def note_written(self, cwd: str | None, name: str) -> None:
        if cwd is not None and "$" not in name:
            self.written.add(os.path.realpath(os.path.join(cwd, os.path.expanduser(name))))

    def read(self, path: str, shown: str) -> str:
        """The text of the project file at ``path`` (``shown`` names it in reasons)."""
        if self.tree_changed and f"{os.sep}.git{os.sep}" not in path:  # (checkouts and
            # patches change the work tree, not the repository's own configuration)
            raise Unreadable(f"the same command line changes the project's files before "
                             f"{shown} runs")
        if path in self.written:
            raise Unreadable(f"the same command line writes {shown}, which it then runs")
        try:
            info = os.stat(path)
        except OSError:
            raise Unreadable(f"{shown} does not exist (yet), so what it does cannot be "
                             f"read") from None
        if not stat.S_ISREG(info.st_mode):
            raise Unreadable(f"{shown} is not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            raise Unreadable(f"{shown} is too large to read ({info.st_size:,} bytes)")
        self.read_files += 1
        self.read_bytes += info.st_size
        if self.read_files > MAX_FILES or self.read_bytes > MAX_TOTAL_BYTES:
            raise Unreadable(f"{shown} needs more files read than the guard reads for one "
                             "command")
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise Unreadable(f"{shown} cannot be read ({exc.strerror})") from None
        if b"\x00" in data[:8192]:
            raise Unreadable(f"{shown} is a compiled program; what it does cannot be read")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise Unreadable(f"{shown} is not text; what it does cannot be read") from None

    def find_up(self, cwd: str | None, names: tuple[str, ...]) -> str:
        """The nearest of ``names`` in ``cwd`` or a folder above it, inside the project (the
        way npm finds package.json and cargo finds Cargo.toml)."""
        here = self.locate(cwd, ".")
        while True:
            for name in names:
                candidate = os.path.join(here, name)
                if os.path.isfile(candidate):
                    return candidate
            if here == self.root:
                raise Unreadable(f"no {' or '.join(names)} in the project to read")
            here = os.path.dirname(here)

    def sources(self, top: str, suffixes: tuple[str, ...]) -> list[tuple[str, str]]:
        """Every ``suffixes`` file under ``top`` (build outputs and dependencies skipped) as
        (shown name, text), within the budget."""
        found: list[tuple[str, str]] = []
        for folder, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS)
            for name in sorted(files):
                if name.endswith(suffixes):
                    path = os.path.join(folder, name)
                    shown = os.path.relpath(path, self.root or top)
                    real = os.path.realpath(path)
                    if not self.inside(real):
                        raise Unreadable(f"{shown} is outside the project")
                    found.append((shown, self.read(real, shown)))
        return found


# -- scripts ---------------------------------------------------------------------------------
_SHEBANG = re.compile(r"^#!\s*(\S+)(?:[ \t]+(.*))?")
_EXTENSION_KINDS = {".sh": "sh", ".bash": "bash", ".zsh": "zsh", ".ksh": "ksh",
                    ".py": "python3", ".pyw": "python3", ".js": "node", ".mjs": "node",
                    ".cjs": "node", ".ts": "node", ".rb": "ruby", ".pl": "perl",
                    ".php": "php", ".lua": "lua", ".r": "Rscript", ".jl": "julia"}


def interpreter_of(path: str, text: str) -> str:
    """The program that runs the script ``path`` when it is executed directly: from its
    ``#!`` line (``/usr/bin/env python3`` → ``python3``); without one the shell runs it."""
    match = _SHEBANG.match(text)
    if match:
        program, rest = os.path.basename(match.group(1)), (match.group(2) or "").split()
        if program == "env":
            rest = [word for word in rest if not word.startswith("-")]
            return os.path.basename(rest[0]) if rest else ""
        return program
    return _EXTENSION_KINDS.get(os.path.splitext(path)[1].lower(), "sh")


# -- Python and JavaScript: the project modules a script loads ------------------------------
# The module is dots, then a name that starts with a letter: written `\.*[\w.]*`, a line of
# `from` and a run of dots split the run between the two every way (20,000 dots: 5 s). The
# blanks around it are one atomic group: around an empty module, `from`, a run of blanks and
# no `import` split the blanks between its two separators every way (8,000: 0.13 s).
_PY_IMPORT = re.compile(r"^[ \t]*(?:from(?>[ \t]+(\.*(?:\w[\w.]*)?)[ \t]+)import[ \t]+"
                        r"([\w., \t()*]+)|import[ \t]+([\w., \t]+))", re.MULTILINE)
_JS_IMPORT = re.compile(r"""(?:require\s*\(|import\s*\(|from)\s*['"](\.{1,2}/[^'"]+)['"]""")
_JS_SUFFIXES = ("", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", "/index.js", "/index.ts")


def python_imports(files: ProjectFiles, script: str, text: str) -> list[str]:
    """The project files among the modules ``script`` imports (stdlib and installed
    packages are not project files; what they are is judged by name)."""
    here = os.path.dirname(script)
    bases = [here] + [b for b in (files.root, os.path.join(files.root or "", "src"))
                      if b and b != here]
    found: list[str] = []
    for match in _PY_IMPORT.finditer(text):
        if match.group(3) is not None:
            names = [n.split(" as ")[0].strip() for n in match.group(3).split(",")]
            modules = [n for n in names if n]
        else:
            module = match.group(1)
            dots = len(module) - len(module.lstrip("."))
            members = [n.split(" as ")[0].strip(" \t()") for n in match.group(2).split(",")]
            root_dirs = [here] if dots else bases
            for _ in range(max(dots - 1, 0)):
                root_dirs = [os.path.dirname(d) for d in root_dirs]
            stem = module.lstrip(".")
            modules = [stem] if stem else []
            modules += [f"{stem}.{m}" if stem else m for m in members if m and m != "*"]
            found += _python_files(root_dirs, modules)
            continue
        found += _python_files(bases, modules)
    return [path for path in dict.fromkeys(found) if files.inside(os.path.realpath(path))]


def _python_files(bases: list[str], modules: list[str]) -> list[str]:
    found: list[str] = []
    for module in modules:
        parts = module.split(".")
        for base in bases:
            for depth in range(1, len(parts) + 1):
                stem = os.path.join(base, *parts[:depth])
                for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
                    if os.path.isfile(candidate):
                        found.append(candidate)
    return found


def javascript_imports(script: str, text: str) -> list[str]:
    """The project files a JavaScript/TypeScript file loads by a relative path."""
    here = os.path.dirname(script)
    found: list[str] = []
    for match in _JS_IMPORT.finditer(text):
        for suffix in _JS_SUFFIXES:
            candidate = os.path.normpath(os.path.join(here, match.group(1) + suffix))
            if os.path.isfile(candidate):
                found.append(candidate)
                break
    return found


# -- package.json scripts ---------------------------------------------------------------------
# a line's leading blanks, not the line breaks after it: `^\s*` took every blank line after
# each line start (a planted .npmrc of 12,000 blank lines: 12 s)
_NPM_RUNS = re.compile(r"(?im)^[^\S\n]*(script-shell|node-options|onload-script|shell|"
                       r"yarn-path|yarnPath)\s*[=:]")


def package_scripts(files: ProjectFiles, cwd: str | None, name: str) -> tuple[str, list[str]]:
    """The directory and the command lines ``npm run name`` runs there (``prename``, the
    script, ``postname``) from the nearest package.json. A project configuration that
    chooses the shell, node options or the package manager's own program (``.npmrc``
    ``script-shell``, ``.yarnrc.yml`` ``yarnPath``) cannot be shown local."""
    path = files.find_up(cwd, ("package.json",))
    for folder in dict.fromkeys((os.path.dirname(path), files.root or "")):
        for config in (".npmrc", ".yarnrc", ".yarnrc.yml"):
            candidate = os.path.join(folder, config)
            if os.path.isfile(candidate):
                found = _NPM_RUNS.search(files.read(candidate, config))
                if found:
                    raise Unreadable(f"{config} sets {found.group(1)}, which chooses what "
                                     "runs")
    try:
        scripts = json.loads(files.read(path, "package.json")).get("scripts") or {}
    except (ValueError, AttributeError, RecursionError):
        raise Unreadable("package.json cannot be read as JSON") from None
    if not isinstance(scripts, dict) or not isinstance(scripts.get(name), str):
        raise Unreadable(f"package.json defines no script {name!r}")
    lines = [scripts[key] for key in (f"pre{name}", name, f"post{name}")
             if isinstance(scripts.get(key), str)]
    return os.path.dirname(path), lines
