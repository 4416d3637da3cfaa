"""Alt+Enter as a key of its own.

Most terminals (and tmux) send Alt+Enter as ESC followed by CR. Textual's parser has no
entry for that pair: it drops the Alt and reports a plain Enter, so the message was sent
instead of getting a new line. Registering the pair makes it an ``alt+enter`` key, which the
input treats as a new line. Terminals with the kitty keyboard protocol report Alt+Enter
themselves and are not affected.
"""

from __future__ import annotations

ALT_ENTER_SEQUENCES = ("\x1b\r", "\x1b\n")


class _KeyName(str):
    """Stands in for a ``textual.keys.Keys`` member: the parser only reads ``.value``."""

    @property
    def value(self) -> str:
        return str(self)


def register_alt_enter() -> None:
    """Map ESC+CR (and ESC+LF) to ``alt+enter`` in Textual's escape-sequence table."""
    from textual import _ansi_sequences

    table = _ansi_sequences.ANSI_SEQUENCES_KEYS
    for sequence in ALT_ENTER_SEQUENCES:
        table.setdefault(sequence, (_KeyName("alt+enter"),))  # type: ignore[index]
