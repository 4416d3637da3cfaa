"""A reply the provider ended at the model's output limit (finish reason ``length``).

A weak model asked to write a long file runs out of output tokens in the middle of the
call's arguments. Those arguments are not JSON, and the plain "not valid JSON" error sent
it back to write the same call again, cut at the same place, until the runaway guard
stopped it. Here the person is told why the reply ends where it does, and the model is told
that the limit, not its JSON, was the trouble and how to write less at once.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ...resources import load_prompt
from ..contracts.events import ReplyAtOutputLimit
from ..messages import ToolCall, read_arguments


def at_output_limit(provider: str, calls: Sequence[ToolCall]) -> ReplyAtOutputLimit:
    """The event for a reply cut at the output limit: which calls it cut off."""
    cut = tuple(call.name for call in calls if _cut_off(call.arguments))
    return ReplyAtOutputLimit(provider=provider, cut_calls=cut,
                              other_calls=len(calls) - len(cut))


def output_limit_prompt(cut_calls: Sequence[str]) -> str:
    """The notice the model reads after the results of a reply whose calls were cut."""
    names = ", ".join(dict.fromkeys(cut_calls))
    return load_prompt("output_limit").strip().format(
        calls=names, them="it" if len(cut_calls) == 1 else "they")


def _cut_off(arguments: str) -> bool:
    try:
        read_arguments(arguments)
    except (json.JSONDecodeError, RecursionError):
        return True
    return False
