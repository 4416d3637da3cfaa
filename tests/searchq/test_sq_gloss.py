"""Offline Chinese→English gloss: jieba + developer vocabulary + CC-CEDICT."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paicli_tui.core.code.query import plan_query
from paicli_tui.core.code.query.terms import has_cjk
from paicli_tui.core.text.dictionary import clean_sense, lookup, senses
from paicli_tui.core.text.gloss import gloss_question
from paicli_tui.paths import HomePaths


@pytest.fixture
def home(paicli_home) -> HomePaths:
    return HomePaths(paicli_home)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("怎么把表格渲染到终端上？", {"table", "render", "terminal"}),
        ("如何检测 FORCE_COLOR 环境变量", {"detect", "FORCE_COLOR", "environment", "variable"}),
        ("把异常的堆栈打印出来", {"exception", "stack", "print"}),
        ("进度条剩余时间是怎么估算的", {"progress", "bar", "remaining", "time", "estimate"}),
        ("日志怎么格式化时间", {"log", "format", "time"}),
        ("解析配置文件", {"parse", "config", "file"}),
        ("光标移动到行首", {"cursor"}),  # 光标 comes from CC-CEDICT's "(computing)" sense too
    ],
)
def test_gloss_developer_phrases(home: HomePaths, question: str, expected: set[str]) -> None:
    gloss = gloss_question(question, home=home)
    assert expected <= set(gloss.terms), gloss.pieces


def test_gloss_drops_question_scaffolding(home: HomePaths) -> None:
    gloss = gloss_question("在哪里怎么样如何", home=home)
    assert gloss.terms == ()


def test_gloss_keeps_order_and_has_no_repeats(home: HomePaths) -> None:
    gloss = gloss_question("终端宽度 终端 宽度", home=home)
    assert gloss.terms[:2] == ("terminal", "width")
    assert len(gloss.terms) == len(set(gloss.terms))


def test_word_missing_from_dictionary_is_covered_by_its_parts(home: HomePaths) -> None:
    # jieba keeps 颜色系统 apart or whole depending on its dictionary; either way both halves count
    gloss = gloss_question("颜色系统", home=home)
    assert {"color", "system"} <= set(gloss.terms)


def test_cc_cedict_prefers_technical_senses() -> None:
    raw = lookup(["渲染", "没有这个词语"])
    assert raw["没有这个词语"] == ()
    assert senses("渲染", raw["渲染"])[0] == "rendering"


@pytest.mark.parametrize(
    ("sense", "clean"),
    [
        ("to highlight (computing)", "highlight"),
        ("CL:張|张[zhang1]", ""),
        ("variant of 吧[ba5]", ""),
        ("to cut sth off", "cut off"),
        ("(math.) to truncate", "truncate"),
    ],
)
def test_clean_sense(sense: str, clean: str) -> None:
    assert clean_sense(sense) == clean


_TEXT = st.text(
    alphabet=st.sampled_from(
        list("渲染终端表格异常的了吗怎么在哪里一行后占 abcXYZ_-:\"'()[]{}*?!，。？、0123")
    ),
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(_TEXT)
def test_gloss_and_plan_never_fail_and_stay_plain(question: str) -> None:
    home = HomePaths(Path(tempfile.gettempdir()) / "paicli-sq-prop-home")
    gloss = gloss_question(question, home=home)
    assert len(gloss.terms) == len(set(gloss.terms))
    assert not any(has_cjk(t) for t in gloss.terms)
    plan = plan_query(question, home=home)
    assert plan.embedding_queries and plan.embedding_queries[0] == plan.original
    # plain words only: nothing a full-text query parser could read as syntax
    assert re.fullmatch(r"[\w\u3400-\u9fff ]*", plan.fulltext_query)


def test_primary_text_keeps_only_first_senses(home: HomePaths) -> None:
    gloss = gloss_question("把异常的堆栈打印出来", home=home)
    assert gloss.primary_text.split()[:3] == ["exception", "stack", "print"]
    assert "error" in gloss.text.split() and "error" not in gloss.primary_text.split()


@pytest.mark.parametrize(
    ("question", "word", "expected"),
    [
        # jieba alone cuts these across the neighbouring character (在线|程里, 把子|类, 时|区里)
        ("在线程里怎么处理异常", "线程", {"thread"}),
        ("把子类注册进去", "子类", {"subclass"}),
        ("在时区里换算", "时区", {"timezone"}),
        ("把屏幕显示清空", "屏幕", {"screen"}),
    ],
)
def test_developer_words_are_kept_whole_by_segmentation(
    home: HomePaths, question: str, word: str, expected: set[str]
) -> None:
    from paicli_tui.core.text.gloss import cut_question

    assert word in cut_question(question, home)
    assert expected <= set(gloss_question(question, home=home).terms)


def test_segmentation_outside_developer_words_is_unchanged(home: HomePaths) -> None:
    from paicli_tui.core.text.gloss import cut_question

    assert cut_question("我在线上", home) == ["我", "在线", "上"]
