"""The rules for tool calls a model wrote as text (read by :mod:`..llm.text_tool_calls`).

Unasked (tools passed natively) such a call is the person's alone to approve: --yes and an
"Always" do not cover it, since text the model writes may be text it read. One that stands in
a tool result (a planted call quoted back) is not read at all, or, with tools in the prompt
where text is the only way to call, read and asked every time. Why each call is asked is kept
in the session state for the approval, and in the reply's meta for a resumed session.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..contracts.llm import ChatClient, StreamDone
from ..contracts.session_state import SessionState
from ..llm.text_tool_calls import (
    CALL_MARKS,
    TextToolCalls,
    as_read,
    read_text_tool_calls,
    unread_tagged_call,
)
from ..messages import Message, Role, ToolCall
from .tool_calls import call_key

if TYPE_CHECKING:
    from .session import AgentSession

WRITTEN_UNASKED = "written as text by the model"
QUOTED = "a tool result holds this call"
ASKED_EVERY_TIME = "asked_every_time"
"""The meta key of a reply read from text: for each call, why only the person approves it."""


def restore_text_call_rules(state: SessionState, history: Sequence[Message]) -> None:
    """A resumed session's rules for the calls its replies wrote as text (kept in each such
    reply's meta), so a quote whose result was cleared since is still taken for one."""
    for message in history:
        whys = message.meta.get(ASKED_EVERY_TIME)
        if message.role is not Role.ASSISTANT or not isinstance(whys, list):
            continue
        for call, why in zip(message.tool_calls, whys, strict=False):
            if isinstance(why, str) and why:
                state.unasked_text_calls[call.id] = why
            if why == QUOTED:
                state.quoted_calls.add(call_key(call))


def calls_written_as_text(done: StreamDone, schemas: Sequence[dict],
                           session: AgentSession, in_prompt: bool
                           ) -> tuple[TextToolCalls | None, tuple[str, ...]]:
    """Tool calls a weak model wrote into its text, read when the reply has none of its
    own, ended normally (a cut reply's JSON is not trusted) and tools were offered; and for
    each, why the person alone approves it ("" when approvals are as usual). Unasked (tools passed
    natively), a call a tool result holds is not read at all; with tools in the prompt it
    is the model's only way to call, so it is read, and asked every time like an unasked
    one (a doc that shows a call must not stop the model's own call of it)."""
    if done.message.tool_calls or done.finish_reason == "length" or not schemas:
        return None, ()
    read = read_text_tool_calls(done.message.content, offered_names(schemas))
    if read is None:
        return None, ()
    quoted = _quoted(read, session.history, session.state.quoted_calls)
    if quoted:
        # remembered: the same call written again once its result is cleared or compacted
        # away is still the quote it was
        session.state.quoted_calls.update(quoted)
        if not in_prompt:
            return None, ()
        return read, tuple(QUOTED if call_key(call) in quoted else "" for call in read.calls)
    return read, ("" if in_prompt else WRITTEN_UNASKED,) * len(read.calls)


def _quoted(read: TextToolCalls, history: Sequence[Message],
            quoted_before: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The written calls (as :func:`call_key`) that stand in a tool result: the model is
    quoting a file, a page or a command's output that holds them (a planted ``<tool_call>``
    in a hostile repository), not asking for them. A result quotes a call when it holds a
    call's mark, the tool's name and every text value of its arguments (line numbers and
    re-indenting do not hide it); a call found so before stays a quote."""
    keys = {call_key(call): call for call in read.calls}
    quoted = {key for key in keys if key in quoted_before}
    wanted = {key: (call.name, *(v for v in call.parsed_arguments().values()
                                 if isinstance(v, str)))
              for key, call in keys.items() if key not in quoted}
    for message in history:
        if not wanted:
            break
        if message.role is not Role.TOOL or not any(m in message.content for m in _ALL_MARKS):
            continue
        for text in as_read(message.content):  # escapes read as the model's call was read
            if any(m in text for m in CALL_MARKS):
                found = {key for key, parts in wanted.items()
                         if all(part in text for part in parts)}
                quoted |= found
                wanted = {key: parts for key, parts in wanted.items() if key not in found}
    return quoted


_ALL_MARKS = (*CALL_MARKS, "\\u")
"""A call's marks, or an escape that may hide one."""


def hold_to_rules(state: SessionState, recorded: Sequence[ToolCall],
                  whys: Sequence[str]) -> None:
    """Note why each recorded call is the person's alone to approve, or that it is not:
    ids are unique in the history only, so an id used again after compaction dropped its
    first call must not carry that call's rule."""
    for n, call in enumerate(recorded):
        if n < len(whys) and whys[n]:
            state.unasked_text_calls[call.id] = whys[n]
        else:
            state.unasked_text_calls.pop(call.id, None)


def tools_in_prompt(client: ChatClient) -> bool:
    """Whether this client describes tools in the prompt (so calls come back as text by
    design, not by a model's slip)."""
    protocol = getattr(client, "tool_protocol", None)
    return getattr(protocol, "protocol", "native") == "prompt"


def offered_names(schemas: Sequence[dict]) -> set[str]:
    """The names of the tools a request offers."""
    names = {s.get("function", {}).get("name") for s in schemas if isinstance(s, dict)}
    return {name for name in names if isinstance(name, str)}


def unread_text_call(done: StreamDone, schemas: Sequence[dict]) -> str | None:
    """Why the reply's ``<tool_call>`` tags could not be run, for a reply with no calls of
    its own that ended normally while tools were offered; None otherwise."""
    if done.message.tool_calls or done.finish_reason == "length" or not schemas:
        return None
    return unread_tagged_call(done.message.content, offered_names(schemas))
