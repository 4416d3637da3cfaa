"""A message's words that a demonstrative points at ("what does this file do?", 这段代码) are
about the thing in front of the person, so they weigh half as keywords: a memory that names
some file or some error does not pass on that word alone. A memory's own words keep their
weight; 该 ("should") and 此 point at nothing."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from paicli_tui.commands.memory_cmd import explain_parts
from paicli_tui.config import Settings
from paicli_tui.core.memory.keywords import KeywordIndex
from paicli_tui.core.memory.retrieval import describe
from paicli_tui.core.memory.service import LocalMemoryService
from paicli_tui.core.memory.terms import POINTED_WEIGHT, text_terms


def _weights(text: str, pointed: float = POINTED_WEIGHT) -> dict[str, float]:
    """Each group's first term (the word itself or its stem) and its weight."""
    return {group[0][0]: group[0][1] for group in text_terms(text, pointed=pointed).groups}


@pytest.mark.parametrize(("text", "weights", "pointed"), [
    ("what does this file do?", {"file": 0.5}, ("file",)),
    ("what does the file do?", {"file": 1.0}, ()),
    # an English phrase holds up to two content words: "this record type"
    ("what does this record type do", {"record": 0.5, "type": 0.5}, ("record", "type")),
    ("why is this loop so slow", {"loop": 0.5, "slow": 1.0}, ("loop",)),
    # punctuation ends the phrase
    ("fix this; tests fail", {"test": 1.0, "fail": 1.0}, ()),
    ("解释一下这段代码", {"解释": 1.0, "代码": 0.5}, ("代码",)),
    # a Chinese jieba word is the whole noun: 的颜色 is not pointed at
    ("改一下这个按钮的颜色", {"按钮": 0.5, "颜色": 1.0}, ("按钮",)),
    ("这个报错是什么意思", {"报错": 0.5, "意思": 1.0}, ("报错",)),
    # "that" after a content word opens a clause about the words after it, not a pointer
    ("find the code that handles retries", {"code": 1.0, "handl": 1.0, "retri": 1.0}, ()),
    ("what does that function do", {"function": 0.5}, ("function",)),
    ("rename those files in that folder", {"file": 0.5, "folder": 0.5}, ("file", "folder")),
    ("the tests that fail on CI", {"test": 1.0, "fail": 1.0}, ()),
    ("fix that bug", {"fix": 1.0, "bug": 1.0}, ()),
    # 那 alone opens a sentence as "then"; with its measure word it points
    ("那数据库用什么？", {"数据库": 1.0}, ()),
    ("那个接口返回什么", {"接口": 0.5}, ("接口",)),
    # 该 "should" points at nothing
    ("折扣码那边返回异常，该联系谁", {"异常": 1.0, "联系": 1.0}, ()),
])
def test_the_words_a_demonstrative_points_at_weigh_half(
        text: str, weights: dict[str, float], pointed: tuple[str, ...]) -> None:
    assert POINTED_WEIGHT == 0.5
    found = _weights(text)
    assert {w: found.get(w) for w in weights} == weights
    assert text_terms(text, pointed=POINTED_WEIGHT).pointed == pointed
    # a memory's words (no pointed weight) keep theirs
    assert set(_weights(text, pointed=1.0).values()) <= {1.0, 0.7}


def test_a_pointed_word_scores_half_against_the_memories(tmp_path: Path) -> None:
    index = KeywordIndex(None)
    texts = ["The file upload limit is 20MB", "Deploy with helm", "Releases on Tuesdays"]
    pointed = index.match("what does this file do?", texts).score
    plain = index.match("what does the file do?", texts).score
    assert plain[0] > 0 and math.isclose(float(pointed[0]), 0.5 * float(plain[0]), rel_tol=1e-6)
    assert float(pointed[1]) == float(plain[1]) == 0.0


def test_explain_says_which_words_were_pointed_at(settings: Settings,
                                                  project_dir: Path) -> None:
    service = LocalMemoryService(settings, project_dir, use_vectors=False)
    assert service.save("The upload file size limit is 20MB", force=True).written
    found = service.search("why does this file upload fail", explain=True)
    assert found and found[0].pointed == ("file", "upload")
    assert "; file, upload (pointed at: 'this …', 这个…) weighs 0.5" in describe(found[0])
    assert explain_parts(found[0])["pointed"] == ["file", "upload"]
