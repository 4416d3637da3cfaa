"""``@path`` in a message attaches that file, as in Claude Code, Codex and Aider.

The person's words go to the model as they typed them; each file they name with ``@`` (a
word that starts with ``@`` and names a file of the project) follows them, read now. A word
that names no file (``@Override``, ``@alice``, an e-mail address) stays a word: nothing is
said about it. A folder is attached as its listing (as ``list_dir`` gives it). A file that
exists but cannot be attached — a binary, a FIFO, one outside the project — is named with
the reason, so the person knows the model did not see it.

An attached file reaches the model as carefully as a tool result does (behaviour §9):
masked of every configured key and wrapped as untrusted data (``<attached_file …>``, which
nothing inside can close), so a file saying ``USER: I confirm`` is not read as the
person's words; when older turns are summarised its lines are quoted like a tool result's. Reads are bounded: each file at most MAX_FILE_LINES lines and
MAX_FILE_CHARS characters, all of them together within the turn's budget (cut files say
how to read the rest with ``read_file``).
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..context.boundary import wrap_data
from ..plural import noun_for
from .tools.files import MAX_PAGE_CHARS, MAX_PAGE_LINES, ListDirTool, read_text_file
from .tools.guard import ToolArgumentError, relative_label, resolve_in_project

MAX_FILES = 10
"""Files one message may attach; more are named as not attached."""
MAX_WORDS = 100
"""``@`` words looked at in one message (a pasted file full of ``@Override`` has thousands;
each is a few file-system calls)."""
MAX_FILE_LINES = MAX_PAGE_LINES
MAX_FILE_CHARS = MAX_PAGE_CHARS
MAX_TOTAL_CHARS = 100_000
"""All attachments of one message together (the turn may lower it: a small window)."""
MIN_CUT_LINE_CHARS = 200
"""A first line cut to the room left shows at least this much of it (else: no room)."""

# @ at the start or after a blank or an opening bracket; the path ends at a blank. A quoted
# form takes a path with blanks: @"docs/a b.md".
_MENTION = re.compile(r'(?:(?<=^)|(?<=[\s(\[{（「]))@(?:"([^"\n]+)"|([^\s"]+))')
_TRAILING = ",.;:!?)]}，。；：！？）」、'"


@dataclass(frozen=True)
class AttachedFile:
    label: str
    """The path as the tools write it (relative to the project)."""
    lines: int
    shown_lines: int
    """Lines attached: fewer than ``lines`` when the file was cut."""
    cut_line: tuple[int, int] | None = None
    """(characters attached, characters in all) of its last attached line when that line
    was cut in the middle (a minified file's one line): the file is not whole even when
    every line was attached."""


@dataclass
class Attachments:
    """What a message's ``@`` words attached, and what they named but could not attach."""

    files: list[AttachedFile] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)
    """(the word as typed, why it was not attached)."""
    block: str = ""
    """The text that follows the person's words in their message ('' for none)."""


def mentioned_paths(text: str) -> list[str]:
    """The paths ``text`` names with ``@``, in order, each once (trailing punctuation of a
    sentence is not part of a path: ``see @a.py.`` names ``a.py``)."""
    return [path for _, path in _mention_words(text)]


def _mention_words(text: str) -> list[tuple[str, str]]:
    """(each ``@`` word as typed, the path it names: see :func:`mentioned_paths`)."""
    found: dict[str, str] = {}
    for match in _MENTION.finditer(text):
        whole = match.group(1) or match.group(2)
        path = match.group(1) or whole.rstrip(_TRAILING)
        if path and path not in found:
            found[path] = whole
            if len(found) >= MAX_WORDS:
                break
    return [(whole, path) for path, whole in found.items()]


def _file_named(root: Path, whole: str, path: str) -> str:
    """``path``, or ``whole`` with fewer of its trailing marks when that names a project
    file: a name may end in one (``notes(old)``, as the @ menu puts it in, then a full stop).
    Three tries at most: ``@Override)))…`` costs no more."""
    candidate = whole
    for _ in range(3):
        if candidate == path:
            break
        try:
            if resolve_in_project(root, candidate).exists():
                return candidate
        except (ToolArgumentError, OSError):
            pass
        candidate = candidate[:-1]
    return path


def attach_mentions(text: str, root: Path, redact: Callable[[str], str], *,
                    budget_chars: int = MAX_TOTAL_CHARS) -> Attachments:
    """Read the files ``text`` names with ``@`` (see the module docstring). Blocking: call
    it in a thread."""
    result = Attachments()
    parts: list[str] = []
    left = min(budget_chars, MAX_TOTAL_CHARS)
    for whole, bare in _mention_words(text):
        typed = _file_named(root, whole, bare)
        try:
            path = resolve_in_project(root, typed)
            named = path.exists()
        except ToolArgumentError:
            if _exists_outside(root, typed):  # a real file the model may not see
                result.refused.append((typed, "outside the project"))
            continue
        except OSError:  # longer than any file name can be (a pasted token): a word
            continue
        if not named:
            continue  # not a file name: @Override, @alice
        label = relative_label(root, path)
        if len(result.files) >= MAX_FILES:
            result.refused.append((typed, f"more than {MAX_FILES} files in one message"))
            continue
        if any(f.label == label for f in result.files):
            continue
        if path.is_dir():  # a folder: its listing, as list_dir gives it
            listing = ListDirTool()._list({"path": label, "depth": 1}, root).content
            if len(listing) > left:
                result.refused.append((typed, "no room left in this message for its listing"))
                continue
            left -= len(listing)
            parts.append(wrap_attached(label + "/", redact(
                f"the folder {label}/, attached by the person with @{typed}\n{listing}")))
            result.files.append(AttachedFile(label + "/", 0, 0))
            continue
        try:
            content = read_text_file(path, label)
        except (ToolArgumentError, OSError) as exc:
            result.refused.append((typed, str(exc).removeprefix(f"{label} ")))
            continue
        numbered, shown, total, cut_line = _numbered(content, left)
        if shown == 0 and total:
            result.refused.append((typed, "no room left in this message for another file"))
            continue
        left -= len(numbered)
        header = (f"{label} ({total} {noun_for(total, 'line')}), attached by the person "
                  f"with @{typed}")
        if shown < total:
            header += (f"; lines 1-{shown} of {total} attached (read_file path={label} "
                       f"offset={shown + 1} for the rest)")
        parts.append(wrap_attached(label, redact(f"{header}\n{numbered}")))
        result.files.append(AttachedFile(label, total, shown, cut_line))
    if parts:
        result.block = "\n\n".join(parts)
    return result


def wrap_attached(label: str, text: str) -> str:
    """``text`` wrapped as an attached file: data, not the person's words."""
    return wrap_data("attached_file", {"path": label}, text)


def _exists_outside(root: Path, typed: str) -> bool:
    """True when ``typed`` names an existing file that lies outside the project."""
    try:
        candidate = Path(typed).expanduser()
        if not candidate.is_absolute():
            candidate = root / candidate
        return candidate.exists()
    except (OSError, ValueError):
        return False


def _numbered(content: str, budget: int
              ) -> tuple[str, int, int, tuple[int, int] | None]:
    """(the lines numbered as read_file numbers them, within MAX_FILE_LINES,
    MAX_FILE_CHARS and ``budget`` characters; lines shown; lines in all; the characters
    shown and in all of a first line cut to the room, else None)."""
    lines = content.splitlines()
    limit = min(MAX_FILE_CHARS, budget)
    out: list[str] = []
    size = 0
    cut_line = None
    for number, line in enumerate(lines[:MAX_FILE_LINES], start=1):
        entry = f"{number:>6}\t{line[:MAX_FILE_CHARS]}"
        if size + len(entry) + 1 > limit:
            if not out:  # a first line longer than the room (a minified file): its start
                cut = f" … [line {number} cut here: {len(line):,} characters in all]"
                room = limit - len(f"{number:>6}\t") - len(cut) - 1
                if room >= MIN_CUT_LINE_CHARS:
                    out.append(f"{number:>6}\t{line[:room]}{cut}")
                    cut_line = (room, len(line))
            break
        out.append(entry)
        size += len(entry) + 1
    return "\n".join(out), len(out), len(lines), cut_line


class FileIndex:
    """A project's file list prepared for :func:`file_candidates` (lowered paths and names
    made once, not at every key: 50,000 files took ~100 ms a key)."""

    def __init__(self, files: list[str]) -> None:
        self.files = files
        self.lowered = [path.lower() for path in files]
        self.names = [path.rsplit("/", 1)[-1] for path in self.lowered]
        self.top = sorted(files, key=lambda p: (p.count("/"), p))[:50]


def file_candidates(files: list[str] | FileIndex, typed: str, limit: int = 8) -> list[str]:
    """The project files an ``@`` word being typed may mean, best first: a file name that
    starts with it, a path that starts with it, a name or path that holds it, then a path
    that holds its letters in order (``@sapp`` → ``src/app.py``); shorter paths first
    among equals. Nothing typed yet: the files nearest the project's top."""
    index = files if isinstance(files, FileIndex) else FileIndex(files)
    wanted = typed.lower()
    if not wanted:
        return index.top[:limit]
    scored: list[tuple[int, int, str]] = []
    for path, lowered, name in zip(index.files, index.lowered, index.names, strict=True):
        if wanted not in lowered:
            continue
        if name.startswith(wanted):
            rank = 0
        elif lowered.startswith(wanted):
            rank = 1
        elif wanted in name:
            rank = 2
        else:
            rank = 3
        scored.append((rank, len(path), path))
    if len(scored) < limit:  # letters in order only when the plain matches are too few
        scored += [(4, len(path), path)
                   for path, lowered in zip(index.files, index.lowered, strict=True)
                   if wanted not in lowered and _in_order(wanted, lowered)]
    return [path for _, _, path in heapq.nsmallest(limit, scored)]


def _in_order(letters: str, text: str) -> bool:
    position = 0
    for letter in letters:
        position = text.find(letter, position) + 1
        if position == 0:
            return False
    return True
