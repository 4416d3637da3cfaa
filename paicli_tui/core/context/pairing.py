"""Tool-call pairing: every assistant tool call has exactly one result, right after it.

Providers reject a request where a tool result has no matching call, or a call has no
result. Loaded sessions (torn ledgers, old versions) and cancelled turns can produce both;
:func:`repair_pairing` turns any history into one a provider accepts.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import replace

from ..messages import Message, Role, ToolCall
from .boundary import tool_name_from_boundary, wrap_tool_result

CANCELLED_TEXT = ("No result: this call was interrupted (the turn was cancelled or the app "
                  "stopped) or its result was lost. It may have run, in part or in full: check "
                  "its effects (files, processes) before calling it again.")


def call_names(messages: Sequence[Message]) -> dict[str, str]:
    """Tool name for every tool-call id in the assistant messages."""
    return {call.id: call.name for m in messages if m.role is Role.ASSISTANT
            for call in m.tool_calls}


def tool_name_of(message: Message, names: dict[str, str]) -> str:
    """A tool message's tool: from its call id, else the boundary tag, else its name field."""
    if message.tool_call_id and message.tool_call_id in names:
        return names[message.tool_call_id]
    return tool_name_from_boundary(message.content) or message.name or "tool"


NOT_RUN_TEXT = ("Not run: the turn was cancelled while the person was asked to approve "
                "this call. Nothing was changed.")


def cancelled_result(call_id: str, tool_name: str, *, asked: bool = False) -> Message:
    """The stand-in result for a call that never got one; ``asked``: its turn was cancelled
    at its approval, so it is known not to have run (the generic text told the model it may
    have, and the resumed chat showed it failed)."""
    if asked:
        return Message.tool(call_id, tool_name, wrap_tool_result(tool_name, NOT_RUN_TEXT),
                            synthetic=True, status="denied")
    return Message.tool(call_id, tool_name, wrap_tool_result(tool_name, CANCELLED_TEXT),
                        synthetic=True)


INVALID_ARGUMENTS_KEY = "invalid_arguments"


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return False


def with_sendable_arguments(message: Message) -> Message:
    """``message`` with every tool call's arguments a JSON object, as providers require when
    the history is sent back. Arguments that are not (a reply cut short, a model slip) are
    kept as text under ``invalid_arguments``; a message without such calls comes back as is.
    """
    if not any(not _is_json_object(c.arguments) for c in message.tool_calls):
        return message
    calls = tuple(
        call if _is_json_object(call.arguments) else replace(
            call, arguments=json.dumps({INVALID_ARGUMENTS_KEY: call.arguments},
                                       ensure_ascii=False))
        for call in message.tool_calls)
    return message.evolve(tool_calls=calls)


def _is_empty_assistant(message: Message) -> bool:
    # Providers refuse an assistant message with neither content nor tool calls.
    return (message.role is Role.ASSISTANT and not message.tool_calls
            and not message.content.strip())


def pairing_problems(messages: Sequence[Message]) -> list[str]:
    """Human-readable list of pairing faults ([] means a provider will accept the order)."""
    problems: list[str] = []
    i = 0
    while i < len(messages):
        message = messages[i]
        if message.role is Role.TOOL:
            problems.append(f"message {i}: tool result {message.tool_call_id!r} has no call "
                            "right before it")
            i += 1
            continue
        i += 1
        if _is_empty_assistant(message):
            problems.append(f"message {i - 1}: assistant message with no text and no calls")
            continue
        if message.role is not Role.ASSISTANT or not message.tool_calls:
            continue
        wanted = [c.id for c in message.tool_calls]
        if len(set(wanted)) != len(wanted):
            problems.append(f"message {i - 1}: duplicate tool-call ids")
        if with_sendable_arguments(message) is not message:
            problems.append(f"message {i - 1}: tool-call arguments that are not a JSON object")
        open_ids = set(wanted)
        while i < len(messages) and messages[i].role is Role.TOOL:
            call_id = messages[i].tool_call_id
            if call_id in open_ids:
                open_ids.discard(call_id)
            else:
                problems.append(f"message {i}: tool result {call_id!r} answers no open call")
            i += 1
        for call_id in sorted(open_ids):
            problems.append(f"message {i - 1}: tool call {call_id!r} has no result")
    return problems


def repair_pairing(messages: Sequence[Message], not_run: Collection[str] = ()
                   ) -> tuple[list[Message], list[str]]:
    """A history a provider accepts, plus what was changed.

    Drops tool results that answer no open call (orphans, duplicates), empty assistant
    messages (no text, no calls), drops repeated call ids within one assistant message, wraps
    tool-call arguments that are not a JSON object, and answers every call left without a result by a
    "not run / cancelled" result placed with its group (``not_run``: ids cancelled at their
    approval, answered as such). A valid history comes back unchanged (same message
    objects).
    """
    out: list[Message] = []
    notes: list[str] = []
    i = 0
    while i < len(messages):
        message = messages[i]
        i += 1
        if message.role is Role.TOOL:
            notes.append(f"dropped orphan tool result {message.tool_call_id!r}")
            continue
        if _is_empty_assistant(message):
            notes.append("dropped an empty assistant message")
            continue
        if message.role is not Role.ASSISTANT or not message.tool_calls:
            out.append(message)
            continue
        unique = {}
        for call in message.tool_calls:
            unique.setdefault(call.id, call)
        if len(unique) != len(message.tool_calls):
            notes.append("dropped repeated tool-call ids in an assistant message")
            message = message.evolve(tool_calls=tuple(unique.values()))
        sendable = with_sendable_arguments(message)
        if sendable is not message:
            notes.append("kept malformed tool-call arguments as text inside a JSON object")
            message = sendable
        out.append(message)
        open_ids = dict.fromkeys(unique)
        while i < len(messages) and messages[i].role is Role.TOOL:
            result = messages[i]
            i += 1
            if result.tool_call_id in open_ids:
                del open_ids[result.tool_call_id]
                out.append(result)
            else:
                notes.append(f"dropped tool result {result.tool_call_id!r} that answers no "
                             "open call")
        for call_id in open_ids:
            notes.append(f"answered dangling tool call {call_id!r} as not run")
            out.append(cancelled_result(call_id, unique[call_id].name,
                                        asked=call_id in not_run))
    return out, notes


def with_unique_call_ids(message: Message, taken: set[str]) -> Message:
    """``message`` with every tool-call id that is empty, repeated within it, or already
    used in the history (``taken``) made unique (``id``, ``id-2``, ...), so every result
    reaches the model; ``taken`` gains the ids used."""
    calls: list[ToolCall] = []
    changed = False
    for number, call in enumerate(message.tool_calls, start=1):
        base = call.id or f"call-{number}"
        unique, suffix = base, 1
        while unique in taken:
            suffix += 1
            unique = f"{base}-{suffix}"
        taken.add(unique)
        changed = changed or unique != call.id
        calls.append(call if unique == call.id else ToolCall(unique, call.name, call.arguments))
    return message.evolve(tool_calls=tuple(calls)) if changed else message


def call_ids(messages: Sequence[Message]) -> set[str]:
    """Every tool-call id in the assistant messages."""
    return {call.id for m in messages if m.role is Role.ASSISTANT for call in m.tool_calls}
