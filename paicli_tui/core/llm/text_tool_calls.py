"""Tool calls a model wrote as text instead of through the function-calling interface.

Weak and local models often do this: a Qwen or Hermes model served without its tool
template writes ``<tool_call>{"name": …, "arguments": …}</tool_call>``, Mistral writes
``[TOOL_CALLS] [...]``, Llama 3.1 ``<|python_tag|>{…}``, and many answer with nothing but a
```json block holding the call. Left alone, the turn ends with a JSON blob as its answer
and nothing done. Read here, the calls run like any other (the same approvals, the same
limits) and the model sees its own reply as a proper call in the history, which is the
lesson it needs.

Only unmistakable forms are read, so prose that merely shows an example is never run:
- inside ``<tool_call>`` tags, text around the tags is kept as the reply's words;
- a fenced block, bare JSON, or a ``[TOOL_CALLS]`` / ``<|python_tag|>`` prefix only when
  that is the whole reply;
- every call must name a tool offered in this request and carry an object of arguments,
  or nothing is read at all (a half-readable reply stays text).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from ..messages import ToolCall, read_arguments

MAX_TEXT_CALLS = 64
"""More calls than this in one text reply is not a model asking for work: left as text."""

_OPEN, _CLOSE = "<tool_call>", "</tool_call>"
_PREFIXES = ("[TOOL_CALLS]", "<|python_tag|>")
CALL_MARKS = (_OPEN, *_PREFIXES, '"arguments"', '"parameters"')
"""What every written call holds (a text without any of them quotes none)."""
# JSON's escapes in a string: a planted call written \u0065xecute_command or http:\/\/…
# quotes a call whose read values are execute_command and http://…
_JSON_ESCAPE = re.compile(r'\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))')
_JSON_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
                "t": "\t"}
_UNESCAPE_ROUNDS = 2
"""Arguments written as a JSON string inside the call are read twice: so are the texts."""
# the whole reply one fenced block: ```json / ```tool_call / ``` … ```; the body is taken by
# slicing, the pattern only checks the ends (nothing here can backtrack over the body)
_FENCE_START = re.compile(r"```[A-Za-z_]*[ \t]*\n")


@dataclass(frozen=True)
class TextToolCalls:
    """The calls read from a reply's text, the words left around them, and the form the
    model used (said to the person: ``<tool_call> tags``, ``a JSON block`` …)."""

    calls: tuple[ToolCall, ...]
    words: str
    form: str


def read_text_tool_calls(content: str, offered: Collection[str]) -> TextToolCalls | None:
    """The tool calls ``content`` holds in one of the forms above, or None."""
    if not offered or not content.strip():
        return None
    text = content.strip()
    if _OPEN in text:
        return _tagged(text, offered)
    for prefix in _PREFIXES:
        if text.startswith(prefix):
            return _whole(text[len(prefix):], offered, f"a `{prefix}` prefix")
    if text.startswith("```") and text.endswith("```"):
        start = _FENCE_START.match(text)
        if start is None or text.count("```") != 2:
            return None
        return _whole(text[start.end():-3], offered, "a fenced JSON block")
    if text[0] in "[{":
        return _whole(text, offered, "bare JSON")
    return None


def _tagged(text: str, offered: Collection[str]) -> TextToolCalls | None:
    """``<tool_call>`` blocks; the last may lack its closing tag (a stop sequence ate it)."""
    bodies: list[str] = []
    words: list[str] = []
    at = 0
    while (start := text.find(_OPEN, at)) >= 0:
        words.append(text[at:start])
        end = text.find(_CLOSE, start)
        if end < 0:
            bodies.append(text[start + len(_OPEN):])
            at = len(text)
            break
        bodies.append(text[start + len(_OPEN):end])
        at = end + len(_CLOSE)
        if len(bodies) > MAX_TEXT_CALLS:
            return None
    words.append(text[at:])
    calls: list[ToolCall] = []
    for body in bodies:
        read = _calls(body, offered)
        if read is None:
            return None
        calls += read
    return _result(calls, "".join(words), "`<tool_call>` tags")


def _whole(body: str, offered: Collection[str], form: str) -> TextToolCalls | None:
    calls = _calls(body, offered)
    return None if calls is None else _result(calls, "", form)


def _result(calls: list[ToolCall], words: str, form: str) -> TextToolCalls | None:
    if not calls or len(calls) > MAX_TEXT_CALLS:
        return None
    numbered = tuple(ToolCall(f"call_text_{n}", c.name, c.arguments)
                     for n, c in enumerate(calls, 1))
    return TextToolCalls(numbered, re.sub(r"\n{3,}", "\n\n", words).strip(), form)


def _calls(body: str, offered: Collection[str]) -> list[ToolCall] | None:
    """One call object or a list of them, every one well formed, or None (read as a tool's
    arguments are: a small model's fence inside the tags is forgiven too)."""
    try:
        data = read_arguments(body) if body.strip() else None
    except (ValueError, RecursionError):
        return None
    items = data if isinstance(data, list) else [data]
    if not items or len(items) > MAX_TEXT_CALLS:
        return None
    calls = [_call(item, offered) for item in items]
    return None if any(c is None for c in calls) else calls  # type: ignore[return-value]


def _call(item: Any, offered: Collection[str]) -> ToolCall | None:
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("function"), dict):  # the OpenAI shape, written out as text
        item = item["function"]
    name = item.get("name")
    arguments = item.get("arguments", item.get("parameters", {}))
    if isinstance(arguments, str):  # arguments as a JSON string, as the API sends them
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except (ValueError, RecursionError):
            return None
    if not isinstance(name, str) or name not in offered or not isinstance(arguments, dict):
        return None
    return ToolCall("", name, json.dumps(arguments, ensure_ascii=False))


def as_read(text: str) -> list[str]:
    """``text`` and the forms it takes once its JSON escapes are read (once, and again for
    arguments encoded twice), so a call quoted from it is found however it was escaped: the
    values of a read call are decoded, the text it was quoted from may not be."""
    forms = [text]
    for _ in range(_UNESCAPE_ROUNDS):
        if "\\" not in forms[-1]:
            break
        read = _JSON_ESCAPE.sub(_unescape, forms[-1])
        # a pair of escaped surrogates is one character, as json.loads reads it
        forms.append(read.encode("utf-16", "surrogatepass").decode("utf-16", "replace"))
    return forms


def _unescape(match: re.Match[str]) -> str:
    return chr(int(match[1], 16)) if match[1] else _JSON_SIMPLE[match[2]]


def unread_tagged_call(content: str, offered: Collection[str]) -> str | None:
    """Why ``<tool_call>`` tags in ``content`` could not be read as calls (``no tool named
    'bash'``, ``not valid JSON …``), or None when there are none or they read. The tags are
    unmistakably an attempt to call: left as the answer, the turn ended on raw JSON and
    nothing ran, without a word to the model or the person."""
    text = content.strip()
    if _OPEN not in text or _tagged(text, offered) is not None:
        return None
    # a tag followed by words is the tag mentioned in prose, not a call written out
    attempts = [body for body in _tag_bodies(text) if body.lstrip().startswith(("{", "[", "```"))]
    if not attempts:
        return None
    for body in attempts:
        try:
            data = read_arguments(body) if body.strip() else None
        except RecursionError:
            return "nested too deeply to read"
        except ValueError as exc:
            what = getattr(exc, "msg", str(exc)).removesuffix(" at")
            return f"not valid JSON ({what} at position {getattr(exc, 'pos', 0)})"
        for item in data if isinstance(data, list) else [data]:
            if _call(item, offered) is not None:
                continue
            name = _named(item)
            if isinstance(name, str) and name not in offered:
                return f"no tool named {name[:60]!r}"
            return 'not a {"name": …, "arguments": {…}} object'
    return "not one call the tools take"  # each read alone, together past the limit


def _named(item: object) -> object:
    """The tool a call written as text names: ``{"name": …}``, ``{"function": {"name":
    …}}`` or ``{"function": "bash"}`` (a weak model's; a string or a number there raised
    AttributeError and ended the turn on an internal error)."""
    if not isinstance(item, dict):
        return None
    function = item.get("function")
    if isinstance(function, dict):
        return function.get("name")
    return function if isinstance(function, str) else item.get("name")


def _tag_bodies(text: str) -> list[str]:
    """What each ``<tool_call>`` tag holds (the last may lack its closing tag)."""
    bodies = []
    for piece in text.split(_OPEN)[1:MAX_TEXT_CALLS + 1]:
        bodies.append(piece.split(_CLOSE, 1)[0])
    return bodies
