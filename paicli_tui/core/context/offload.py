"""Tier 1 — offload huge tool results to a file before they enter the history (behaviour §3).

Lossless: the full text goes to ``<project>/.paicli/tool-outputs/<session>/NNN-tool.txt`` and
the history gets a notice with the path, how to page through it with ``read_file``, and the
head and tail of the output. If the file cannot be written the notice keeps the same previews
and says the middle was dropped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...config import Settings
from ...paths import ProjectPaths, keep_dot_dir_out_of_git
from ...private_files import write_private
from ..contracts.session_state import SessionState
from ..text_slices import text_slices
from .boundary import clean_text

HEAD_CHARS = 2_000
TAIL_CHARS = 800
READ_BACK_LINES = 200
TOOL_OUTPUTS_PREFIX = ".paicli/tool-outputs/"

# The notice names the file in a fixed form so clearing can keep the path later.
_SAVED_IN = re.compile(r"Full output saved in: (\S+)")


@dataclass(frozen=True)
class OffloadResult:
    """What goes into the history for one tool result, and what happened to the original."""

    content: str
    """The text for the history (not yet wrapped by the boundary)."""
    offload_path: str | None
    """Project-relative path of the saved full output, or None."""
    original_chars: int
    truncated: bool
    """True when the history text is shorter than the original (offloaded or cut)."""


def offload_path_in(text: str) -> str | None:
    """The saved-output path named in an offload notice, or None."""
    match = _SAVED_IN.search(text)
    return match.group(1) if match else None


def reads_tool_outputs(arguments: Mapping[str, Any]) -> bool:
    """True when any path-like argument points under ``.paicli/tool-outputs/``."""
    for value in arguments.values():
        if isinstance(value, str):
            normal = value.replace("\\", "/")
            if normal.startswith(TOOL_OUTPUTS_PREFIX) or f"/{TOOL_OUTPUTS_PREFIX}" in normal:
                return True
    return False


def _must_bypass(tool_name: str, arguments: Mapping[str, Any], bypass: bool) -> bool:
    if bypass or reads_tool_outputs(arguments):
        return True
    # A paged read_file already asked for a bounded slice; offloading it would loop.
    # Empty values count as absent: read_file itself then reads the whole file.
    return tool_name == "read_file" and any(
        arguments.get(key) not in (None, "") for key in ("offset", "limit")
    )


def _safe_name(tool_name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", tool_name)[:60] or "tool"


def _line_count(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") else 1) if text else 0


SaveOutput = Callable[[str, str], str]
"""``save(label, text)`` writes ``text`` to a new file of this session's saved outputs and
returns its project-relative path; raises OSError when it cannot."""


def reserve_output(project: ProjectPaths, session: SessionState, tool_name: str) -> str:
    """Take the next number of this session's saved outputs and return the project-relative
    path a file of ``tool_name`` output gets (raises OSError when outputs cannot be saved).

    Numbers are taken here, on the caller's thread, one after another: a batch of results
    saved by worker threads still gets them in call order. The folder is never outside the
    project: a planted symlink anywhere on ``.paicli/tool-outputs/<session>/`` is an OSError,
    so the caller falls back to truncation."""
    outputs = project.tool_outputs_dir
    folder = project.session_tool_outputs(session.session_id)
    root = Path(os.path.realpath(project.root))
    for part in (project.dot_dir, outputs, folder):
        if os.path.islink(part):
            raise OSError(f"{part.relative_to(project.root)} is a symlink; outputs are only "
                          "written inside the project")
    folder.mkdir(parents=True, exist_ok=True)
    if Path(os.path.realpath(folder)) != root / folder.relative_to(project.root):
        raise OSError("the tool-outputs folder leads outside the project")
    ignore = outputs / ".gitignore"
    if not ignore.exists():
        write_private(ignore, b"*\n", mode=0o644, follow_symlinks=False)
    keep_dot_dir_out_of_git(project.dot_dir)
    while True:
        # A resumed session starts counting at 0 again: never overwrite an earlier output.
        session.tool_output_counter += 1
        name = f"{session.tool_output_counter:03d}-{_safe_name(tool_name)}.txt"
        if not (folder / name).exists():
            break
    return f"{TOOL_OUTPUTS_PREFIX}{session.session_id}/{name}"


def write_reserved(project: ProjectPaths, path: str, text: str) -> None:
    """Write ``text`` to the file :func:`reserve_output` named (0600: command output can hold
    anything; never through a symlink planted at that name). Safe in a worker thread."""
    # encoded in short steps: a worker thread lets the event loop run between them
    write_private(project.root / path, (piece.encode("utf-8", "replace")
                                        for piece in text_slices(text)),
                  follow_symlinks=False)


def _write_output(project: ProjectPaths, session: SessionState, tool_name: str,
                  text: str) -> str:
    """Save ``text`` and return its project-relative path (raises OSError on failure)."""
    path = reserve_output(project, session, tool_name)
    write_reserved(project, path, text)
    return path


def output_saver(project: ProjectPaths, session: SessionState) -> SaveOutput:
    """A :data:`SaveOutput` writing under ``.paicli/tool-outputs/<session>/``."""

    def save(label: str, text: str) -> str:
        return _write_output(project, session, label, clean_text(text))

    return save


def offload_notice(subject: str, text: str, path: str | None, error: str | None, *,
                   head: int = HEAD_CHARS, tail: int = TAIL_CHARS) -> str:
    """The history text standing in for a long ``text`` (``subject``: "output from grep",
    "assistant message"...): its size, where the whole text is saved and how to read it back
    (or why it could not be saved), then its first ``head`` and last ``tail`` characters."""
    chars, lines = len(text), _line_count(text)
    shown_head, shown_tail = text[:head], text[-tail:] if tail else ""
    if path is not None:
        first = (
            f"[Large {subject}: {chars:,} characters, {lines:,} lines. "
            f"Only the beginning and the end are shown here.\n"
            f"Full output saved in: {path}\n"
            f'Read more with read_file(path="{path}", offset=<first line>, '
            f"limit={READ_BACK_LINES}), {READ_BACK_LINES} lines per call.]"
        )
    else:
        first = (
            f"[Large {subject}: {chars:,} characters, {lines:,} lines. "
            f"It could not be saved to a file ({error}); the middle "
            f"{chars - len(shown_head) - len(shown_tail):,} characters are lost. "
            f"Re-run with a narrower request if you need them.]"
        )
    return (f"{first}\n--- first {len(shown_head):,} characters ---\n{shown_head}\n"
            f"--- last {len(shown_tail):,} characters ---\n{shown_tail}")


@dataclass(frozen=True)
class OffloadPlan:
    """What tier 1 decided for one result, before any file is written. Computing it touches
    no session state, so it may run in a worker thread."""

    tool_name: str
    text: str
    """The cleaned (and, for a command, capped) text."""
    original_chars: int
    capped: bool
    head: int
    cap_chars: int
    kept: OffloadResult | None
    """The history text when no file is needed (short, bypassed); None: save ``text``."""

    @property
    def needs_file(self) -> bool:
        return self.kept is None


def plan_offload(*, tool_name: str, content: str, arguments: Mapping[str, Any],
                 settings: Settings, is_command: bool = False,
                 bypass: bool = False) -> OffloadPlan:
    """Whether one result is saved to a file, and the text that would be saved.

    Short results and bypassed reads are kept unchanged; a result over the threshold
    (``settings.offload_threshold_chars``, or ``command_offload_chars`` for command output,
    which is first capped at ``command_output_cap_chars``) needs a file."""
    text = clean_text(content)
    original = len(text)
    cap = settings.command_output_cap_chars
    capped = is_command and original > cap
    if capped:
        text = text[:cap]
    threshold = settings.command_offload_chars if is_command else settings.offload_threshold_chars
    head = settings.command_offload_chars if is_command else HEAD_CHARS
    kept = None
    if _must_bypass(tool_name, arguments, bypass) or len(text) <= threshold:
        kept = OffloadResult(text, None, original, capped)
    return OffloadPlan(tool_name, text, original, capped, head, cap, kept)


def finish_offload(plan: OffloadPlan, project: ProjectPaths,
                   reserved: str | OSError | None) -> OffloadResult:
    """The history text for a planned result: the file :func:`reserve_output` named is written
    and a notice stands in for the text; if the name could not be had (``reserved`` is the
    error) or the write fails, the notice keeps the same previews and says so. Safe in a
    worker thread."""
    if plan.kept is not None:
        return plan.kept
    path, error = None, "no file was reserved"
    if isinstance(reserved, str):
        try:
            write_reserved(project, reserved, plan.text)
            path, error = reserved, None
        except OSError as exc:
            error = exc.strerror or type(exc).__name__
    elif isinstance(reserved, OSError):
        error = reserved.strerror or type(reserved).__name__
    notice = offload_notice(f"output from {plan.tool_name}", plan.text, path, error,
                            head=plan.head)
    if plan.capped:
        notice += (f"\n[Capture stopped at {plan.cap_chars:,} characters; "
                   f"the command printed {plan.original_chars:,}.]")
    return OffloadResult(notice, path, plan.original_chars, True)


def try_reserve(plan: OffloadPlan, project: ProjectPaths,
                session: SessionState) -> str | OSError | None:
    """The saved-output name for a plan that needs a file (the OSError when there is none),
    None for a plan that does not."""
    if not plan.needs_file:
        return None
    try:
        return reserve_output(project, session, plan.tool_name)
    except OSError as exc:
        return exc


def offload_tool_result(*, tool_name: str, content: str, arguments: dict, project: ProjectPaths,
                        session: SessionState, settings: Settings, is_command: bool = False,
                        bypass: bool = False) -> OffloadResult:
    """The history text for one tool result, in one step (:func:`plan_offload`, a number from
    :func:`reserve_output`, :func:`finish_offload`)."""
    plan = plan_offload(tool_name=tool_name, content=content, arguments=arguments,
                        settings=settings, is_command=is_command, bypass=bypass)
    return finish_offload(plan, project, try_reserve(plan, project, session))
