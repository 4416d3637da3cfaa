"""Thinking a model writes into its text between <think> tags becomes reasoning: whole
replies by table, streamed replies cut at every possible place (property)."""

from __future__ import annotations

import pytest
from doubles.one_pass import assert_read_in_one_pass
from hypothesis import given
from hypothesis import strategies as st

from paicli_tui.core.llm.think_tags import ThinkStream, split_think

CASES = [
    # (text, reasoning the server sent apart, answer, reasoning)
    ("<think>\nThe user wants X.\n</think>\n\nX is 3.", None, "X is 3.", "The user wants X."),
    ("  <think>a</think>b", None, "b", "a"),
    ("The user wants X.\n</think>\n\nX is 3.", None, "X is 3.", "The user wants X."),
    ("<think>a</think>b", "earlier", "b", "earlier\n\na"),
    ("<think></think>answer", None, "answer", None),
    ("<think>still thinking when cut", None, "<think>still thinking when cut", None),
    ("No tags here.", None, "No tags here.", None),
    ("Use <think> tags like <think>x</think> in the prompt.", None,
     "Use <think> tags like <think>x</think> in the prompt.", None),  # not at the start
    ("", "r", "", "r"),
    # an answer that names the closing tag in code is no thinking: all of it stays the answer
    ("The splitter looks for `</think>` and keeps the rest.", None,
     "The splitter looks for `</think>` and keeps the rest.", None),
    ("Close the block:\n```xml\n</think>\n```\nthen answer.", None,
     "Close the block:\n```xml\n</think>\n```\nthen answer.", None),
    ("Thinking with `code` in it.\n</think>\nAnswer `</think>`.", None,
     "Answer `</think>`.", "Thinking with `code` in it."),
    ("Plan:\n```\nx = 1\n```\n</think>\n\nDone.", None, "Done.", "Plan:\n```\nx = 1\n```"),
    ("I will call `read_file`</think>Reading it.", None, "Reading it.",
     "I will call `read_file`"),  # code closed before the tag: the tag is real
]


@pytest.mark.parametrize(("text", "sent", "answer", "reasoning"), CASES)
def test_whole_replies(text, sent, answer, reasoning) -> None:
    assert split_think(text, sent) == (answer, reasoning)


def stream(pieces: list[str]) -> tuple[str, str]:
    splitter = ThinkStream()
    thought, text = "", ""
    for piece in [*pieces, None]:
        t, x = splitter.flush() if piece is None else splitter.feed(piece)
        thought, text = thought + t, text + x
    return thought, text


def cuts(text: str, points: list[int]) -> list[str]:
    points = sorted({p % (len(text) + 1) for p in points})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


REPLIES = ["<think>\nplan: read a.py</think>\n\nIt prints 1.", "Plain answer, no tags.",
           "<think>never closed", "  <thin", "<think>a</thin", "<thinking>x</thinking> y",
           "<think>x</think>", "</think>late close", "\n \n\n<think>a</think>b",
           " \n \n plain after blank lines", "\n\n"]


@given(st.sampled_from(REPLIES), st.lists(st.integers(0, 200), max_size=8))
def test_a_stream_cut_anywhere_sorts_like_the_whole_reply(reply: str, points) -> None:
    thought, text = stream(cuts(reply, points))
    assert thought + text != "" or reply.strip() in ("", "<think>")
    if reply.lstrip().startswith("<think>") and "</think>" in reply:
        answer, reasoning = split_think(reply, None)
        assert (thought.strip(), text) == (reasoning or "", answer)
    elif reply.lstrip().startswith("<think>"):  # open, never closed: all of it is thinking
        assert text == "" and thought == reply.lstrip()[len("<think>"):]
    else:  # nothing is held back or lost
        assert (thought, text) == ("", reply)


def test_blank_pieces_before_the_reply_are_read_in_one_pass() -> None:
    """A weak model that loops on newlines streams them one piece at a time: the splitter
    joined and stripped everything held at every piece (a million pieces: minutes, the app
    frozen). Held aside instead, they cost one pass."""
    def work() -> None:
        splitter = ThinkStream()
        for _ in range(1_000_000):
            assert splitter.feed("\n") == ("", "")
        assert splitter.feed("<think>a</think>b") == ("a", "b")

    assert_read_in_one_pass(work)


@pytest.mark.parametrize(("reply", "answer"), [
    ("<think>Maybe 1, 2 or 5? No.</think>\n\n3, 7", "3, 7"),  # a memory choice
    ("The summary needs four sections.\n</think>\n## Goal\n- ship", "## Goal\n- ship"),
    ('<think>tasks first</think>{"tasks": []}', '{"tasks": []}'),  # a plan
    ("<think>cut while thinking", "<think>cut while thinking"),
    ("No tags: 3, 7", "No tags: 3, 7"),
])
async def test_a_one_shot_answer_is_the_answer_without_the_thinking(reply, answer) -> None:
    """Summaries, plans, memory choices and query rewrites ask one question without tools:
    an R1 distill served without a reasoning parser answered them with its thinking in
    front, so the numbers it weighed were taken for its choice and a plan's JSON was not
    found."""
    from paicli_tui.core.contracts.llm import StreamDone
    from paicli_tui.core.llm.complete import completer_for
    from paicli_tui.core.messages import Message

    class OneReply:
        provider, model, window = "one", "one-1", 128_000

        async def stream(self, messages, tools=(), *, model=None):
            yield StreamDone(Message.assistant(reply), "stop")

    assert await completer_for(OneReply(), ())("system", "question") == answer
