"""grep_code: keyword or regex search over the project tree, ``path:line`` hits with context.

Two backends find the matching lines — ripgrep when it is on PATH, a Python scanner
otherwise — and one formatter turns them into text, so both give the same answer: same file
set (.gitignore honoured, .git/ and .paicli/ skipped, binary and huge files skipped), same
order (path, then line), same cap.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..text.fsnames import display_name
from .ignore import (
    ALWAYS_SKIPPED_DIRS,
    GIT_POINTER,
    MAX_FILE_BYTES,
    MAX_IGNORE_FILE_BYTES,
    git_excludes_files,
    is_binary_bytes,
    read_listed_file,
    walk_project_files,
)
from .patterns import GlobPattern, PatternError, ScanControl, SearchPattern

DEFAULT_MAX_MATCHES = 50
MAX_MATCHES_LIMIT = 500
MAX_CONTEXT = 10
MAX_LINE_CHARS = 400
"""Long (minified, generated) lines are cut so one hit cannot flood the result; a matching
line keeps the part around its first match (cut from its start, a match at column 50,000 of
a bundle was a hit the model could not see)."""


GrepError = PatternError
"""The pattern or a path argument cannot be used, or the pattern is too slow (message says
why)."""


@dataclass(frozen=True)
class GrepOptions:
    pattern: str
    regex: bool = True
    """False: the pattern is a literal string."""
    ignore_case: bool = False
    context: int = 2
    """Lines shown before and after every hit."""
    path: str = ""
    """Project-relative folder or file to search in ('' = the whole project)."""
    glob: str = ""
    """Only files whose path matches this glob (``*.java``, ``src/**/*.py``)."""
    max_matches: int = DEFAULT_MAX_MATCHES


@dataclass(frozen=True)
class GrepMatch:
    path: str
    line: int
    """1-based."""


@dataclass
class GrepResult:
    matches: list[GrepMatch]
    """Shown matches, sorted by path then line."""
    total: int
    """Matching lines found (may exceed ``len(matches)``)."""
    files: int
    """Files with at least one match."""
    backend: str
    text: str = ""
    lines: dict[str, list[str]] = field(default_factory=dict, repr=False)


def compile_pattern(options: GrepOptions) -> SearchPattern:
    """The options' pattern compiled for a time-bounded search, or GrepError with a clear
    message."""
    return SearchPattern(options.pattern, literal=not options.regex,
                         ignore_case=options.ignore_case)


def glob_matcher(pattern: str) -> GlobPattern | None:
    """Compiled matcher for an include glob; a glob without '/' matches the file name."""
    pattern = pattern.strip()
    if not pattern:
        return None
    return GlobPattern(pattern.lstrip("/"), anywhere="/" not in pattern)


def safe_relative(root: Path, path: str) -> str:
    """``path`` as a project-relative '/' path, refusing anything that leaves the project."""
    if not path or path in (".", "./"):
        return ""
    candidate = Path(path)
    full = candidate if candidate.is_absolute() else root / candidate
    resolved_root = root.resolve()
    try:
        rel = full.resolve().relative_to(resolved_root)
    except ValueError:
        raise GrepError(f"path {path!r} is outside the project") from None
    text = rel.as_posix()
    return "" if text == "." else text


def _read_text_file(full: Path) -> list[str] | None:
    """Lines of a searchable file, or None for binary / huge / unreadable files."""
    data = read_listed_file(full)
    if data is None or is_binary_bytes(data):
        return None
    text = data.decode("utf-8", errors="replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _python_backend(root: Path, options: GrepOptions, start: str, per_file_cap: int,
                    control: ScanControl) -> dict[str, list[int]]:
    pattern = compile_pattern(options)
    include = glob_matcher(options.glob)
    hits: dict[str, list[int]] = {}
    for rel in walk_project_files(root, start, control=control):
        control.check()
        if include is not None and not include.fullmatch(rel):
            continue
        lines = _read_text_file(root / rel)
        if lines is None:
            continue
        found: list[int] = []
        for number, line in enumerate(lines, 1):
            if pattern.search(line, control):
                found.append(number)
                if len(found) >= per_file_cap:
                    break
            if not number % 4096:
                control.check()
        if found:
            hits[rel] = found
    return hits


def ripgrep_path() -> str | None:
    """The ripgrep executable, when installed."""
    return shutil.which("rg")


HELPER_ENVIRONMENT = ("PATH", "HOME", "XDG_CONFIG_HOME", "USERPROFILE", "SYSTEMROOT")
"""All of this process's environment ripgrep gets: what it needs to find the person's global
gitignore. The rest holds the provider key, and a helper's ``/proc/<pid>/environ`` (unlike
the app's own, see ``private_process``) is readable by every process of the user meanwhile:
an MCP server or another worker's command polling for it."""


def helper_environment() -> dict[str, str]:
    env = {name: os.environ[name] for name in HELPER_ENVIRONMENT if name in os.environ}
    env["RIPGREP_CONFIG_PATH"] = ""  # the person's ripgrep config must not change results
    return env


def _run_cancellable(args: list[str], cwd: Path, control: ScanControl,
                     timeout_s: float = 120.0) -> tuple[int, bytes] | None:
    """(exit code, stdout) of a helper program, None when it failed to run or took too long;
    ScanCancelled (the program killed) when the turn is cancelled meanwhile."""
    import tempfile

    with tempfile.TemporaryFile() as out:
        try:
            proc = subprocess.Popen(args, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL,
                                    stdin=subprocess.DEVNULL,
                                    env=helper_environment())
        except OSError:
            return None
        waited = 0.0
        try:
            while True:
                try:
                    code = proc.wait(0.1)
                    break
                except subprocess.TimeoutExpired:
                    waited += 0.1
                    control.check()
                    if waited >= timeout_s or _opening_a_fifo(proc.pid):
                        return None
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        out.seek(0)
        return code, out.read()


def _opening_a_fifo(pid: int) -> bool:
    """Whether a thread of the program waits in the kernel for a FIFO's other end (Linux).

    ripgrep opens every .gitignore / .ignore it meets, and opening a FIFO planted under that
    name waits for a writer forever; the program is then stopped and the Python scanner
    (which never opens one) answers instead of waiting out the timeout.
    """
    try:
        threads = os.listdir(f"/proc/{pid}/task")
        return any(Path(f"/proc/{pid}/task/{thread}/wchan").read_text() == "wait_for_partner"
                   for thread in threads)
    except OSError:
        return False


def _ripgrep_backend(rg: str, root: Path, options: GrepOptions, start: str,
                     per_file_cap: int, control: ScanControl) -> dict[str, list[int]] | None:
    """Matches from ripgrep, or None when it cannot run this pattern (then Python scans)."""
    compile_pattern(options)  # same validation and error text as the Python scanner
    # plain "path NUL line:text" output parses several times faster than --json
    args = [rg, "--no-config", "--hidden", "--no-require-git", "--no-ignore-dot",
            "--no-ignore-exclude", "--no-ignore-global", "--no-ignore-parent",
            "--max-filesize", str(MAX_FILE_BYTES), "--max-count", str(per_file_cap),
            "--line-number", "--no-heading", "--null", "--color", "never"]
    # git's own excludes, found as the walk finds them (ripgrep's search for them knows
    # neither $GIT_CONFIG_GLOBAL nor a repository's config), lowest first as in git
    for excludes in git_excludes_files(root):
        if excludes.is_file():  # never a FIFO: ripgrep would wait on it
            if excludes.stat().st_size > MAX_IGNORE_FILE_BYTES:
                # the walk reads only its start, ripgrep would read it whole (a repository's
                # config can name any file): their answers would differ, so Python scans
                return None
            args += ["--ignore-file", str(excludes)]
    for name in sorted(ALWAYS_SKIPPED_DIRS):
        args += ["--glob", f"!{name}/"]
    args += ["--glob", f"!{GIT_POINTER}"]
    if options.ignore_case:
        args.append("--ignore-case")
    else:
        args.append("--case-sensitive")
    if not options.regex:
        args.append("--fixed-strings")
    args += ["--regexp", options.pattern, "--", start or "."]
    ran = _run_cancellable(args, root, control)
    if ran is None or ran[0] not in (0, 1):  # 2: regex rg cannot compile (look-around, ...)
        return None
    include = glob_matcher(options.glob)
    hits: dict[str, list[int]] = {}
    for raw in ran[1].splitlines():
        path_bytes, sep, rest = raw.partition(b"\0")
        if not sep:
            continue
        rel = os.fsdecode(path_bytes)  # any bytes: the same str the Python walk gives
        rel = rel[2:] if rel.startswith("./") else rel
        if include is not None and not include.fullmatch(rel):
            continue
        number = rest.split(b":", 1)[0]
        if number.isdigit():
            hits.setdefault(rel, []).append(int(number))
    return hits


def _format(root: Path, hits: dict[str, list[int]], options: GrepOptions,
            backend: str) -> GrepResult:
    cap = max(1, min(options.max_matches, MAX_MATCHES_LIMIT))
    context = max(0, min(options.context, MAX_CONTEXT))
    shown: list[GrepMatch] = []
    total = 0
    files = 0
    blocks: list[str] = []
    file_lines: dict[str, list[str]] = {}
    finder = _MatchFinder(options)
    for rel in sorted(hits):
        numbers = sorted(set(hits[rel]))
        room = cap - len(shown)
        if room <= 0:  # past the cap only the count matters: no need to read the file
            files += 1
            total += len(numbers)
            continue
        lines = _read_text_file(root / rel)
        if lines is None:  # binary past ripgrep's first buffer, or changed meanwhile
            continue
        files += 1
        total += len(numbers)
        numbers = numbers[:room]
        file_lines[rel] = lines
        shown.extend(GrepMatch(rel, n) for n in numbers)
        blocks.append(_render_file(rel, lines, set(numbers), context, finder))
    result = GrepResult(shown, total, files, backend, lines=file_lines)
    if not shown:
        result.text = f"No matches for {options.pattern!r}."
        return result
    text = "\n--\n".join(blocks)
    if total > len(shown):
        text += (f"\n[{total - len(shown)} more matching lines in {files} files not shown; "
                 "narrow the pattern, the path or the glob]")
    result.text = text
    return result


def _render_file(rel: str, lines: list[str], numbers: set[int], context: int,
                 finder: _MatchFinder) -> str:
    shown = display_name(rel)
    keep: set[int] = set()
    for n in numbers:
        keep.update(range(max(1, n - context), min(len(lines), n + context) + 1))
    out: list[str] = []
    previous = 0
    for n in sorted(keep):
        if previous and n > previous + 1:
            out.append("--")
        text = lines[n - 1]
        if len(text) > MAX_LINE_CHARS:
            text = _cut_line(text, finder.span(text) if n in numbers else None)
        sep = ":" if n in numbers else "-"
        out.append(f"{shown}{sep}{n}{sep}{text}")
        previous = n
    return "\n".join(out)


SPANS_BUDGET_S = 1.0
"""Time all the long lines of one result may spend finding where their match lies."""


class _MatchFinder:
    """Where the pattern first matches a line as Python reads it; None when it cannot say
    (a pattern only ripgrep compiles, or one too slow on these lines)."""

    def __init__(self, options: GrepOptions) -> None:
        try:
            self._pattern: SearchPattern | None = compile_pattern(options)
        except PatternError:
            self._pattern = None
        self._control = ScanControl(budget_s=SPANS_BUDGET_S)

    def span(self, line: str) -> tuple[int, int] | None:
        if self._pattern is None:
            return None
        try:
            return self._pattern.span(line, self._control)
        except PatternError:
            self._pattern = None
            return None


def _cut_line(text: str, span: tuple[int, int] | None) -> str:
    """``text`` cut to MAX_LINE_CHARS around the match at ``span`` (its start when None),
    saying where the part shown lies in the line."""
    start = 0 if span is None else max(0, min(span[0] - MAX_LINE_CHARS // 4,
                                              len(text) - MAX_LINE_CHARS))
    end = start + MAX_LINE_CHARS
    where = f"columns {start + 1:,}-{end:,} of {len(text):,}"
    return ("… " if start else "") + text[start:end] + f" … [{where}]"


def matching_lines(root: Path, options: GrepOptions, *, per_file_cap: int = 10_000,
                   use_ripgrep: bool | None = None, control: ScanControl | None = None
                   ) -> tuple[dict[str, list[int]], str]:
    """Every matching line number per file (at most ``per_file_cap`` per file), unformatted,
    and the backend that found them. Same file rules and errors as :func:`grep_code`."""
    root = Path(root)
    control = control or ScanControl()
    start = safe_relative(root, options.path)
    if start and not (root / start).exists():
        raise GrepError(f"path {options.path!r} does not exist in the project")
    rg = ripgrep_path() if use_ripgrep in (None, True) else None
    if use_ripgrep and rg is None:
        raise GrepError("ripgrep (rg) is not installed")
    if rg is not None:
        hits = _ripgrep_backend(rg, root, options, start, per_file_cap, control)
        if hits is not None:
            return hits, "ripgrep"
    return _python_backend(root, options, start, per_file_cap, control), "python"


def grep_code(root: Path, options: GrepOptions, *, use_ripgrep: bool | None = None,
              control: ScanControl | None = None) -> GrepResult:
    """Search the project; ``use_ripgrep=None`` picks ripgrep when it is installed.

    Raises GrepError for an empty or invalid pattern, a pattern too slow for the project's
    text, or a path outside the project; ScanCancelled when ``control`` is cancelled.
    """
    per_file_cap = max(1, min(options.max_matches, MAX_MATCHES_LIMIT)) + 1
    control = control or ScanControl()
    hits, backend = matching_lines(root, options, per_file_cap=per_file_cap,
                                   use_ripgrep=use_ripgrep, control=control)
    result = _format(Path(root), hits, options, backend)
    if not result.matches:
        result.text += _not_searched(Path(root), options, control)
    return result


NOT_SEARCHED_SHOWN = 5


def _not_searched(root: Path, options: GrepOptions, control: ScanControl) -> str:
    """The files in the search's reach that were too large to search, said after "No
    matches" (else a match in a 1.1 MB generated file read as "it is not in the project")."""
    include = glob_matcher(options.glob)
    large: list[tuple[str, int]] = []
    for rel in walk_project_files(root, safe_relative(root, options.path), control=control):
        if include is not None and not include.fullmatch(rel):
            continue
        try:
            size = (root / rel).stat().st_size
        except OSError:
            continue
        if size > MAX_FILE_BYTES:
            large.append((rel, size))
    if not large:
        return ""
    large.sort()
    named = ", ".join(f"{display_name(rel)} ({size / 1e6:.1f} MB)"
                      for rel, size in large[:NOT_SEARCHED_SHOWN])
    more = f" and {len(large) - NOT_SEARCHED_SHOWN} more" if len(large) > NOT_SEARCHED_SHOWN \
        else ""
    files = "file" if len(large) == 1 else "files"
    return (f" Not searched: {len(large)} {files} over {MAX_FILE_BYTES:,} bytes: {named}"
            f"{more}. Read them with read_file (offset/limit) or search them with "
            "execute_command.")


def read_text_lines(full: Path) -> list[str] | None:
    """Lines of a searchable file as grep sees them, or None (binary, huge, unreadable)."""
    return _read_text_file(full)
