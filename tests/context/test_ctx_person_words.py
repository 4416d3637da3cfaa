"""A user message too long for a small window keeps the person's words in view.

Such a message carries the turn's memories before the words and the files they attached
and their commands' output after. Saved whole to a file, only its head stayed, and with a
few memories the head ended before the question: the model read "Large user message"
and the memories, and not what it was asked."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from paicli_tui.core.agent.prompt import turn_context_block, user_turn
from paicli_tui.core.agent.shell_notes import ShellNote
from paicli_tui.core.context.oversized import message_threshold, offload_oversized

QUESTION = "为什么 test_login 失败了？"
MEMORIES = "<memories>\n" + "\n".join(
    f"- [project] rule {n}: we format with black and run the tests with pytest -q"
    for n in range(24)) + f"\n- [project] asked before: {QUESTION}\n</memories>"


def _message(memories: str, output_chars: int):
    context = turn_context_block(datetime(2026, 12, 7, tzinfo=UTC), memories)
    return user_turn(QUESTION, context, shell=[ShellNote("pytest", 1, "F" * output_chars),
                                               ShellNote("git diff", 0, "+" * output_chars)])


@pytest.mark.parametrize(("window_trigger", "memories", "kept"), [
    (20_000, MEMORIES, True),     # a 32k window: the memories filled the 2,000-character head
    (95_000, MEMORIES, True),     # 128k
    (5_000, "", True),            # 8k, no memories
    (5_000, MEMORIES, False),     # 8k: memories and words above a quarter: saved whole
    (1_000, "", True),            # the smallest threshold: still below it
])
def test_the_persons_words_stay_in_view(window_trigger, memories, kept) -> None:
    threshold = message_threshold(32_000, window_trigger)
    saved: list[str] = []
    message = _message(memories, threshold)

    def save(label: str, text: str) -> str:
        saved.append(text)
        return f".paicli/tool-outputs/s/{len(saved):03}-{label}.txt"

    out, report = offload_oversized([message], save, threshold=threshold)
    content = out[0].content
    assert report.changed and len(content) < threshold
    assert (QUESTION in content) is kept
    if kept:  # the words whole, then what followed them in the file
        assert content.index(QUESTION) < content.index("[Large part of the user message")
        words_end = message.content.index(f"\n\n{QUESTION}") + 2 + len(QUESTION)
        assert saved == [message.content[words_end:]]  # not from a memory holding the words
    else:
        assert saved == [message.content]
    again, second = offload_oversized(out, save, threshold=threshold)
    assert not second.changed and again[0] is out[0]  # a second pass leaves it
