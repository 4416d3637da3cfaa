"""Tool calls a weak model writes as text: which forms are read, and which never are."""

from __future__ import annotations

import json

import pytest

from paicli_tui.core.llm.text_tool_calls import (
    MAX_TEXT_CALLS,
    read_text_tool_calls,
    unread_tagged_call,
)

OFFERED = {"read_file", "search_code", "write_file"}
READ = '{"name": "read_file", "arguments": {"path": "a.py"}}'
SEARCH = '{"name": "search_code", "parameters": {"query": "retry 重试"}}'

# (reply text, names read or None, the words kept, the form named)
CASES = [
    (f"<tool_call>\n{READ}\n</tool_call>", ["read_file"], "", "`<tool_call>` tags"),
    (f"Let me look.\n<tool_call>{READ}</tool_call>", ["read_file"], "Let me look.",
     "`<tool_call>` tags"),
    (f"<tool_call>{READ}</tool_call>\n<tool_call>{SEARCH}</tool_call>",
     ["read_file", "search_code"], "", "`<tool_call>` tags"),
    (f"<tool_call>{READ}", ["read_file"], "", "`<tool_call>` tags"),  # stop ate the tag
    # a small model's fence inside the tags
    (f"<tool_call>\n```json\n{READ}\n```\n</tool_call>", ["read_file"], "",
     "`<tool_call>` tags"),
    (f"Reading.\n<tool_call>```\n{READ}```</tool_call>", ["read_file"], "Reading.",
     "`<tool_call>` tags"),
    (f"```json\n{READ}\n```", ["read_file"], "", "a fenced JSON block"),
    (f"```\n[{READ}, {SEARCH}]\n```", ["read_file", "search_code"], "",
     "a fenced JSON block"),
    (READ, ["read_file"], "", "bare JSON"),
    (f"[TOOL_CALLS] [{READ}]", ["read_file"], "", "a `[TOOL_CALLS]` prefix"),
    (f"<|python_tag|>{SEARCH}", ["search_code"], "", "a `<|python_tag|>` prefix"),
    ('{"type": "function", "function": {"name": "read_file", "arguments": '
     '"{\\"path\\": \\"a.py\\"}"}}', ["read_file"], "", "bare JSON"),
    # never read: prose around a block that is not in tags, unknown tools, bad arguments
    (f"Here is how you would call it:\n```json\n{READ}\n```", None, "", ""),
    (f"```json\n{READ}\n```\nand then ```x```", None, "", ""),
    ('{"name": "rm_rf", "arguments": {}}', None, "", ""),
    ('<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>', None, "", ""),
    (f'<tool_call>{READ}</tool_call><tool_call>{{"name": "x"}}</tool_call>', None, "", ""),
    ('{"name": "read_file", "arguments": ["a.py"]}', None, "", ""),
    ('{"name": "read_file", "arguments": "not json"}', None, "", ""),
    ('{"answer": 42}', None, "", ""),
    ("<tool_call> tags are how Qwen writes calls", None, "", ""),
    ("The fix is done.", None, "", ""),
    ("[1, 2, 3]", None, "", ""),
    ("", None, "", ""),
    ("[" * 100_000, None, "", ""),  # nested past the recursion limit: text, not a crash
]


@pytest.mark.parametrize(("text", "names", "words", "form"), CASES)
def test_which_forms_are_read(text, names, words, form) -> None:
    read = read_text_tool_calls(text, OFFERED)
    if names is None:
        assert read is None
        return
    assert read is not None
    assert [c.name for c in read.calls] == names
    assert read.words == words and read.form == form
    assert [c.id for c in read.calls] == [f"call_text_{n}" for n in range(1, len(names) + 1)]
    assert all(isinstance(json.loads(c.arguments), dict) for c in read.calls)


def test_arguments_keep_their_values_and_chinese_as_written() -> None:
    read = read_text_tool_calls(f"<tool_call>{SEARCH}</tool_call>", OFFERED)
    assert read is not None and json.loads(read.calls[0].arguments) == {"query": "retry 重试"}
    assert "重试" in read.calls[0].arguments


def test_nothing_is_read_without_tools_offered() -> None:
    assert read_text_tool_calls(READ, set()) is None


def test_a_flood_of_calls_stays_text() -> None:
    many = "".join(f"<tool_call>{READ}</tool_call>" for _ in range(MAX_TEXT_CALLS + 1))
    assert read_text_tool_calls(many, OFFERED) is None
    assert read_text_tool_calls(f"[{', '.join([READ] * (MAX_TEXT_CALLS + 1))}]",
                                OFFERED) is None
    exactly = "".join(f"<tool_call>{READ}</tool_call>" for _ in range(MAX_TEXT_CALLS))
    read = read_text_tool_calls(exactly, OFFERED)
    assert read is not None and len(read.calls) == MAX_TEXT_CALLS


@pytest.mark.parametrize(("text", "why"), [
    ('<tool_call>{"name": "bash", "arguments": {}}</tool_call>', "no tool named 'bash'"),
    ('<tool_call>{"function": {"name": "shell", "arguments": {}}}', "no tool named 'shell'"),
    # the function's name given as the function itself, or something else there: these
    # raised AttributeError, and the turn ended on an internal error
    ('<tool_call>{"function": "bash", "arguments": {}}</tool_call>', "no tool named 'bash'"),
    ('<tool_call>{"function": "read_file", "path": "a"}</tool_call>',
     'not a {"name": …, "arguments": {…}} object'),
    ('<tool_call>{"function": 1, "name": "x"}</tool_call>', "no tool named 'x'"),
    ('<tool_call>[{"function": ["bash"]}]</tool_call>',
     'not a {"name": …, "arguments": {…}} object'),
    ('<tool_call>```json\n{"name": "read_file", "arguments": {"path": 1}\n```</tool_call>',
     "not valid JSON (Expecting ',' delimiter at position 47)"),
    ('<tool_call>{"name": "read_file", "arguments": "{oops"}</tool_call>',
     'not a {"name": …, "arguments": {…}} object'),
    ('<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>', None),
    ("The `<tool_call>` tag is how Qwen writes calls.", None),  # a mention, not a call
    ("<tool_call>", None),
    ("no tags at all", None),
])
def test_why_tags_could_not_be_run(text: str, why: str | None) -> None:
    assert unread_tagged_call(text, {"read_file"}) == why
