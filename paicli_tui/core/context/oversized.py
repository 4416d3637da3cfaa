"""Offload oversized messages (beyond the reference): the step before a summary.

Tool results are offloaded when they arrive (tier 1), but a 50 MB assistant reply, a long
reasoning trace or a 3 MB ``write_file`` argument enter the history whole. Summarising them
would take hundreds of model calls, and keeping them would overflow the window. So, before
chunking, the same treatment as a tool result: the full text goes to a file under
``.paicli/tool-outputs/<session>/`` and the message keeps a notice with its head, its tail and
how to read the rest with ``read_file``. Reasoning from earlier turns goes first: the model
never needs it again (providers do not ask for it back), so it is saved and dropped.

Pure apart from the injected ``save``: the input list is not modified, untouched messages
are the same objects, ids, roles and ``tool_call_id`` never change.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..messages import Message, Role, ToolCall
from ..plural import counted
from ..tokens import estimate_request, estimate_text
from .boundary import unwrap_tool_result, wrap_tool_result
from .offload import HEAD_CHARS, TAIL_CHARS, SaveOutput, offload_notice
from .pairing import call_names, tool_name_of
from .report import CompactionReport

OFFLOADED_ARGUMENTS_KEY = "offloaded_arguments"
"""Tool-call arguments replaced by a notice keep this one key (a JSON object stays valid)."""


def message_threshold(offload_threshold_chars: int, compaction_trigger: int) -> int:
    """Characters above which one message is offloaded: the tool-result threshold, lowered
    for a small window so one message can never take more than about a quarter of the
    compaction trigger (4 characters a token)."""
    return max(1_000, min(offload_threshold_chars, compaction_trigger))


def _previews(threshold: int) -> tuple[int, int]:
    """Head and tail kept in a notice: the tool-result sizes, scaled down for a low
    threshold so the notice stays well below it."""
    return min(HEAD_CHARS, threshold // 4), min(TAIL_CHARS, threshold // 10)


def _save(save: SaveOutput | None, label: str, text: str) -> tuple[str | None, str | None]:
    if save is None:
        return None, "no place to save it"
    try:
        return save(label, text), None
    except OSError as exc:
        return None, exc.strerror or type(exc).__name__


def _last_user_turn(messages: Sequence[Message]) -> int:
    return max((i for i, m in enumerate(messages) if m.is_real_user_turn), default=0)


def offload_old_reasoning(messages: Sequence[Message], save: SaveOutput | None
                          ) -> tuple[list[Message], CompactionReport]:
    """Reasoning of assistant messages before the last real user turn, saved in one file and
    removed from those messages."""
    before = estimate_request(messages)
    start = _last_user_turn(messages)
    picked = [i for i, m in enumerate(messages[:start])
              if m.role is Role.ASSISTANT and m.reasoning]
    if not picked:
        return list(messages), CompactionReport("offload", False, before, before,
                                                "no old reasoning")
    text = "\n\n".join(f"### reasoning of message {messages[i].id}\n{messages[i].reasoning}"
                       for i in picked)
    path, _ = _save(save, "reasoning", text)
    out = list(messages)
    for i in picked:
        meta = {**out[i].meta, "reasoning_path": path} if path else out[i].meta
        out[i] = out[i].evolve(reasoning=None, meta=meta)
    after = estimate_request(out)
    where = f"saved to {path}" if path else "dropped"
    return out, CompactionReport(
        "offload", True, before, after,
        f"reasoning of {counted(len(picked), 'earlier message')}, {len(text):,} characters, "
        f"{where}",
        path=path)


def _person_words_end(message: Message, threshold: int) -> int | None:
    """Where the person's own words end in a user message that carries more after them
    (attached files, command output), when what comes up to there is short enough to stay:
    cut at the head instead, the turn's memories could fill it and leave their question
    only in the file."""
    words = message.meta.get("user_input") if message.role is Role.USER else None
    if not isinstance(words, str) or not words.strip():
        return None
    # after the turn's context and its blank line: a memory may hold the same words
    at = message.content.find("\n\n" + words)
    at = at + 2 if at >= 0 else (0 if message.content.startswith(words) else -1)
    end = at + len(words)
    # a quarter: with the notice (a quarter, a tenth and its lines) it stays below threshold
    return end if at >= 0 and end <= threshold // 4 < len(message.content) - end else None


def _shrunk(message: Message, threshold: int, tool_threshold: int, save: SaveOutput | None,
            names: dict[str, str]) -> tuple[Message, list[str]]:
    """``message`` with every part above ``threshold`` characters (a tool result: above
    ``tool_threshold``) offloaded, and a label per part offloaded."""
    head, tail = _previews(threshold)
    done: list[str] = []
    changes: dict[str, object] = {}
    content = message.content
    limit = tool_threshold if message.role is Role.TOOL else threshold
    if len(content) > limit:
        if message.role is Role.TOOL:
            name = tool_name_of(message, names)
            inner = unwrap_tool_result(content)
            path, error = _save(save, name, inner)
            notice = offload_notice(f"output from {name}", inner, path, error,
                                    head=head, tail=tail)
            changes["content"] = wrap_tool_result(name, notice)
        elif (words_end := _person_words_end(message, threshold)) is not None:
            rest = content[words_end:]
            path, error = _save(save, message.role.value, rest)
            changes["content"] = content[:words_end] + "\n\n" + offload_notice(
                "part of the user message after their words (files they attached, output "
                "of their commands)", rest, path, error, head=head, tail=tail)
        else:
            subject = f"{message.role.value} message"
            path, error = _save(save, message.role.value, content)
            changes["content"] = offload_notice(subject, content, path, error,
                                                head=head, tail=tail)
        done.append(f"{message.role.value} text ({len(content):,} characters)")
    calls: list[ToolCall] = []
    for call in message.tool_calls:
        if len(call.arguments) > threshold:
            path, error = _save(save, f"{call.name}-arguments", call.arguments)
            notice = offload_notice(f"arguments of a {call.name} call", call.arguments, path,
                                    error, head=head, tail=tail)
            calls.append(ToolCall(call.id, call.name,
                                  json.dumps({OFFLOADED_ARGUMENTS_KEY: notice},
                                             ensure_ascii=False)))
            done.append(f"{call.name} arguments ({len(call.arguments):,} characters)")
        else:
            calls.append(call)
    if any(a is not b for a, b in zip(calls, message.tool_calls, strict=True)):
        changes["tool_calls"] = tuple(calls)
    reasoning = message.reasoning or ""
    if len(reasoning) > threshold:
        path, _ = _save(save, "reasoning", reasoning)
        changes["reasoning"] = None
        done.append(f"reasoning ({len(reasoning):,} characters)")
        if path:
            changes["meta"] = {**message.meta, "reasoning_path": path}
    if not changes:
        return message, []
    return message.evolve(**changes), done


def offload_oversized(messages: Sequence[Message], save: SaveOutput | None, *,
                      threshold: int, tool_threshold: int | None = None
                      ) -> tuple[list[Message], CompactionReport]:
    """Every non-system message part (text, tool-call arguments, reasoning) longer than
    ``threshold`` characters saved to a file and replaced by a notice (head, tail, path).
    Tool results keep tier 1's own threshold (``tool_threshold``, default ``threshold``):
    a result below it that arrived whole is clearing's business (it can be fetched again);
    one above it got in unsaved (a paged read, a resumed session) and goes to a file."""
    tool_threshold = threshold if tool_threshold is None else tool_threshold
    before = estimate_request(messages)
    names = call_names(messages)
    out = list(messages)
    labels: list[str] = []
    for index, message in enumerate(messages):
        if message.role is Role.SYSTEM:
            continue
        out[index], done = _shrunk(message, threshold, tool_threshold, save, names)
        labels += done
    if not labels:
        return out, CompactionReport("offload", False, before, before,
                                     "no message above the offload threshold")
    after = estimate_request(out)
    shown = ", ".join(labels[:4]) + (f" and {len(labels) - 4} more" if len(labels) > 4 else "")
    return out, CompactionReport("offload", True, before, after,
                                 f"saved {counted(len(labels), 'oversized part')} to files: "
                                 f"{shown}")


ARGUMENT_HEAD_CHARS = 300
ARGUMENT_TAIL_CHARS = 100
"""Previews kept for arguments saved to make a turn fit: many go at once, so they are short."""
MIN_ARGUMENT_CHARS = 1_000
"""Arguments shorter than this are left in place (their notice would save next to nothing)."""


def offload_arguments_to_fit(messages: Sequence[Message], save: SaveOutput | None,
                             over: int) -> tuple[list[Message], CompactionReport]:
    """The arguments of tool calls that were answered, largest first, saved to files and
    replaced by short notices until about ``over`` tokens are taken off. For a kept turn that
    is itself too big (a task writing many files, a reply of dozens of calls): no summary
    reaches it, clearing replaces results only, and each of these arguments is below the
    offload threshold. The calls ran; their ids, names and results stay, and the arguments
    stay a JSON object."""
    before = estimate_request(messages)
    answered = {m.tool_call_id for m in messages if m.role is Role.TOOL}
    picked = sorted(((len(call.arguments), i, j) for i, m in enumerate(messages)
                     if m.role is Role.ASSISTANT for j, call in enumerate(m.tool_calls)
                     if call.id in answered and len(call.arguments) > MIN_ARGUMENT_CHARS
                     and OFFLOADED_ARGUMENTS_KEY not in call.arguments[:40]),
                    key=lambda item: (-item[0], item[1], item[2]))
    changed: dict[int, list[ToolCall]] = {}
    gained, saved, chars = 0, 0, 0
    for _, i, j in picked:
        if gained >= over:
            break
        calls = changed.setdefault(i, list(messages[i].tool_calls))
        call = calls[j]
        path, error = _save(save, f"{call.name}-arguments", call.arguments)
        notice = offload_notice(f"arguments of a {call.name} call", call.arguments, path,
                                error, head=ARGUMENT_HEAD_CHARS, tail=ARGUMENT_TAIL_CHARS)
        arguments = json.dumps({OFFLOADED_ARGUMENTS_KEY: notice}, ensure_ascii=False)
        calls[j] = ToolCall(call.id, call.name, arguments)
        gained += estimate_text(call.arguments) - estimate_text(arguments)
        saved += 1
        chars += len(call.arguments)
    if not changed:
        return list(messages), CompactionReport("offload", False, before, before,
                                                "no tool-call arguments to save")
    out = list(messages)
    for i, calls in changed.items():
        out[i] = out[i].evolve(tool_calls=tuple(calls))
    return out, CompactionReport(
        "offload", True, before, estimate_request(out),
        f"saved the arguments of {counted(saved, 'tool call')} that ran ({chars:,} characters) to "
        "files, largest first")
