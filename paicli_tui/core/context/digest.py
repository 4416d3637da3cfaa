"""The model-free digest (beyond the reference): the summary that always fits.

When no valid summary can be had (the model ignores the format even after the repair, fails,
times out, or the circuit breaker is open) and the history would still pass the compaction
trigger, the part before the cut is written whole to a transcript file and replaced by this
digest: the same four sections as a summary, filled mechanically — the person's messages in
order (shortened), the tool calls and their targets, files read and changed, errors seen, an
earlier summary carried forward, and the transcript's path with how to read it. Pure: text
in, text out; a later real summary reads it as a previous summary and builds on it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..messages import InternalKind, Message, Role
from ..plural import counted, noun_for
from .boundary import unwrap_tool_result
from .offload import READ_BACK_LINES
from .pairing import call_names, tool_name_of
from .summary import SECTION_TITLES, SUMMARY_MARKER

DIGEST_NOTE = "(Written without a model: no valid summary could be had.)"
TARGET_KEYS = ("path", "command", "query", "pattern", "symbol", "url", "name", "content")
READ_TOOLS = frozenset({"read_file"})
WRITE_TOOLS = frozenset({"write_file", "edit_file"})
_FAILED = frozenset({"failed", "denied"})


def shorten(text: str, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters (head and tail kept)."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    keep = max(limit - 5, 2)
    return flat[: keep * 2 // 3] + " … " + flat[-(keep - keep * 2 // 3):]


def _target(arguments: str) -> str:
    try:
        value = json.loads(arguments or "{}")
    except (ValueError, RecursionError):
        return shorten(arguments, 60)
    if not isinstance(value, dict):
        return ""
    for key in TARGET_KEYS:
        if isinstance(value.get(key), str) and value[key].strip():
            return shorten(value[key], 80)
    return ""


def _previous_summary(message: Message) -> str:
    text = message.content
    if text.startswith(SUMMARY_MARKER):
        text = text[len(SUMMARY_MARKER):]
    return text.strip()


@dataclass
class _Facts:
    requests: list[str] = field(default_factory=list)
    calls: dict[str, list[str]] = field(default_factory=dict)
    read: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    earlier: list[str] = field(default_factory=list)
    call_count: int = 0


def _gather(messages: Sequence[Message]) -> _Facts:
    facts = _Facts()
    names = call_names(messages)
    for message in messages:
        if message.is_real_user_turn:
            facts.requests.append(str(message.meta.get("user_input") or message.content))
        elif message.internal is InternalKind.SUMMARY:
            facts.earlier.append(_previous_summary(message))
        elif message.role is Role.ASSISTANT:
            for call in message.tool_calls:
                facts.call_count += 1
                target = _target(call.arguments)
                facts.calls.setdefault(call.name, [])
                if target and target not in facts.calls[call.name]:
                    facts.calls[call.name].append(target)
                listed = facts.read if call.name in READ_TOOLS else \
                    facts.changed if call.name in WRITE_TOOLS else None
                if listed is not None and target and target not in listed:
                    listed.append(target)
        elif message.role is Role.TOOL:
            body = unwrap_tool_result(message.content).strip()
            failed = message.meta.get("status") in _FAILED or \
                body.lower().startswith(("error", "failed"))
            if failed:
                facts.errors.append(f"{tool_name_of(message, names)}: {shorten(body, 200)}")
    return facts


def _bullets(items: Sequence[str], budget: int, more: str) -> list[str]:
    """As many ``items`` as fit ``budget`` characters: the first few and the last ones (the
    newest matter most), with a line saying how many were left out."""
    lines = [f"- {item}" for item in items]
    if sum(len(line) + 1 for line in lines) <= budget:
        return lines
    head = lines[:2]
    used = sum(len(line) + 1 for line in head)
    tail: list[str] = []
    for line in reversed(lines[2:]):
        if used + len(line) + 1 > budget - 80:
            break
        tail.insert(0, line)
        used += len(line) + 1
    left = len(lines) - len(head) - len(tail)
    return [*head, f"- … {left} more {noun_for(left, more)} (in the transcript)", *tail]


def build_digest(messages: Sequence[Message], *, reason: str, transcript: str | None,
                 transcript_error: str | None = None, max_chars: int = 6_000) -> str:
    """The four-section digest of ``messages`` (the part before the cut), at most about
    ``max_chars`` characters. ``transcript``: where the full text was saved (None: why not,
    in ``transcript_error``)."""
    facts = _gather(messages)
    budget = max(600, max_chars - 900)
    per_request = max(60, min(400, budget // 2 // max(1, len(facts.requests))))
    latest = shorten(facts.requests[-1], 400) if facts.requests else "none recorded"
    goal = [DIGEST_NOTE + f" Why: {shorten(reason, 200)}.",
            f'The person\'s latest request in this part: "{latest}".',
            "The current goal is in the kept messages below; verify details in the transcript."]
    asks = _bullets([f'"{shorten(r, per_request)}"' for r in facts.requests], budget * 4 // 10,
                    "request") or ["- none"]
    work = [f"- {counted(facts.call_count, 'tool call')}: " + "; ".join(
        f"{name} ×{len(targets) or 1}" for name, targets in facts.calls.items())
        if facts.call_count else "- no tool calls"]
    work += _bullets([f"{name}: {', '.join(targets[-6:])}" for name, targets in
                      facts.calls.items() if targets], budget // 5, "tool")
    work.append("- Files read: " + (", ".join(facts.read[-12:]) or "none"))
    work.append("- Files changed: " + (", ".join(facts.changed[-12:]) or "none"))
    for earlier in facts.earlier[-1:]:
        work.append("- Earlier summary, carried forward (shortened): "
                    + shorten(earlier, budget // 5))
    if transcript:
        where = (f"- The full text of this part is saved in {transcript}; read it with "
                 f'read_file(path="{transcript}", offset=<first line>, '
                 f"limit={READ_BACK_LINES}) when a detail is needed.")
    else:
        where = (f"- The full text of this part could not be saved ({transcript_error}); "
                 "it stays in the session ledger.")
    problems = _bullets(facts.errors, budget // 10, "error") or ["- no errors seen"]
    sections = [goal, asks, work, [*problems, where]]
    return "\n\n".join(f"## {number}. {title}\n" + "\n".join(lines)
                       for number, (title, lines) in
                       enumerate(zip(SECTION_TITLES, sections, strict=True), start=1))
