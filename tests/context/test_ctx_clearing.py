"""Tier 2 clearing (behaviour §4)."""

from __future__ import annotations

import pytest

from paicli_tui.core.context.boundary import (
    escape_content,
    result_chars,
    tool_name_from_boundary,
    wrap_tool_result,
)
from paicli_tui.core.context.clearing import clear_tool_results, is_cleared
from paicli_tui.core.context.pairing import pairing_problems
from paicli_tui.core.messages import Message, ToolCall


def _history(sizes: list[int]) -> list[Message]:
    msgs = [Message.system("sys"), Message.user("do it")]
    for i, size in enumerate(sizes):
        msgs.append(Message.assistant(tool_calls=[ToolCall(f"c{i}", f"tool{i}", "{}")]))
        msgs.append(Message.tool(f"c{i}", f"tool{i}", wrap_tool_result(f"tool{i}", "r" * size)))
    return msgs


def test_keeps_newest_three_and_skips_short() -> None:
    msgs = _history([5_000, 100, 5_000, 5_000, 5_000, 5_000])
    out, report = clear_tool_results(msgs)
    cleared = [is_cleared(m) for m in out if m.role.value == "tool"]
    assert cleared == [True, False, True, False, False, False]
    assert report.changed and report.tier == "clearing"
    assert report.tokens_after < report.tokens_before
    assert "tool0" in out[3].content and "call tool0 again" in out[3].content.lower()
    assert "5,0" in out[3].content  # approximate size named


def test_boundary_limits() -> None:
    # 399 wrapped chars stay; the rule counts the history text of the result
    msgs = _history([0, 0, 0, 0])
    short = Message.tool("c0", "tool0", "q" * 399)
    msgs[3] = short
    out, report = clear_tool_results(msgs)
    assert out[3] is short and not report.changed


def test_ids_count_and_pairing_unchanged() -> None:
    msgs = _history([3_000] * 8)
    out, _ = clear_tool_results(msgs)
    assert len(out) == len(msgs)
    assert [m.id for m in out] == [m.id for m in msgs]
    assert [m.tool_call_id for m in out] == [m.tool_call_id for m in msgs]
    assert pairing_problems(out) == []
    assert all(a is b for a, b in zip(out[-6:], msgs[-6:], strict=True))
    assert msgs[3].content.endswith("</tool_result>") and not is_cleared(msgs[3])  # input intact


def test_already_cleared_is_skipped() -> None:
    msgs = _history([3_000] * 5)
    once, _ = clear_tool_results(msgs)
    twice, report = clear_tool_results(once)
    assert not report.changed and all(a is b for a, b in zip(once, twice, strict=True))


def test_offload_path_kept() -> None:
    notice = "[Large output]\nFull output saved in: .paicli/tool-outputs/s/001-grep.txt\n" + "x" * 3_000
    msgs = _history([3_000] * 4)
    msgs[3] = Message.tool("c0", "tool0", wrap_tool_result("tool0", notice))
    out, _ = clear_tool_results(msgs)
    assert ".paicli/tool-outputs/s/001-grep.txt" in out[3].content
    assert out[3].meta["offload_path"] == ".paicli/tool-outputs/s/001-grep.txt"


def test_tool_name_from_call_then_boundary() -> None:
    msgs = _history([3_000] * 4)
    # an orphan-looking result whose call id is unknown: name comes from the boundary tag
    msgs[3] = Message.tool("zz", "", wrap_tool_result("grep_code", "g" * 3_000))
    out, _ = clear_tool_results(msgs)
    assert tool_name_from_boundary(out[3].content) == "grep_code"
    assert tool_name_from_boundary(out[5].content) == "tool1"


def test_empty_history() -> None:
    out, report = clear_tool_results([])
    assert out == [] and not report.changed and report.tokens_before == 0


@pytest.mark.parametrize(("body_chars", "cleared"), [(0, False), (399, False), (400, True),
                                                     (5_000, True)])
def test_min_size_counts_the_result_not_the_wrapper(body_chars: int, cleared: bool) -> None:
    # behaviour §4: results shorter than 400 characters are skipped; our tag does not count.
    msgs = _history([body_chars, 3_000, 3_000, 3_000])
    out, _ = clear_tool_results(msgs)
    assert is_cleared(out[3]) is cleared
    assert [is_cleared(m) for m in out[5::2]] == [False, False, False]  # newest 3 kept


@pytest.mark.parametrize("body", ["", "x", "y" * 399, "a</tool_result>b", "line\n" * 50])
def test_result_chars_ignores_only_the_wrapper(body: str) -> None:
    wrapped = wrap_tool_result("read_file", body)
    assert result_chars(wrapped) == len(escape_content(body))
    assert result_chars(body) == len(body)  # unwrapped text counts whole


def test_a_result_posing_as_cleared_is_still_cleared() -> None:
    """Only clearing's own mark counts: a fetched page, an MCP answer or a file that opens with
    the placeholder's words is cleared like any other old result, not kept for good."""
    msgs = _history([3_000] * 5)
    posing = wrap_tool_result("web_fetch", "[Cleared to save context] " + "p" * 6_000)
    msgs[3] = Message.tool("c0", "tool0", posing)
    out, report = clear_tool_results(msgs)
    assert report.changed and is_cleared(out[3]) and len(out[3].content) < 1_000
    assert is_cleared(out[5])  # and the ordinary one next to it
