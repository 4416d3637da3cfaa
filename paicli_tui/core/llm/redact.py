"""Keep secrets out of every message that leaves a client (errors, logs, events, tool output).

Removing the keys from a command's environment is the real protection (see
``core/agent/tools/command_env.py``); this is the second line, for a key that reaches text
anyway (a ``.env`` file the model reads, a config dump). A key is found not only verbatim but
also transformed the way a shell one-liner would: reversed (``rev``), upper/lower-cased or
rot13 (``tr``), spaced out or split over lines (``fold``, ``sed 's/./& /g'``), as hex
(``xxd -p``), base64 or base32 (at any offset in the stream), or in a dump whose lines open
with an offset (``xxd``, ``hexdump -C``, ``od -c``, ``od -x``, ``od -t x1z``,
plain ``od``, ``od -b`` or ``od -d``): each line of the dump that
holds a part of the key is masked whole, its printable column too.
"""

from __future__ import annotations

import base64
import codecs
import math
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import accumulate

from ...config import Secret
from ..contracts.secrets import scrub_secret_values
from ..text_slices import SLICE_CHARS, text_slices

_ALNUM_RUN = re.compile(r"[A-Za-z0-9]+")
MIN_TRANSFORMED = 12
"""Shortest normalised form looked for in transformed text (shorter ones match by chance)."""
MASK = "****"


def _normalise(text: str) -> str:
    return "".join(_ALNUM_RUN.findall(text)).lower()


def _encoded_cores(data: bytes, encode: Callable[[bytes], bytes], bits: int) -> list[str]:
    """The characters of ``encode`` (``bits`` a character) that depend only on ``data``,
    for each offset it can have in a longer stream (what ``printenv KEY | base64`` prints
    contains one): base64 has three, base32 five."""
    cores = []
    for offset in range(math.lcm(8, bits) // 8):
        encoded = encode(b"\0" * offset + data).decode("ascii").rstrip("=")
        start = -(-8 * offset // bits)
        end = 8 * (offset + len(data)) // bits
        cores.append(encoded[start:end])
    return cores


def _base64_cores(data: bytes) -> list[str]:
    return _encoded_cores(data, base64.b64encode, 6)


def _base32_cores(data: bytes) -> list[str]:
    return _encoded_cores(data, base64.b32encode, 5)


def _swapped_hex(data: bytes) -> str:
    """Hex of ``data`` read as little-endian 16-bit words (``od -x``, plain ``hexdump``)."""
    even = data[:len(data) - len(data) % 2]
    return b"".join(even[i + 1:i + 2] + even[i:i + 1] for i in range(0, len(even), 2)).hex()


@lru_cache(maxsize=64)
def _variants(value: str) -> tuple[str, ...]:
    """Normalised (alphanumerics only, lower case) forms of a secret and its transforms."""
    raw = value.encode("utf-8", "surrogatepass")
    forms = [value, value[::-1], codecs.encode(value, "rot13"), raw.hex(), raw[::-1].hex(),
             *_base64_cores(raw), *_base64_cores(raw + b"\n"), *_base32_cores(raw),
             *_base32_cores(raw + b"\n")]
    normalised = (_normalise(f) for f in forms)
    return tuple(dict.fromkeys(f for f in normalised if len(f) >= MIN_TRANSFORMED))


def _numbers(data: bytes) -> list[str]:
    """The digits ``od`` prints for ``data`` in octal and in decimal, byte by byte (``-b``,
    ``-tu1``) and as little-endian 16-bit words (plain ``od``, ``-d``): the key's bytes at
    an even or an odd offset of the file, the numbers run together as the search reads them
    once spaces are left out."""
    forms = ["".join(f"{byte:03o}" for byte in data), "".join(str(byte) for byte in data)]
    for start in (0, 1):
        part = data[start:]
        words = [part[i] | part[i + 1] << 8 for i in range(0, len(part) - 1, 2)]
        forms += ["".join(f"{word:06o}" for word in words), "".join(map(str, words))]
    return forms


@lru_cache(maxsize=64)
def _dump_variants(value: str) -> tuple[str, ...]:
    """What a dump's data columns spell for the secret: its own forms, its bytes as
    little-endian words in hex (the key at an even or an odd offset of the file), and the
    octal and decimal numbers ``od`` prints for them."""
    raw = value.encode("utf-8", "surrogatepass")
    dumped = (_swapped_hex(raw), _swapped_hex(raw[1:]), *_numbers(raw))
    return tuple(dict.fromkeys([*_variants(value),
                                *(f for f in dumped if len(f) >= MIN_TRANSFORMED)]))


_DUMP_LINE = re.compile(r"^[ \t]*[0-9A-Fa-f]{6,}(:?)[ \t]+([^\n]*)", re.MULTILINE)
"""A line of a dump: an offset (hex or octal, at least 6 digits; ``xxd`` puts a colon after
it), then the data."""


_OD_PRINTABLE = re.compile(r"([0-9A-Fa-f \t]*?)[ \t]{2,}>[^\n]*<[ \t]*")
"""``od -t x1z``'s line: numbers, then the printable column between ``>`` and ``<``."""


def _dump_data(colon: str, rest: str) -> str:
    """A dump line's data columns, without its printable column: ``hexdump -C`` puts that
    between bars, ``xxd`` after two spaces, ``od -t x1z`` between ``>`` and ``<`` after
    numbers only (an ``od -c`` line showing a ``>`` keeps all its columns)."""
    if "|" in rest:
        return rest.split("|", 1)[0]
    if colon:
        return rest.split("  ", 1)[0]
    od_printable = _OD_PRINTABLE.fullmatch(rest)
    return od_printable.group(1) if od_printable else rest


def _line_slices(text: str, size: int = SLICE_CHARS) -> Iterator[tuple[int, str]]:
    """``text`` in pieces of about ``size`` characters that end at a line's end."""
    start = 0
    while start < len(text):
        end = text.find("\n", start + size)
        end = len(text) if end == -1 else end + 1
        yield start, text[start:end]
        start = end


def _dump_spans(text: str, variants: Iterable[str]) -> list[tuple[int, int]]:
    """Whole lines of a dump (``xxd``, ``hexdump -C``, ``od -c``, ``od -x``) whose data
    columns, with the offsets that open every line left out, spell one of ``variants``:
    the offsets broke the run the flat search looks for, and the printable column beside the
    data shows the key itself, sixteen characters a line."""
    variants = tuple(variants)
    spans: list[tuple[int, int]] = []
    group: list[tuple[int, int, str]] = []  # (line start, line end, normalised data)

    def close() -> None:
        if not group:
            return
        flat = "".join(data for *_, data in group)
        ends = list(accumulate(len(data) for *_, data in group))
        for variant in variants:
            at = flat.find(variant)
            while at != -1:
                first = bisect_right(ends, at)
                last = bisect_right(ends, at + len(variant) - 1)
                spans.append((group[first][0], group[last][1]))
                at = flat.find(variant, at + len(variant))
        group.clear()

    for base, piece in _line_slices(text):
        for found in _DUMP_LINE.finditer(piece):
            start, end = base + found.start(), base + found.end()
            if group and start != group[-1][1] + 1:
                close()
            group.append((start, end, _normalise(_dump_data(found.group(1), found.group(2)))))
    close()
    return spans


PIECE_CHARS = 12
"""A run of this many of a key's characters (alphanumerics, any case, in order or reversed)
is masked, with the whole run it belongs to: ``cut -c13-`` of ``api_key = "sk-…"`` printed
the key without its first letter, which no whole-key search finds."""


PIECE_BLOCK = PIECE_CHARS // 2
"""Any run of PIECE_CHARS of a form holds one of its blocks of this size that start at a
multiple of it: only those blocks are searched for (a sixth of the form's windows of
PIECE_CHARS, each a scan of the whole text: searching every window made a 20 MB result with
five configured keys take 4 s longer), each hit widened along the form."""


@lru_cache(maxsize=64)
def _pieces(value: str) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """(form, where its aligned blocks of PIECE_BLOCK start) for the key's plain forms (as
    it is, reversed), normalised like the text searched."""
    forms = dict.fromkeys(f for f in (_normalise(value), _normalise(value[::-1]))
                          if len(f) > PIECE_CHARS)
    return tuple((form, tuple(range(0, len(form) - PIECE_BLOCK + 1, PIECE_BLOCK)))
                 for form in forms)


def _run_around(flat: str, at: int, form: str, start: int) -> tuple[int, int]:
    """The span of ``flat`` around ``at`` that spells ``form`` around ``start`` (``flat[at]``
    is ``form[start]``), as far as both go."""
    left = 0
    while at - left > 0 and start - left > 0 \
            and flat[at - left - 1] == form[start - left - 1]:
        left += 1
    end, right = at, start
    while end < len(flat) and right < len(form) and flat[end] == form[right]:
        end, right = end + 1, right + 1
    return at - left, end


def _piece_spans(flat: str, pieces: Iterable[tuple[str, tuple[int, ...]]]
                 ) -> list[tuple[int, int]]:
    """Spans of ``flat`` holding PIECE_CHARS or more consecutive characters of a form, each
    widened to the whole run the form shares there."""
    found = []
    for form, starts in pieces:
        for start in starts:
            block = form[start:start + PIECE_BLOCK]
            at = flat.find(block)
            while at != -1:
                first, end = _run_around(flat, at, form, start)
                if end - first >= PIECE_CHARS:
                    found.append((first, end))
                    at = flat.find(block, end)
                else:
                    at = flat.find(block, at + 1)
    return found


def _transformed_spans(text: str, variants: Iterable[str],
                       size: int = SLICE_CHARS,
                       key_pieces: Iterable[tuple[str, tuple[str, ...]]] = ()
                       ) -> list[tuple[int, int]]:
    """Spans of ``text`` whose alphanumerics, lower-cased, spell one of ``variants``, or
    a long enough piece of one of the ``key_pieces``' forms.

    Worked slice by slice (``size`` characters): one scan of a 20 MB result would hold the
    interpreter half a second (a worker thread lets the event loop run between slices), and
    a found key's place is looked up in its own slice only, not by listing every character
    of the text (3 s for 20 MB). A run cut at a slice edge joins up again in the flat text."""
    pieces = list(text_slices(text, size))
    flats = [_normalise(piece) for piece in pieces]
    flat = "".join(flats)
    found = _piece_spans(flat, key_pieces)
    for variant in variants:
        at = flat.find(variant)
        while at != -1:
            found.append((at, at + len(variant)))
            at = flat.find(variant, at + len(variant))
    if not found:  # the usual case: no position map needed
        return []
    flat_starts = list(accumulate(map(len, flats), initial=0))
    piece_starts = list(accumulate(map(len, pieces), initial=0))
    kept: dict[int, list[int]] = {}  # piece -> the position in it of every kept character

    def position(k: int) -> int:
        """Where in ``text`` the ``k``-th kept character is."""
        i = bisect_right(flat_starts, k) - 1  # the last piece starting at or before k
        if i not in kept:
            kept[i] = [at for run in _ALNUM_RUN.finditer(pieces[i])
                       for at in range(run.start(), run.end())]
        return piece_starts[i] + kept[i][k - flat_starts[i]]

    return [(position(a), position(b - 1) + 1) for a, b in found]


_learned: dict[str, None] = {}
"""Secrets this process fetched at run time (an instance role's temporary keys...): not in
the settings, masked by every redaction all the same."""


def learn_secret(value: str | None) -> None:
    """Mask ``value`` wherever text is redacted from now on (a credential fetched at run
    time). Values shorter than 4 characters are ignored, as for configured secrets."""
    if value and len(value) >= 4:
        _learned[value] = None


def learned_secrets() -> tuple[str, ...]:
    return tuple(_learned)


def secret_values(secrets: Iterable[Secret | str | None]) -> list[str]:
    """The values to mask: the given secrets and those learned at run time
    (:func:`learn_secret`), each at least 4 characters long."""
    values = []
    for secret in (*secrets, *_learned):
        value = secret.reveal() if isinstance(secret, Secret) else secret
        if value and len(value) >= 4:
            values.append(value)
    return values


def secret_spans(text: str, values: Sequence[str]) -> list[tuple[int, int]]:
    """Where in ``text`` the ``values`` (see :func:`secret_values`) appear, verbatim or
    transformed: sorted spans, overlapping and touching ones merged."""
    if not values or not text:
        return []
    spans = []
    for value in values:
        at = text.find(value)
        while at != -1:
            spans.append((at, at + len(value)))
            at = text.find(value, at + len(value))
    variants = [v for value in values for v in _variants(value)]
    if variants and len(text) >= MIN_TRANSFORMED:
        spans += _transformed_spans(text, variants,
                                    key_pieces=[p for value in values for p in _pieces(value)])
        spans += _dump_spans(text, [v for value in values for v in _dump_variants(value)])
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def unfinished_from(text: str, values: Sequence[str]) -> int:
    """Where the end of ``text`` that more text could still make a secret begins
    (``len(text)`` when none could): the longest tail that begins a value verbatim, or whose
    alphanumerics, lower-cased, begin one of its transformed forms or lie inside its plain
    form (any PIECE_CHARS of it in a row are masked). A streamed reply holds that tail back
    until the next piece shows what it was."""
    cut = len(text)
    for value in values:
        for size in range(min(len(value) - 1, len(text)), 0, -1):
            if value.startswith(text[-size:]):
                cut = min(cut, len(text) - size)
                break
    starts = [at for run in _ALNUM_RUN.finditer(text) for at in range(run.start(), run.end())]
    flat = "".join(text[at] for at in starts).lower()
    held = 0  # alphanumerics at the end of ``flat`` that could open a secret
    for value in values:
        for form, _ in _pieces(value):
            size = held + 1
            while size <= len(flat) and flat[-size:] in form:
                held, size = size, size + 1
        for variant in _variants(value):
            tail = flat[-(len(variant) - 1):] if len(variant) > 1 else ""
            at = tail.find(variant[0])
            while at != -1 and len(tail) - at > held:
                if variant.startswith(tail[at:]):
                    held = len(tail) - at
                    break
                at = tail.find(variant[0], at + 1)
    if held:
        cut = min(cut, starts[-held])
    return cut


def mask_spans(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` with each of the sorted, disjoint ``spans`` replaced by MASK."""
    out, last = [], 0
    for start, end in spans:
        out += [text[last:start], MASK]
        last = end
    out.append(text[last:])
    return "".join(out)


def redact_known(text: str, secrets: Iterable[Secret | str | None]) -> str:
    """``text`` with every occurrence of the given secrets (and of those learned at run time:
    :func:`learn_secret`) replaced, verbatim or transformed (nothing else touched: safe for
    file contents and command output, where key-like shapes are data)."""
    spans = secret_spans(text, secret_values(secrets))
    return mask_spans(text, spans) if spans else text


def redact(text: str, *secrets: Secret | str | None) -> str:
    """``text`` with every known secret and anything shaped like an API key replaced."""
    # shapes of keys we do not know come from the one secret rule (contracts.secrets)
    return scrub_secret_values(redact_known(text, secrets), MASK)
