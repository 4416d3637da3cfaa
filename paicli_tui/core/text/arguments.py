"""A tool call's JSON arguments as the person reads them (the TUI's tool block, ``exec``)."""

from __future__ import annotations

import json


def readable_arguments(arguments: str) -> str:
    """``arguments`` as sent, except that ``\\u`` escapes (many models send all non-ASCII
    that way) are shown as the characters, so Chinese reads as Chinese. Not JSON, or a lone
    surrogate (``\\ud800``) in it: as sent."""
    if "\\u" not in arguments:
        return arguments
    try:
        shown = json.dumps(json.loads(arguments), ensure_ascii=False)
        shown.encode()
    except (ValueError, RecursionError, UnicodeError):
        return arguments
    return shown
