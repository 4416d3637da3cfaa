"""/export's Markdown: the person's words, the answers, each tool call as one line with how
it ended, a summary marked as one, no configured key; and a file never written over."""

from __future__ import annotations

from datetime import datetime

import pytest

from paicli_tui.core.agent.conversation_export import (
    call_arguments,
    code_span,
    conversation_markdown,
    default_export_path,
    exported_line,
    write_new_file,
)
from paicli_tui.core.agent.prompt import TURN_CONTEXT_CLOSE, TURN_CONTEXT_OPEN
from paicli_tui.core.llm.redact import redact_known
from paicli_tui.core.messages import InternalKind, Message, ToolCall

KEY = "sk-export-0123456789abcdef0123"


def masked(text: str) -> str:
    return redact_known(text, [KEY])


HISTORY = [
    Message.user("The older turns, in short.", internal=InternalKind.SUMMARY),
    Message.user(f"{TURN_CONTEXT_OPEN}\ndate: today\n{TURN_CONTEXT_CLOSE}\nwhy does a.py fail?"),
    Message.assistant("Let me look.", tool_calls=[
        ToolCall("c1", "read_file", '{"path": "a.py"}'),
        ToolCall("c2", "execute_command", '{"command": "rm -rf build"}'),
        ToolCall("c3", "edit_file", '{"path": "a.py"}'),
        ToolCall("c4", "grep_code", '{"pattern": "x"}')]),
    Message.tool("c1", "read_file", "x = 1", status="done"),
    Message.tool("c2", "execute_command", "no", status="denied"),
    Message.tool("c3", "edit_file", "boom", status="failed"),
    Message.tool("c4", "grep_code", "cut short", synthetic=True),
    Message.assistant(f"Your key {KEY} is in a.py; remove it."),
    Message.user("thanks"),
    Message.assistant("", tool_calls=[ToolCall("c5", "read_file", '{"path": "b.py"}')]),
]


def test_the_export_reads_as_the_conversation() -> None:
    exported = conversation_markdown(HISTORY, "Conversation s1", masked)
    assert exported.markdown == """# Conversation s1

## Summary of older turns

*Written when the context was compacted; it replaced the turns before it.*

> The older turns, in short.

## You

why does a.py fail?

## Assistant

Let me look.

- ✓ `read_file path=a.py` · done
- ⊘ `execute_command command=rm -rf build` · denied
- ✗ `edit_file path=a.py` · failed
- ⊘ `grep_code pattern=x` · cancelled

## Assistant

Your key **** is in a.py; remove it.

## You

thanks

## Assistant

- ? `read_file path=b.py` · no result
"""
    assert (exported.turns, exported.calls) == (2, 5)
    assert KEY not in exported.markdown


@pytest.mark.parametrize(("arguments", "shown"), [
    ('{"path": "a.py", "limit": 20}', "path=a.py limit=20"),
    # a name with a line break and an escape sequence stays on its line, drawn as text
    ('{"path": "evil\\nname\\u001b[2J.py"}', "path=evil name\\x1b[2J.py"),
    ('{"content": "' + "y" * 300 + '"}', "content=" + "y" * 91 + "…"),
    ("not json", "not json"),
])
def test_call_arguments(arguments: str, shown: str) -> None:
    assert call_arguments(arguments) == shown


@pytest.mark.parametrize(("text", "span"), [
    ("read_file", "`read_file`"), ("a `b` c", "``a `b` c``"), ("`x", "`` `x ``"),
])
def test_code_span_holds_any_backticks(text: str, span: str) -> None:
    assert code_span(text) == span


def test_the_default_file_is_never_one_that_exists(tmp_path) -> None:
    now = datetime(2026, 3, 1, 9, 5)
    first = default_export_path(tmp_path, "s1", now)
    assert first == tmp_path / ".paicli" / "exports" / "conversation-s1-20260301-0905.md"
    write_new_file(first, "one")
    second = default_export_path(tmp_path, "s1", now)
    assert second.name == "conversation-s1-20260301-0905-2.md"
    (second.parent / "conversation-s1-20260301-0905-3.md").symlink_to("/nowhere")
    write_new_file(second, "two")
    assert default_export_path(tmp_path, "s1", now).name == "conversation-s1-20260301-0905-4.md"
    with pytest.raises(FileExistsError):
        write_new_file(first, "three")
    assert first.read_text() == "one"


def test_the_line_says_where_it_went(tmp_path) -> None:
    exported = conversation_markdown(HISTORY, "c", masked)
    assert exported_line(exported, tmp_path / "a`b.md") == (
        f"Exported the conversation (2 messages from you, 5 tool calls) to "
        f"``{tmp_path}/a`b.md``.")
