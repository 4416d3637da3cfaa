"""Tier 2 — clear old tool results (behaviour §4).

Lossless for the model: a cleared result says which tool produced it and that calling it
again (or reading the saved file) brings it back. Message count, ids and ``tool_call_id``
never change, so pairing and the ledger's view of the history stay intact.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ..messages import Message, Role
from ..plural import counted
from ..tokens import MESSAGE_OVERHEAD, estimate_message, estimate_request
from .boundary import result_chars, wrap_tool_result
from .offload import offload_path_in
from .pairing import call_names, tool_name_of
from .report import CompactionReport

CLEARED_MARKER = "[Cleared to save context]"


def is_cleared(message: Message) -> bool:
    """True for a tool result that clearing already replaced."""
    # by the mark clearing sets, never by the text: a page, an MCP answer or a file opening
    # with the marker text stayed in the history for good, "already cleared"
    return bool(message.meta.get("cleared"))


def placeholder(tool_name: str, original_chars: int, approx_tokens: int,
                offload_path: str | None) -> str:
    """The text that stands in for a cleared result (wrapped, so the tool name stays known)."""
    text = (f"{CLEARED_MARKER} An earlier result of {tool_name} (about {original_chars:,} "
            f"characters, ~{approx_tokens:,} tokens) was removed "
            f"from the conversation. Call {tool_name} again if you need it.")
    if offload_path:
        text += (f" Its full output is still saved in {offload_path}; read it with "
                 f'read_file(path="{offload_path}", offset=..., limit=200).')
    return wrap_tool_result(tool_name, text)


def clear_tool_results(messages: Sequence[Message], *, keep_recent: int = 3,
                       min_chars: int = 400, exclude: Collection[str] = ()
                       ) -> tuple[list[Message], CompactionReport]:
    """The history with every tool result older than the newest ``keep_recent`` replaced by a
    placeholder, except results shorter than ``min_chars`` (counted without the boundary
    wrapper), ones already cleared, and results of the tools named in ``exclude``.

    Pure: the input is not modified; unchanged messages are the same objects.
    """
    before = estimate_request(messages)
    names = call_names(messages)
    out = list(messages)
    seen = cleared = 0
    freed_chars = 0
    for index in range(len(out) - 1, -1, -1):
        message = out[index]
        if message.role is not Role.TOOL:
            continue
        seen += 1
        if seen <= keep_recent or result_chars(message.content) < min_chars \
                or is_cleared(message):
            continue
        name = tool_name_of(message, names)
        if name in exclude:
            continue
        path = message.meta.get("offload_path") or offload_path_in(message.content)
        original = int(message.meta.get("original_chars") or len(message.content))
        # the memoised estimate (minus framing) avoids rescanning megabytes of text
        tokens = max(0, estimate_message(message) - MESSAGE_OVERHEAD)
        new_content = placeholder(name, original, tokens, path)
        if len(new_content) >= len(message.content):
            continue  # nothing to gain
        meta = {**message.meta, "cleared": True, "original_chars": original}
        if path:
            meta["offload_path"] = path
        out[index] = message.evolve(content=new_content, meta=meta)
        cleared += 1
        freed_chars += len(message.content) - len(new_content)
    after = estimate_request(out) if cleared else before
    detail = (f"cleared {counted(cleared, 'old tool result')}, {freed_chars:,} characters"
              if cleared else "no tool result to clear")
    return out, CompactionReport("clearing", cleared > 0, before, after, detail)
