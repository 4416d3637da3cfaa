"""Token estimation rules (behaviour §1) with exact numbers, the memo and the calibrator."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paicli_tui.core.messages import ImagePart, Message, ToolCall
from paicli_tui.core.tokens import (
    TokenCalibrator,
    estimate_image,
    estimate_message,
    estimate_request,
    estimate_schema,
    estimate_text,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 0),
        ("a", 1),  # 0.25 -> 1
        ("abcd", 1),
        ("abcde", 2),
        ("x" * 400, 100),
        ("中", 1),  # 0.667 -> 1
        ("中文", 2),  # 1.333 -> 2
        ("中文字", 2),  # exactly 2
        ("中文字abcd", 3),  # 2 + 1
        ("中" * 3000, 2000),
        # the ends of the range are NOT CJK (strictly between U+4E00 and U+9FFF)
        ("\u4e00", 1),
        ("\u4e00" * 4, 1),
        ("\u9fff" * 4, 1),
        ("\u4e01" * 3, 2),
        ("\u9ffe" * 3, 2),
        # other scripts and punctuation count as "other"
        ("，。" * 2, 1),
        ("日本語ひらがな", 3),  # 3 CJK -> 2.0, 4 kana (other) -> 1.0
    ],
)
def test_estimate_text_table(text: str, expected: int) -> None:
    assert estimate_text(text) == expected


@given(st.text(max_size=300))
def test_estimate_text_matches_formula(text: str) -> None:
    cjk = sum(1 for ch in text if 0x4E00 < ord(ch) < 0x9FFF)
    other = len(text) - cjk
    exact = cjk / 1.5 + other / 4
    got = estimate_text(text)
    assert got >= exact - 1e-9 and got - exact < 1 + 1e-9


def test_estimate_message_parts() -> None:
    assert estimate_message(Message.user("abcd")) == 1 + 4
    calls = (ToolCall("c1", "read_file", '{"path": "a.py"}'),)
    msg = Message.assistant("hi", tool_calls=calls, reasoning="x" * 40)
    expected = 4 + estimate_text("hi") + estimate_text("read_file") + \
        estimate_text('{"path": "a.py"}') + 10
    assert estimate_message(msg) == expected


@pytest.mark.parametrize(
    ("decoded_bytes", "expected"),
    [(0, 1024), (100, 256), (768 * 256, 256), (768 * 1000, 1000), (768 * 5000, 4096)],
)
def test_image_costs(decoded_bytes: int, expected: int) -> None:
    if decoded_bytes == 0:
        image = ImagePart(url="https://example.invalid/x.png")
    else:
        image = ImagePart(data_base64=base64.b64encode(b"\0" * decoded_bytes).decode())
    assert estimate_image(image) == expected


def test_user_message_with_image() -> None:
    msg = Message.user("abcd", images=[ImagePart(url="http://x")])
    assert estimate_message(msg) == 4 + 1 + 1024


def test_memo_is_used_and_reset_by_evolve() -> None:
    msg = Message.user("x" * 400)
    assert msg.token_cache == []
    assert estimate_message(msg) == 104
    assert msg.token_cache == [104]
    # the memo is trusted: a stale value proves no recomputation happens
    msg.token_cache[0] = 7
    assert estimate_request([msg]) == 7
    changed = msg.evolve(content="abcd")
    assert changed.token_cache == []
    assert estimate_message(changed) == 5


def test_request_adds_tool_schemas() -> None:
    schema = {"type": "function", "function": {"name": "read_file", "description": "Read.",
                                               "parameters": {"type": "object"}}}
    messages = [Message.system("abcd"), Message.user("abcd")]
    base = estimate_request(messages)
    assert base == 10
    with_tools = estimate_request(messages, [schema])
    assert with_tools == base + estimate_schema(schema) and estimate_schema(schema) > 10
    # a different dict with the same id slot is never confused with the cached one
    assert estimate_schema(dict(schema)) == estimate_schema(schema)


def test_calibrator_learns_and_clamps() -> None:
    cal = TokenCalibrator()
    assert cal.factor == 1.0 and cal.adjust(1000) == 1000
    cal.observe(1000, 1200)
    assert cal.factor == pytest.approx(1.2)
    assert cal.adjust(1000) == 1200
    cal.observe(1000, 1200)
    assert cal.factor == pytest.approx(1.2)
    cal.observe(1000, 5_000)  # far above: clamped
    assert cal.factor <= 3.0
    for _ in range(50):
        cal.observe(1000, 300)
    assert cal.factor == pytest.approx(0.5)


# A report no tokenizer could give for this request (a proxy's total for the day, prompt
# tokens 10^12, or 1) is not a count of it: folded in, one such report set the factor to its
# clamp, so every later estimate was tripled (a 128k window compacted from ~32k real tokens)
# or halved (requests up to twice the window were sent and refused).
@pytest.mark.parametrize(("reported", "factor"), [
    (10**12, None), (10**7, None), (6_001, None), (1, None), (249, None),  # not credible
    (6_000, 3.0), (2_000, 2.0), (1_000, 1.0), (600, 0.6), (250, 0.5),      # taken, clamped
])
def test_calibrator_ignores_a_report_no_tokenizer_could_give(reported: int,
                                                             factor: float | None) -> None:
    cal = TokenCalibrator()
    cal.observe(1000, reported)  # the first report
    assert cal.factor == pytest.approx(factor or 1.0)
    learned = TokenCalibrator()
    learned.observe(1000, 1200)
    learned.observe(1000, reported)  # a later one
    assert (learned.factor == pytest.approx(1.2)) is (factor is None)


def test_calibrator_ignores_useless_observations() -> None:
    cal = TokenCalibrator()
    cal.observe(10, 500)  # too small to say anything
    cal.observe(1000, 0)  # provider reported nothing
    assert cal.factor == 1.0 and cal.observations == 0
