"""The YAML front matter of a SKILL.md, read without a YAML library.

Skills only need a few flat string keys (``name``, ``description``, sometimes ``license`` or
``allowed-tools``), so this reads the subset of YAML that skill authors write: ``key: value``
lines, single- or double-quoted values, and ``|`` / ``>`` block scalars. Anything else is a
clear error naming the line, so a broken skill is reported instead of half-read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*)\s*:(.*)$")
_DELIMITER = "---"
_COMMENT = re.compile(r"(?<=\s)#")


class FrontMatterError(ValueError):
    """The front matter is missing or not in the readable subset."""


@dataclass(frozen=True)
class Document:
    fields: dict[str, str]
    body: str


def _scalar(raw: str, line_no: int) -> str:
    value = raw.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        inner = value[1:-1]
        if value[0] == "'":
            return inner.replace("''", "'")
        return (inner.replace('\\"', '"').replace("\\n", "\n").replace("\\t", "\t")
                .replace("\\\\", "\\"))
    if value and value[0] in "\"'":
        raise FrontMatterError(f"line {line_no}: unterminated quoted value")
    if value and value[0] in "[{":
        return value  # a flow list or map: kept as written (only strings are used)
    # a trailing ' # comment' is a YAML comment: cut at the first '#' after a blank, found
    # in one pass (the pattern r"\s+#.*$" tried every start in a run of blanks: a planted
    # SKILL.md line of a million held every session's start for most of half an hour)
    comment = _COMMENT.search(value)
    return value[:comment.start()].rstrip() if comment else value


def parse(text: str) -> Document:
    """Split a SKILL.md into its front-matter fields and its body."""
    text = text.lstrip("\ufeff")
    lines = text.splitlines()
    if not lines or lines[0].strip() != _DELIMITER:
        raise FrontMatterError("the file does not start with a '---' front matter block")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == _DELIMITER)
    except StopIteration:
        raise FrontMatterError("the front matter block is never closed with '---'") from None
    fields: dict[str, str] = {}
    i = 1
    while i < end:
        line = lines[i]
        if not line.strip() or line.lstrip().startswith("#"):
            i += 1
            continue
        if line[:1].isspace():
            i += 1  # nested keys (e.g. under metadata:) are not used; skip them
            continue
        match = _KEY.match(line)
        if not match:
            raise FrontMatterError(f"line {i + 1}: expected 'key: value', got {line.strip()!r}")
        key, rest = match.group(1), match.group(2).strip()
        if rest in ("|", ">", "|-", ">-", "|+", ">+"):
            block: list[str] = []
            i += 1
            while i < end and (not lines[i].strip() or lines[i][:1].isspace()):
                block.append(lines[i].strip())
                i += 1
            joiner = "\n" if rest.startswith("|") else " "
            fields[key] = joiner.join(block).strip()
            continue
        fields[key] = _scalar(rest, i + 1)
        i += 1
    body = "\n".join(lines[end + 1:]).strip("\n")
    return Document(fields=fields, body=body)
