"""Long texts in short steps, so a worker thread does not hold the interpreter for long.

A worker thread lets the event loop run only between two steps of Python: one regular
expression scan or encode over a 20 MB tool result is one step of half a second, during which
the TUI cannot draw or read a key. Slicing the text gives the loop its turn every slice.
"""

from __future__ import annotations

from collections.abc import Iterator

SLICE_CHARS = 1 << 16
"""Characters per step: a regex scan of one slice takes about 5 ms."""


def text_slices(text: str, size: int = SLICE_CHARS) -> Iterator[str]:
    """``text`` in consecutive pieces of at most ``size`` characters (none for "")."""
    if len(text) <= size:
        if text:
            yield text
        return
    for start in range(0, len(text), size):
        yield text[start:start + size]
