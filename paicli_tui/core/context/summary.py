"""Tier 3 — summarise old turns (SPEC §5). Lossy: the last resort.

The history is cut on a real user message so every assistant tool call stays on the same
side as its results; the part before the cut is rendered as a transcript, summarised by an
injected :data:`TextCompleter` (one call per 60,000-character chunk, then a merge), checked
for the four fixed sections, repaired at most once, and used only when the rebuilt history
is smaller. Any failure leaves the history exactly as it was.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...resources import load_prompt
from ..contracts.llm import TextCompleter
from ..messages import InternalKind, Message, Role
from ..tokens import estimate_request
from .report import CompactionReport

SECTION_TITLES = (
    "Current goal and success criteria",
    "User requirements and confirmed decisions",
    "Work done and evidence",
    "Open problems and next steps",
)
SUMMARY_MARKER = ("[Summary of the earlier conversation. Older messages were compacted into "
                  "this summary; the most recent messages follow unchanged.]")
ACKNOWLEDGEMENT = "Understood. I will continue from this summary and the messages after it."
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s*(?:\d+[.)]\s*)?(.+?)\s*#*\s*$")


@dataclass(frozen=True)
class SummaryOptions:
    """Knobs of tier 3 (defaults are the SPEC numbers)."""

    keep_user_turns: int = 3
    chunk_chars: int = 60_000
    partial_chars: int = 8_000


def find_cut(messages: Sequence[Message], keep_user_turns: int) -> int | None:
    """Index of the first kept message: the ``keep_user_turns``-th real user message from the
    end. None when there are not that many turns, or when the only things before the cut are
    system messages, internal messages and an earlier summary's acknowledgement."""
    if keep_user_turns < 1:
        raise ValueError("keep_user_turns must be at least 1")
    seen = 0
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].is_real_user_turn:
            seen += 1
            if seen == keep_user_turns:
                return index if _has_new_material(messages[:index]) else None
    return None


def _has_new_material(head: Sequence[Message]) -> bool:
    previous: Message | None = None
    for message in head:
        is_ack = (previous is not None and previous.internal is InternalKind.SUMMARY
                  and message.role is Role.ASSISTANT and not message.tool_calls)
        if message.role is not Role.SYSTEM and message.internal is None and not is_ack:
            return True
        previous = message
    return False


def _label(message: Message) -> str:
    if message.role is Role.TOOL:
        return f"TOOL[{message.tool_call_id or ''}]"
    if message.internal is InternalKind.SUMMARY:
        return "PREVIOUS SUMMARY"
    return message.role.value.upper()


def render_entries(messages: Sequence[Message]) -> list[str]:
    """Transcript entries (each ending in a blank line) for the messages to summarise.

    System messages and internal messages other than earlier summaries are left out.
    """
    entries: list[str] = []
    for message in messages:
        if message.role is Role.SYSTEM:
            continue
        if message.internal is not None and message.internal is not InternalKind.SUMMARY:
            continue
        text = message.content
        if message.images:
            text += "".join(" [image]" for _ in message.images)
        if text or message.role is not Role.ASSISTANT:
            entries.append(f"{_label(message)}: {text}\n\n")
        for call in message.tool_calls:
            entries.append(f"TOOL_CALL[{call.id}] {call.name}: {call.arguments}\n\n")
    return entries


def chunk_entries(entries: Sequence[str], limit: int) -> list[str]:
    """Pack entries into chunks of at most ``limit`` characters, in order; an entry longer
    than ``limit`` is split across chunks."""
    chunks: list[str] = []
    current = ""
    for entry in entries:
        if len(current) + len(entry) <= limit:
            current += entry
            continue
        if current:
            chunks.append(current)
            current = ""
        while len(entry) > limit:
            chunks.append(entry[:limit])
            entry = entry[limit:]
        current = entry
    if current:
        chunks.append(current)
    return chunks


def validate_summary(text: str) -> list[str]:
    """Problems with a summary's structure ([] = the four sections, once each, in order)."""
    found: list[str] = []
    wanted = {t.lower(): t for t in SECTION_TITLES}
    for line in text.splitlines():
        match = _HEADING.match(line)
        if match and line.lstrip().startswith("#"):
            title = match.group(1).strip().rstrip(":").strip().lower()
            if title in wanted:
                found.append(wanted[title])
    problems = [f"missing section: {t}" for t in SECTION_TITLES if t not in found]
    if len(found) != len(set(found)):
        problems.append("a section appears more than once")
    if not problems and found != list(SECTION_TITLES):
        problems.append("sections are out of order")
    return problems


def skill_note(dropped: Sequence[Message]) -> str:
    """A line naming skills whose injected text the summary dropped ('' when none)."""
    names: list[str] = []
    for message in dropped:
        if message.internal is InternalKind.SKILL:
            name = str(message.meta.get("skill") or "").strip()
            if name and name not in names:
                names.append(name)
    if not names:
        return ""
    return ("Skills whose instructions were removed by this summary: " + ", ".join(names)
            + ". Load them again before relying on them.")


def rebuild(messages: Sequence[Message], cut: int, summary: str) -> list[Message]:
    """System messages, the summary as an internal user message, an acknowledgement, then
    the kept tail unchanged."""
    head = messages[:cut]
    systems = [m for m in head if m.role is Role.SYSTEM]
    body = f"{SUMMARY_MARKER}\n\n{summary.strip()}"
    note = skill_note(head)
    if note:
        body += f"\n\n{note}"
    marker = Message.user(body, internal=InternalKind.SUMMARY)
    return [*systems, marker, Message.assistant(ACKNOWLEDGEMENT), *messages[cut:]]


async def _draft(entries: list[str], complete: TextCompleter, options: SummaryOptions) -> str:
    chunks = chunk_entries(entries, options.chunk_chars)
    if len(chunks) == 1:
        return await complete(load_prompt("summary"), chunks[0])
    partials = []
    template = load_prompt("summary_partial")
    for number, chunk in enumerate(chunks, start=1):
        prompt = (template.replace("{part}", str(number)).replace("{parts}", str(len(chunks)))
                  .replace("{limit}", f"{options.partial_chars:,}"))
        partial = (await complete(prompt, chunk)).strip()
        partials.append(partial[: options.partial_chars])
    merged_input = "\n\n".join(f"### Notes for part {i} of {len(partials)}\n{p}"
                               for i, p in enumerate(partials, start=1))
    return await complete(load_prompt("summary_merge"), merged_input)


async def write_summary(entries: list[str], complete: TextCompleter, options: SummaryOptions
                        ) -> tuple[str | None, str]:
    """A valid four-section summary of ``entries`` (after at most one repair call), or None
    and the reason it was abandoned."""
    try:
        draft = await _draft(entries, complete, options)
        problems = validate_summary(draft)
        if problems:
            draft = await complete(load_prompt("summary_repair"), draft)
            problems = validate_summary(draft)
    except Exception as exc:  # a failing model must not break the turn; history stays
        return None, f"summary call failed: {type(exc).__name__}: {exc}"
    if problems:
        return None, "summary abandoned after one repair: " + "; ".join(problems)
    return draft.strip(), "ok"


async def summarise_history(messages: Sequence[Message], complete: TextCompleter | None,
                            options: SummaryOptions | None = None
                            ) -> tuple[list[Message], CompactionReport]:
    """Tier 3: the history with everything before the cut replaced by a summary, or the
    history unchanged (same list contents) with a report saying why not."""
    options = options or SummaryOptions()
    original = list(messages)
    before = estimate_request(original)

    def unchanged(reason: str) -> tuple[list[Message], CompactionReport]:
        return original, CompactionReport("summary", False, before, before, reason)

    if complete is None:
        return unchanged("no model configured to write a summary")
    cut = find_cut(original, options.keep_user_turns)
    if cut is None:
        return unchanged(f"fewer than {options.keep_user_turns + 1} user turns: nothing to "
                         "summarise")
    entries = render_entries(original[:cut])
    if not entries:
        return unchanged("nothing to summarise before the kept turns")
    draft, reason = await write_summary(entries, complete, options)
    if draft is None:
        return unchanged(reason)
    return apply_summary(original, cut, draft, before)


def apply_summary(original: list[Message], cut: int, draft: str, before: int
                  ) -> tuple[list[Message], CompactionReport]:
    """Rebuild around ``cut`` with a valid ``draft``; keep the history if that is not smaller."""
    rebuilt = rebuild(original, cut, draft)
    after = estimate_request(rebuilt)
    if after >= before:
        return original, CompactionReport(
            "summary", False, before, before,
            f"summary abandoned: not smaller ({after:,} >= {before:,} tokens)")
    dropped = cut - sum(1 for m in original[:cut] if m.role is Role.SYSTEM)
    return rebuilt, CompactionReport(
        "summary", True, before, after,
        f"summarised {dropped} message(s); kept the last {len(original) - cut}",
        summary=draft.strip())
