"""``/export``: the conversation as a Markdown file a person can keep, share or paste.

What the history holds now, in order: the person's words (without the program's turn
context), the model's answers, each tool call as one line with how it ended (its arguments
shortened; the results stay in the ledger), and a summary that replaced older turns marked
as one. The whole text goes through the caller's redaction, so no configured key is written.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ...paths import LeadsOutside, keep_dot_dir_out_of_git, stay_inside
from ..messages import InternalKind, Message, Role, read_arguments
from ..plural import counted
from ..text.fsnames import display_name
from .prompt import person_text

ARGUMENTS_SHOWN = 100
"""Characters of a call's arguments on its line (a whole file written is not the point)."""
STATUS_ICONS = {"done": "✓", "denied": "⊘", "conflict": "⊘", "failed": "✗",
                "cancelled": "⊘", "no result": "?"}
_BACKTICKS = re.compile(r"`+")


@dataclass(frozen=True)
class ExportedText:
    markdown: str
    turns: int
    """The person's messages in it."""
    calls: int
    sections: int = 0
    """The parts under the heading (0: nothing to export, a file of one heading line)."""


NOTHING_TO_EXPORT = ("Nothing to export: no message has been sent in this conversation yet. "
                     "Nothing was written.")


def code_span(text: str) -> str:
    """``text`` as one Markdown code span, whatever backticks it holds."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def call_arguments(arguments: str) -> str:
    """A call's arguments on one line: ``path=src/a.py limit=20``, cut to
    :data:`ARGUMENTS_SHOWN` characters, control characters shown as escapes."""
    try:
        parsed = read_arguments(arguments)
    except (ValueError, RecursionError):
        parsed = arguments
    if isinstance(parsed, dict):
        line = " ".join(f"{key}={value}" for key, value in parsed.items())
    else:
        line = str(parsed or "")
    line = display_name(" ".join(line.split()))
    return line if len(line) <= ARGUMENTS_SHOWN else line[:ARGUMENTS_SHOWN - 1] + "…"


def _status(result: Message | None) -> str:
    if result is None:
        return "no result"
    if result.meta.get("status"):
        return str(result.meta["status"])
    return "cancelled" if result.meta.get("synthetic") else "done"


def _quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.strip("\n").splitlines())


def conversation_markdown(history: Sequence[Message], heading: str,
                          redact: Callable[[str], str]) -> ExportedText:
    """The history as Markdown under ``heading`` (see the module docstring)."""
    results = {m.tool_call_id: m for m in history if m.role is Role.TOOL and m.tool_call_id}
    parts = [f"# {heading}"]
    turns = calls = 0
    for message in history:
        if message.role is Role.USER and message.internal is InternalKind.SUMMARY:
            parts.append("## Summary of older turns\n\n*Written when the context was "
                         "compacted; it replaced the turns before it.*\n\n"
                         + _quoted(message.content))
        elif message.role is Role.USER and message.internal is not None:
            parts.append(f"*(a note of the program to the model: {message.internal.value})*")
        elif message.role is Role.USER:
            turns += 1
            parts.append("## You\n\n" + person_text(message).strip())
        elif message.role is Role.ASSISTANT:
            blocks = [message.content.strip()] if message.content.strip() else []
            lines = []
            for call in message.tool_calls:
                status = _status(results.get(call.id))
                shown = f"{call.name} {call_arguments(call.arguments)}".strip()
                lines.append(f"- {STATUS_ICONS.get(status, '?')} {code_span(shown)} · {status}")
            calls += len(lines)
            blocks += ["\n".join(lines)] if lines else []
            if blocks:
                parts.append("## Assistant\n\n" + "\n\n".join(blocks))
    text = "\n\n".join(parts) + "\n"
    return ExportedText(redact(text), turns, calls, len(parts) - 1)


def default_export_path(project_root: Path, session_id: str, now: datetime) -> Path:
    """A file under the project's ``.paicli/exports`` that does not exist yet:
    ``conversation-<session>-<date>-<time>.md``, then ``-2``, ``-3`` … in the same minute."""
    folder = project_root / ".paicli" / "exports"
    stem = f"conversation-{session_id}-{now:%Y%m%d-%H%M}"
    candidate = folder / f"{stem}.md"
    number = 2
    while os.path.lexists(candidate):
        candidate = folder / f"{stem}-{number}.md"
        number += 1
    return candidate


def prepare_export_folder(project_root: Path) -> Path:
    """The folder of default exports, checked and kept out of git status (``.paicli`` gets
    its ``.gitignore``, so an export does not show up in ``git status`` or ``/diff``).
    LeadsOutside when a ``.paicli`` link the project ships leads out of it or into
    ``.git``: an export written there would land where the project chose."""
    folder = project_root / ".paicli" / "exports"
    try:
        stay_inside(project_root, folder)
    except LeadsOutside as exc:  # its words up to the ";", without the index's remedy
        raise LeadsOutside(str(exc).split(";")[0]) from exc
    keep_dot_dir_out_of_git(project_root / ".paicli")
    return folder


def write_new_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` only if nothing is there (FileExistsError otherwise: a link
    counts as there), creating its folder. A file where a folder of the path should be is
    NotADirectoryError, not FileExistsError: the file asked for was not there."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError as exc:
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR),
                                 str(path.parent)) from exc
    with open(path, "x", encoding="utf-8") as out:
        out.write(text)


def replace_question(path: Path) -> str:
    """What the question before writing over ``path`` says will be lost. A link is replaced
    by the export (the write is atomic: a new file renamed over the name), so what it leads
    to is kept, which a person who linked notes.md to a file elsewhere would not guess."""
    try:
        target = os.readlink(path)
    except OSError:  # not a link (or gone meanwhile): the file itself is replaced
        return f"{path} exists. Replacing it loses what it holds."
    return (f"{path} is a link to {display_name(target)}. Replace puts the export in place "
            "of the link; the file it leads to is left as it is.")


def path_span(path: Path | str) -> str:
    """A path for a chat line: one code span to copy, control characters as escapes."""
    return code_span(display_name(str(path)))


def exported_line(text: ExportedText, path: Path) -> str:
    """What the chat says once written: how much, and where (a path to copy)."""
    return (f"Exported the conversation ({counted(text.turns, 'message')} from you, "
            f"{counted(text.calls, 'tool call')}) to {path_span(path)}.")
