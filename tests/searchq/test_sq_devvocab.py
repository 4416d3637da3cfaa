"""The developer glossary (devvocab.tsv): well-formed data, technical senses, used by the gloss."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from paicli_tui.core.code.query.terms import STOP_WORDS, has_cjk
from paicli_tui.core.text.devvocab import (
    DEV_VOCABULARY,
    parse_vocabulary,
    read_vocabulary_text,
    vocabulary_entries,
)
from paicli_tui.core.text.gloss import gloss_question
from paicli_tui.paths import HomePaths

_ENTRIES = list(vocabulary_entries(read_vocabulary_text()))
_WORD = re.compile(r"[a-z][a-z0-9]*|[0-9]+[a-z][a-z0-9]*")


@pytest.fixture
def home(paicli_home) -> HomePaths:
    return HomePaths(paicli_home)


def test_glossary_is_broad() -> None:
    assert 700 <= len(DEV_VOCABULARY) == len(_ENTRIES)


def test_no_word_is_listed_twice() -> None:
    counts = Counter(word for _, word, _ in _ENTRIES)
    assert [w for w, n in counts.items() if n > 1] == []


def test_every_line_is_a_chinese_word_with_english_code_words() -> None:
    bad = [
        (line, word, english)
        for line, word, english in _ENTRIES
        if not word
        or not has_cjk(word)
        or any(c.isspace() for c in word)
        or not 1 <= len(english) <= 3
        or not all(_WORD.fullmatch(w) for w in english)
    ]
    assert bad == []


def test_english_avoids_stop_words_that_the_gloss_would_drop() -> None:
    assert [(w, e) for _, w, e in _ENTRIES if set(e) & STOP_WORDS] == []


def test_file_keeps_its_lower_case_ascii_on_disk() -> None:
    # parse lower-cases for robustness; the file itself must already be clean
    for line in read_vocabulary_text().splitlines():
        if line.strip() and not line.startswith("#"):
            english = line.partition("\t")[2]
            assert english == english.lower() and english.isascii(), line


@pytest.mark.parametrize(
    ("word", "english"),
    [
        ("管道", "pipe"),
        ("调用", "call"),
        ("遍历", "iterate"),
        ("异常", "exception"),
        ("泛型", "generic"),
        ("注解", "annotation"),
        ("构造函数", "constructor"),
        ("单例", "singleton"),
        ("重写", "override"),
        ("线程池", "thread pool"),
        ("互斥锁", "mutex"),
        ("协程", "coroutine"),
        ("标准错误", "stderr"),
        ("文件描述符", "file descriptor"),
        ("中间件", "middleware"),
        ("请求头", "header"),
        ("跨域", "cors"),
        ("序列化", "serialize"),
        ("有序列表", "ordered list"),
        ("分栏", "columns"),
        ("右对齐", "right align"),
        ("断言", "assert"),
        ("依赖注入", "injection"),
        ("鉴权", "auth"),
        ("定时器", "timer"),
        ("二分查找", "binary search"),
        ("最近", "nearest"),
        ("去重", "dedupe"),
        ("防抖", "debounce"),
        ("子命令", "subcommand"),
    ],
)
def test_representative_entries_give_the_code_words_first(word: str, english: str) -> None:
    expected = tuple(english.split())
    assert DEV_VOCABULARY[word][: len(expected)] == expected


def test_parse_skips_comments_blank_and_malformed_lines_and_keeps_the_first_repeat() -> None:
    text = "# heading\n\n管道\tPipe  pipeline\n坏行 no tab\n空值\t\n管道\tother\n"
    assert parse_vocabulary(text) == {"管道": ("pipe", "pipeline")}
    assert [n for n, _, _ in vocabulary_entries(text)] == [3, 4, 5, 6]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("管道另一端关闭时，程序怎么处理？", {"pipe", "close"}),
        ("线程池的大小在哪里配置", {"thread", "pool", "size", "config"}),
        ("怎么遍历子节点", {"iterate", "child"}),
        ("表格的表头怎么右对齐？", {"table", "header", "right", "align"}),
        ("互斥锁和信号量", {"mutex", "lock", "semaphore"}),
        ("标准输出被重定向到文件时", {"stdout", "redirect", "file"}),
        ("中间件如何处理跨域", {"middleware", "cors"}),
        ("防抖和节流", {"debounce", "throttle"}),
        ("嵌套层级太深时，截断", {"nested", "level", "truncate"}),
    ],
)
def test_gloss_reads_developer_words_technically(
    home: HomePaths, question: str, expected: set[str]
) -> None:
    gloss = gloss_question(question, home=home)
    assert expected <= set(gloss.terms), gloss.pieces


def test_gloss_of_pipe_is_not_the_plumbing_sense(home: HomePaths) -> None:
    gloss = gloss_question("管道", home=home)
    assert gloss.terms[0] == "pipe"
    assert "tubing" not in gloss.terms
