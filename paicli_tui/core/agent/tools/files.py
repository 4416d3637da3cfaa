"""Read-only file tools: read_file and list_dir."""

from __future__ import annotations

import asyncio
import errno
import io
import os
from pathlib import Path
from typing import Any

from ....regular_files import NotRegularFile, read_regular
from ...context.offload import TOOL_OUTPUTS_PREFIX
from ...contracts.tools import ToolContext, ToolOutput
from ...plural import noun_for
from ...text.fsnames import display_name
from ...text_slices import SLICE_CHARS
from .guard import (
    ToolArgumentError,
    int_argument,
    looks_binary,
    relative_label,
    resolve_in_project,
)

PAGE_LINES = 200
"""Lines per paged read, the figure offload notices quote (behaviour §3)."""
MAX_PAGE_LINES = 2_000
MAX_PAGE_CHARS = 40_000
"""A paged read is never offloaded, so it is bounded here instead."""
MAX_FILE_BYTES = 20_000_000
MAX_LIST_ENTRIES = 500
NUMBER_BLOCK = 4_096
"""Lines numbered per step (see :func:`_number`)."""
SKIP_DIRS = frozenset({".git", "__pycache__", "node_modules", ".venv", ".mypy_cache",
                       ".ruff_cache", ".pytest_cache"})


def _number(lines: list[str], first: int) -> str:
    # joined a block at a time: one join of a 20 MB file holds the interpreter ~50 ms
    blocks = ("\n".join(f"{first + at + i:>6}\t{line}"
                        for i, line in enumerate(lines[at:at + NUMBER_BLOCK]))
              for at in range(0, len(lines), NUMBER_BLOCK))
    return "\n".join(blocks)


def _split_lines(text: str) -> list[str]:
    """``text.splitlines()``, a slice at a time (cut just after a ``\\n``, where a line
    always ends): one split of a 20 MB file holds the interpreter ~0.1 s."""
    lines: list[str] = []
    start = 0
    while start < len(text):
        cut = text.find("\n", start + SLICE_CHARS)
        end = len(text) if cut == -1 else cut + 1
        lines += text[start:end].splitlines()
        start = end
    return lines


def read_text_file(path: Path, label: str, *, exact: bool = False) -> str:
    """The file's text; ToolArgumentError for folders, binaries and huge files.

    Read with a bound, without blocking: a file that grows past ``MAX_FILE_BYTES`` while it
    is read, or is swapped for a FIFO after the checks, is refused, not read to its end.
    ``exact`` (for edits): line endings kept as they are and invalid UTF-8 refused, so
    writing the text back changes nothing but the edit.
    """
    if path.is_dir():
        raise ToolArgumentError(f"{label} is a folder; use list_dir to see what is in it")
    if not path.exists():
        raise ToolArgumentError(f"{label} does not exist")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ToolArgumentError(f"{label} is {size:,} bytes; too large to read")
    try:
        data, whole = read_regular(path, MAX_FILE_BYTES)
    except NotRegularFile:  # a FIFO (reading it would wait forever), a device, a socket
        raise ToolArgumentError(f"{label} is not a regular file; it cannot be read or "
                                "edited as text") from None
    if not whole:
        raise ToolArgumentError(f"{label} grew past {MAX_FILE_BYTES:,} bytes while it was "
                                "read; too large to read")
    if looks_binary(data[:8192]):
        raise ToolArgumentError(f"{label} looks like a binary file; it cannot be read as text")
    if not exact:
        return _decode_lines(data)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolArgumentError(f"{label} is not valid UTF-8; editing it would change bytes "
                                "outside the edit") from None


def _decode_lines(data: bytes) -> str:
    """``data`` as text the way ``Path.read_text`` gives it (bad bytes replaced, any line
    ending read as ``\\n``), decoded a megabyte at a time so no one step holds the
    interpreter long (the event loop runs between)."""
    reader = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace")
    return "".join(iter(lambda: reader.read(1 << 20), ""))


def _is_saved_output(label: str) -> bool:
    return label.startswith(TOOL_OUTPUTS_PREFIX)


class ReadFileTool:
    name = "read_file"
    description = (
        "Read a text file of the project. Lines come numbered (`   12\\tcode`; the number and "
        "tab are not part of the file). Without offset/limit the whole file is returned (a very "
        "large one is saved to a file and previewed). With offset (1-based first line) and/or "
        f"limit (number of lines, default {PAGE_LINES}, at most {MAX_PAGE_LINES}) you get that "
        "page; use this to read saved outputs under .paicli/tool-outputs/ and big files piece "
        "by piece. Paths are relative to the project root; files outside it and binary files "
        "are refused."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path relative to the project root."},
            "offset": {"type": "integer", "description": "First line to read, 1-based."},
            "limit": {"type": "integer",
                      "description": f"Number of lines to read (default {PAGE_LINES})."},
        },
        "required": ["path"],
    }
    requires_approval = False

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> ToolOutput:
        try:
            return await asyncio.to_thread(self._read, arguments, context.project_root)
        except (ToolArgumentError, OSError) as exc:
            return ToolOutput(f"read_file failed: {exc}", status="failed")

    def _read(self, arguments: dict[str, Any], root: Path) -> ToolOutput:
        path = resolve_in_project(root, arguments.get("path"))
        label = relative_label(root, path)
        text = read_text_file(path, label)
        lines = _split_lines(text)
        offset = int_argument(arguments, "offset", default=None, low=1, high=10**9)
        limit = int_argument(arguments, "limit", default=None, low=1, high=MAX_PAGE_LINES)
        paged = offset is not None or limit is not None
        if not paged and _is_saved_output(label):
            # Saved outputs are never offloaded again (behaviour §3), so a whole read could put
            # up to 2,000,000 characters in the history: serve the first page instead.
            paged = True
        if not paged:
            if not lines:
                return ToolOutput(f"{label} is empty.")
            return ToolOutput(f"{label} ({len(lines)} {noun_for(len(lines), 'line')})\n"
                              f"{_number(lines, 1)}")
        first = offset or 1
        count = limit or PAGE_LINES
        if first > len(lines):
            return ToolOutput(f"{label} has only {len(lines)} {noun_for(len(lines), 'line')}; "
                              f"offset {first} is past the end.", bypass_offload=True)
        page: list[str] = []
        size = 0
        cut: list[str] = []
        for number, line in enumerate(lines[first - 1:first - 1 + count], first):
            size += len(line) + 8  # the number column and newline
            if page and size > MAX_PAGE_CHARS:
                break  # bounded here because paged reads are never offloaded
            if len(line) > MAX_PAGE_CHARS:  # a minified bundle's line: said, not silent
                cut.append(f"line {number} has {len(line):,} characters, the first "
                           f"{MAX_PAGE_CHARS:,} are shown")
            page.append(line[:MAX_PAGE_CHARS])
        body = _number(page, first)
        last = first + len(page) - 1
        header = f"{label} lines {first}-{last} of {len(lines)}"
        if last < len(lines):
            header += f" (more: offset={last + 1})"
        if cut:
            header += (f" ({'; '.join(cut)}: grep_code shows the part of a long line around "
                       "a match)")
        return ToolOutput(f"{header}\n{body}", bypass_offload=True)


class ListDirTool:
    name = "list_dir"
    description = (
        "List a folder of the project: sub-folders end with `/`, files show their size. "
        "depth 1 (default) lists only the folder itself, up to 3 goes deeper. Skips .git, "
        "node_modules, virtual environments and caches. Use glob_files to find files by name."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Folder relative to the project root.",
                     "default": "."},
            "depth": {"type": "integer", "description": "Levels to list (1-3).", "default": 1},
        },
    }
    requires_approval = False

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> ToolOutput:
        try:
            return await asyncio.to_thread(self._list, arguments, context.project_root)
        except (ToolArgumentError, OSError) as exc:
            return ToolOutput(f"list_dir failed: {exc}", status="failed")

    def _list(self, arguments: dict[str, Any], root: Path) -> ToolOutput:
        path = resolve_in_project(root, arguments.get("path") or ".", must_exist=True)
        label = relative_label(root, path)
        if not path.is_dir():
            raise ToolArgumentError(f"{label} is a file; use read_file to read it")
        depth = int_argument(arguments, "depth", default=1, low=1, high=3) or 1
        out: list[str] = []
        more = self._walk(path, depth, "", out)
        if not out:
            return ToolOutput(f"{label}/ is empty.")
        text = f"{label}/\n" + "\n".join(out)
        if more:
            text += f"\n[listing stopped at {MAX_LIST_ENTRIES} entries]"
        return ToolOutput(text)

    def _walk(self, folder: Path, depth: int, indent: str, out: list[str]) -> bool:
        try:
            with os.scandir(folder) as listing:
                entries = sorted(((_is_real_dir(e), e) for e in listing),
                                 key=lambda pair: (not pair[0], pair[1].name.lower()))
        except OSError as exc:
            out.append(f"{indent}[cannot list: {exc.strerror}]")
            return False
        for is_dir, entry in entries:
            if len(out) >= MAX_LIST_ENTRIES:
                return True
            name = display_name(entry.name)
            if is_dir:
                if entry.name in SKIP_DIRS:
                    continue
                out.append(f"{indent}{name}/")
                if depth > 1 and self._walk(Path(entry.path), depth - 1, indent + "  ", out):
                    return True
            else:
                try:
                    size = entry.stat(follow_symlinks=False).st_size
                except OSError:
                    size = 0
                suffix = f" -> {_link_note(entry.path)}" if entry.is_symlink() else ""
                out.append(f"{indent}{name}  {size:,} B{suffix}")
        return False


def _is_real_dir(entry: os.DirEntry[str]) -> bool:
    """A folder itself, not a link to one: links are listed, never followed (no loops)."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _link_note(path: str) -> str:
    """What a symlink points at, as far as it can be told without following a loop."""
    try:
        target = os.readlink(path)
    except OSError:
        return "(link)"
    try:
        os.stat(path)
    except OSError as exc:
        why = "link loop" if exc.errno == errno.ELOOP else "broken link"
        return f"{display_name(target)} ({why})"
    return f"{display_name(target)} (link)"
