"""Tools that change files: write_file and edit_file. Both show a diff and ask first."""

from __future__ import annotations

import asyncio
import difflib
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from ....regular_files import read_regular
from ...contracts.asks import ApprovalRequest
from ...contracts.tools import ToolContext, ToolOutput
from ...llm.redact import redact_known
from ...memory.rules import project_instruction_files
from .approval import ask_approval, denied
from .files import MAX_FILE_BYTES, read_text_file
from .git_hooks import git_folder_holding, git_hook_paths, runs_as_git_hook
from .guard import ToolArgumentError, relative_label, resolve_in_project

MAX_DIFF_CHARS = 20_000

log = logging.getLogger(__name__)


def unified_diff(label: str, before: str, after: str) -> str:
    """A unified diff of one file (``/dev/null`` side for a new file), capped in length."""
    old_name = f"a/{label}" if before else "/dev/null"
    diff = "".join(difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True),
        fromfile=old_name, tofile=f"b/{label}"))
    if len(diff) > MAX_DIFF_CHARS:
        diff = diff[:MAX_DIFF_CHARS] + f"\n[diff cut at {MAX_DIFF_CHARS:,} characters]\n"
    return diff


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` in one step, so a crash never leaves half a file."""
    write_bytes_atomically(path, text.encode("utf-8"))


def write_bytes_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step (its permissions kept)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _uses_crlf(text: str) -> bool:
    """True for a file whose every line break is CRLF (mixed files are edited as they are)."""
    crlf = text.count("\r\n")
    return crlf > 0 and crlf == text.count("\n")


_INSTRUCTION_FILES = frozenset({"pai.md", "pai.local.md", ".paicli/pai.md",
                                ".paicli/pai.local.md", "agents.md", "claude.md",
                                ".claude/claude.md"})
_SKILL_FOLDERS = (".paicli/skills/", ".claude/skills/")


def asked_every_time(label: str, included: frozenset[str] = frozenset(),
                     path: Path | None = None,
                     hooks: tuple[frozenset[str], frozenset[str]] | None = None,
                     git_folder: str | None = None) -> str:
    """Why a write to ``label`` (project-relative) is asked about even after an "Always"
    ("" for an ordinary file):

    - the git folder: git runs what its config (``core.fsmonitor``, aliases, diff drivers)
      and hooks say, on the person's next ``git status`` or commit in their own terminal,
      out of reach of any approval; a repository's folder by another name (``git_folder``,
      see :func:`git_folder_holding`: a bare ``vendor/x.git``) the same;
    - a git hook outside it (``hooks``, see :func:`git_hook_paths`: the folder
      ``core.hooksPath`` names, husky's ``.husky/``, the pre-commit framework's config):
      run the same way on the next commit;
    - the agent's own instructions (PAI.md, AGENTS.md, CLAUDE.md, skills): read into every
      later session's prompt, so one write would steer all of them.
    """
    parts = Path(label).parts
    if any(part.lower() == ".git" for part in parts):
        return "in the git folder: git runs its config and hooks"
    if git_folder is not None:
        return f"in a git repository's own folder ({git_folder}): git runs its config and hooks"
    if path is not None and hooks is not None and runs_as_git_hook(path, hooks):
        return "a git hook: git runs it on the next commit, in the person's own terminal"
    name = "/".join(parts).lower()
    if (name in _INSTRUCTION_FILES or name.startswith(_SKILL_FOLDERS)
            or (path is not None and os.path.realpath(path) in included)):
        return "the agent's own instructions: read into every later session"
    return ""


_write_locks: dict[str, asyncio.Lock] = {}
"""One per file written: the check that the file is still as it was read and the write
that follows are one step, for parallel sub-agents and plan tasks."""


UNREADABLE = b"\0(not a regular file)"


def file_snapshot(path: Path) -> bytes | None:
    """The file's bytes now (None: there is no file), read as read_file reads (bounded,
    never waiting on a FIFO)."""
    try:
        data, _ = read_regular(path, MAX_FILE_BYTES)
    except FileNotFoundError:
        return None
    except OSError:  # a FIFO, a folder: read_text_file says why in the person's words
        return UNREADABLE
    return data


async def _apply(context: ToolContext, tool: str, path: Path, label: str, before: str,
                 after: str, summary: str, original: bytes | None) -> ToolOutput:
    """Ask, then write ``after`` if the file still holds ``original`` (its bytes when
    ``before`` was read); the person may have changed it in their editor while the dialog
    was open, or another approved edit may have, and the write replaced their change."""
    # the diff shows the file's own lines around the change: a .env's key beside an edited
    # line was drawn in clear in the dialog (and any screenshot of it), where every other
    # view masks configured keys; what is written is not touched
    diff = redact_known(unified_diff(label, before, after), context.settings.secrets())
    # a file the rules include (@docs/conventions.md in CLAUDE.md) steers later sessions too;
    # looked up at write time (a handful of small files)
    included = await asyncio.to_thread(project_instruction_files, context.project_root)
    hooks = await asyncio.to_thread(git_hook_paths, context.project_root)
    git_folder = await asyncio.to_thread(git_folder_holding, path, context.project_root)
    why = asked_every_time(label, included, path, hooks, git_folder)
    asked = f"{summary} ({why})" if why else summary
    if not await ask_approval(context, ApprovalRequest(tool=tool, summary=asked, detail=diff),
                              always_covers=not why):
        return ToolOutput(denied(summary), status="denied")
    lock = _write_locks.setdefault(os.path.realpath(path), asyncio.Lock())
    async with lock:
        if await asyncio.to_thread(file_snapshot, path) != original:
            return ToolOutput(
                f"{summary}: not written. {label} changed after it was read (the person's "
                "editor, or another edit approved meanwhile) and the write would have "
                "replaced that change. Nothing was written: read it again and make the change "
                "on what it holds now.", status="failed")
        recorder = context.session.checkpoints
        undo_note = ""
        if recorder is not None:  # what the file held, for /undo (before the write)
            try:
                await asyncio.to_thread(recorder.record, context.session.turn_id,
                                        context.session.turn_number, path, label, original,
                                        after.encode("utf-8"))
            except OSError as exc:  # a full or read-only home must not stop the edit
                log.warning("the change to %s is not kept for /undo: %s", label, exc)
                undo_note = f" Not kept for /undo: {exc.strerror or exc}."
        await asyncio.to_thread(write_atomically, path, after)
    added = sum(1 for line in diff.splitlines() if line.startswith("+") and
                not line.startswith("+++"))
    removed = sum(1 for line in diff.splitlines() if line.startswith("-") and
                  not line.startswith("---"))
    return ToolOutput(f"{summary}: done (+{added} -{removed} lines).{undo_note}")


class WriteFileTool:
    name = "write_file"
    description = (
        "Create a file or replace its whole content (parent folders are created). The person "
        "sees a diff and must approve. For a small change to an existing file use edit_file "
        "instead. Paths are relative to the project root."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path relative to the project root."},
            "content": {"type": "string", "description": "The complete new file content."},
        },
        "required": ["path", "content"],
    }
    requires_approval = True

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> ToolOutput:
        root = context.project_root
        try:
            content = arguments.get("content")
            if not isinstance(content, str):
                raise ToolArgumentError("content is required and must be a string")
            path = resolve_in_project(root, arguments.get("path"))
            label = relative_label(root, path)
            original = file_snapshot(path)
            before = read_text_file(path, label) if original is not None else ""
            if original is not None and before == content:
                return ToolOutput(f"{label} already has exactly this content; nothing changed.")
            verb = "overwrite" if original is not None else "create"
            lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
            return await _apply(context, self.name, path, label, before, content,
                                f"{verb} {label} ({lines} line{'' if lines == 1 else 's'})",
                                original)
        except (ToolArgumentError, OSError) as exc:
            return ToolOutput(f"write_file failed: {exc}", status="failed")


class EditFileTool:
    name = "edit_file"
    description = (
        "Replace one exact piece of text in a file. old_string must match the file exactly "
        "(spaces and indentation included, without read_file's line numbers) and occur exactly "
        "once; add surrounding lines to make it unique. The person sees a diff and must "
        "approve. Paths are relative to the project root."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path relative to the project root."},
            "old_string": {"type": "string", "description": "Exact text to replace (unique)."},
            "new_string": {"type": "string", "description": "Replacement text."},
        },
        "required": ["path", "old_string", "new_string"],
    }
    requires_approval = True

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> ToolOutput:
        root = context.project_root
        try:
            old, new = arguments.get("old_string"), arguments.get("new_string")
            if not isinstance(old, str) or not old:
                raise ToolArgumentError("old_string is required and must not be empty")
            if not isinstance(new, str):
                raise ToolArgumentError("new_string is required and must be a string")
            if old == new:
                raise ToolArgumentError("old_string and new_string are the same")
            path = resolve_in_project(root, arguments.get("path"), must_exist=True)
            label = relative_label(root, path)
            original = file_snapshot(path)
            before = read_text_file(path, label, exact=True)
            if _uses_crlf(before) and "\r" not in old:
                # The model sees lines without their \r; match and write in the file's style.
                old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
            count = before.count(old)
            if count == 0:
                raise ToolArgumentError(
                    f"old_string was not found in {label}; read the file again and copy the "
                    "text exactly (without line numbers)")
            if count > 1:
                raise ToolArgumentError(
                    f"old_string occurs {count} times in {label}; include more surrounding "
                    "lines so it matches exactly once")
            after = before.replace(old, new, 1)
            return await _apply(context, self.name, path, label, before, after, f"edit {label}",
                                original)
        except (ToolArgumentError, OSError) as exc:
            return ToolOutput(f"edit_file failed: {exc}", status="failed")
