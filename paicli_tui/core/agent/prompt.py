"""Prompt assembly (behaviour §8), arranged for the provider's prefix cache.

The system prompt is built once per session from ``prompts/*.md``, most stable part first:
base instructions, personality, mode, approval rules, context-management rules, output
format, the skill index, then the session's fixed facts (project root, platform) and the
PAI.md project rules. It stays byte-identical for the whole session.

Beyond the reference: what changes from turn to turn (the date, retrieved memories) does not
go into the system prompt, where it would break the cached prefix of the entire history, but
into a ``<turn_context>`` block at the start of the newest user message. That message is
appended once and never rewritten, so every later request extends the previous one.
"""

from __future__ import annotations

import platform
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ...resources import load_prompt
from ..contracts.services import ProjectRules
from ..messages import InternalKind, Message, Role

if TYPE_CHECKING:
    from .mentions import Attachments
    from .shell_notes import ShellNote

Mode = Literal["interactive", "headless"]

# The order is the contract: most stable first (behaviour §8).
STATIC_PARTS: tuple[str, ...] = ("base", "personality", "{mode}", "approval", "context_rules",
                                 "output_format")
TURN_CONTEXT_OPEN = "<turn_context>"
TURN_CONTEXT_CLOSE = "</turn_context>"
_TURN_TAG = re.compile(r"<(/?turn_context)", re.IGNORECASE)


@dataclass(frozen=True)
class SkillInfo:
    """One entry of the skill index: a name and when to load it."""

    name: str
    description: str


def static_prompt(mode: Mode = "interactive") -> str:
    """The prompt-file part of the system prompt, identical for every session in a mode."""
    names = [part.format(mode=f"mode_{mode}") for part in STATIC_PARTS]
    return "\n\n".join(load_prompt(name).strip() for name in names)


def build_system_prompt(*, project_root: Path, mode: Mode = "interactive",
                        rules: ProjectRules | None = None,
                        skills: Sequence[SkillInfo] = ()) -> str:
    """The session's system prompt; the same inputs always give the same bytes.

    Nothing time-dependent or per-turn goes in here (see :func:`turn_context_block`).
    """
    sections = [static_prompt(mode)]
    if skills:
        index = "\n".join(f"- {s.name}: {s.description}" for s in skills)
        sections.append(load_prompt("skill_index").strip() + "\n" + index)
    sections.append(
        f"Session:\n- Project root: {project_root}\n"
        f"- Platform: {platform.system()} ({platform.machine()}); commands run in a POSIX "
        "shell in the project root.")
    if rules is not None and rules.text.strip():
        origin = ", ".join(rules.files) if rules.files else "PAI.md"
        sections.append(
            f"Project rules from {origin} (written by the person; follow them):\n"
            f"{rules.text.strip()}")
    return "\n\n".join(sections) + "\n"


def format_now(now: datetime) -> str:
    """Date, weekday and UTC offset of ``now`` (an aware datetime), e.g.
    ``2026-11-29 (Sunday), time zone UTC+08:00``."""
    offset = now.strftime("%z") or "+0000"
    zone = f"UTC{offset[:3]}:{offset[3:]}"
    name = now.tzname()
    if name and not name.startswith(("UTC", "+", "-")):
        zone += f" ({name})"
    return f"{now:%Y-%m-%d} ({now:%A}), time zone {zone}"


def turn_context_block(now: datetime, memories: str = "") -> str:
    """The per-turn block that opens the newest user message: date and memories."""
    lines = [TURN_CONTEXT_OPEN, f"Today: {format_now(now)}"]
    if memories.strip():  # a memory's text cannot end the block: what followed would read
        # as the person's own words (any letter case: models read tags case-blind)
        lines.append(_TURN_TAG.sub(r"&lt;\1", memories.strip()))
    lines.append(TURN_CONTEXT_CLOSE)
    return "\n".join(lines)


def user_turn(user_input: str, context_block: str, attachments: Attachments | None = None,
              shell: Sequence[ShellNote] = (), notes: Sequence[str] = ()) -> Message:
    """The person's message as the model sees it: the turn context, then their words, then
    the files they attached with ``@`` (core.agent.mentions) and the output of the
    ``!commands`` they ran since their last message (core.agent.shell_line).

    ``meta['user_input']`` keeps their words alone (for display and fact extraction);
    ``meta['attached']`` the attached files' paths, ``meta['shell']`` the commands,
    ``meta['notes']`` what the program did at their word since (an /undo).
    """
    from .shell_notes import shell_block

    content = f"{context_block}\n\n{user_input}" if context_block else user_input
    meta: dict[str, object] = {"user_input": user_input}
    if attachments is not None and attachments.block:
        content = f"{content}\n\n{attachments.block}"
        meta["attached"] = [f.label for f in attachments.files]
    if shell:
        content = f"{content}\n\n{shell_block(shell)}"
        meta["shell"] = [note.command for note in shell]
    if notes:  # what the program did at the person's word since (/undo)
        content = content + "".join(f"\n\n[paicli-tui] {note}" for note in notes)
        meta["notes"] = list(notes)
    return Message(Role.USER, content, meta=meta)


def person_text(message: Message) -> str:
    """What the person typed in a user message, without the program's turn context."""
    stored = message.meta.get("user_input") if message.meta else None
    if isinstance(stored, str):
        return stored
    content = message.content
    if content.startswith(TURN_CONTEXT_OPEN) and TURN_CONTEXT_CLOSE in content:
        return content.split(TURN_CONTEXT_CLOSE, 1)[1].lstrip("\n")
    return content


def runaway_notice(tool_name: str, count: int) -> Message:
    """The internal user message sent when the same call repeats ``count`` times."""
    text = load_prompt("runaway_guard").strip().format(tool=tool_name, count=count)
    return Message.user(text, internal=InternalKind.RUNAWAY_GUARD)
