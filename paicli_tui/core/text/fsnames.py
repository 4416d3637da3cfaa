"""File names made of any bytes: how they are shown, keyed and found again.

A POSIX file name is bytes, not text. Python hands names that are not UTF-8 over as
``os.fsdecode`` strings, where each undecodable byte is a lone surrogate (``caf\\udce9.py``);
such a string cannot be encoded as UTF-8, printed, put in JSON for a terminal or stored in the
index. So every tool shows a name through :func:`display_name` (undecodable bytes and control
characters as ``\\xNN``, everything else as it is), hashes it through :func:`name_bytes` (the
original bytes), and maps a shown name the model passes back to the file with
:func:`resolve_shown`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_NEEDS_ESCAPE = re.compile("[\x00-\x1f\x7f\x80-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""Control characters, undecodable bytes, and the bidirectional embedding, override and
isolate controls (Trojan Source): a terminal that lays out bidirectional text draws what
follows one in another order (``invoice\\u202egnp.py`` reads ``invoiceyp.png``)."""
_ESCAPE = re.compile(r"\\x([0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    # \xNN always means one byte of the name; other characters use \uNNNN
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"


def display_name(name: str) -> str:
    """``name`` as safe text: undecodable bytes and control characters as ``\\xNN``, the
    bidirectional controls as ``\\uNNNN`` (a name that is plain UTF-8 without them comes
    back unchanged)."""
    return _NEEDS_ESCAPE.sub(_escape, name)


def name_bytes(name: str) -> bytes:
    """The file name's own bytes (for ids and hashes that must not depend on decoding)."""
    return os.fsencode(name) if os.name != "nt" else name.encode("utf-8", "surrogatepass")


def _unescape(match: re.Match[str]) -> str:
    if match.group(1):
        code = int(match.group(1), 16)
        return chr(0xDC00 + code) if code >= 0x80 else chr(code)
    return chr(int(match.group(2), 16))


def from_display(text: str) -> str:
    """The ``os.fsdecode`` name a :func:`display_name` text stands for."""
    return _ESCAPE.sub(_unescape, text) if "\\" in text else text


def resolve_shown(root: Path, text: str) -> Path:
    """The file a name shown by the tools refers to: the literal name when it exists (a name
    that really holds a backslash), else the escapes turned back into bytes."""
    literal = Path(root) / text
    if "\\" not in text or os.path.lexists(literal):
        return literal
    decoded = Path(root) / from_display(text)
    return decoded if os.path.lexists(decoded) else literal
