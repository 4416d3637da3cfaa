"""jieba's dictionary read on demand from the cached table segments exactly as the dictionary
loaded whole (developer words included), also after the table is promoted to memory, and a
damaged table is rebuilt."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import jieba
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paicli_tui.core.text import jieba_freq
from paicli_tui.core.text.jieba_setup import _add_developer_words, developer_additions

SENTENCES = [
    ("在线程里运行测试", ["在", "线程", "里", "运行", "测试"]),
    ("把子类的方法改成异步", None),
    ("时区里的时间戳不对", None),
    ("怎么部署到生产环境", None),
    ("数据库连接池满了怎么办", None),
    ("用 Redis 做缓存，TTL 设成 30 秒", None),
    ("修复 getHTTPResponse_code2 的空指针异常", None),
]
"""Sentences about code; the first pins the developer glossary's effect (jieba alone cuts
在线|程里)."""

CHARS = "在线程里运行测试把子类的方法改成异步时区间戳不对怎么部署到生产环境数据库连接池满了办用做缓存设秒修复空指针异常内存泄漏日志级别配置文件 aZ9_.，。"


def _tokenizer(jieba_dir: Path) -> jieba.Tokenizer:
    jieba_dir.mkdir(parents=True, exist_ok=True)
    tokenizer = jieba.Tokenizer()
    tokenizer.tmp_dir = str(jieba_dir)
    return tokenizer


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[jieba.Tokenizer, jieba.Tokenizer]:
    """(loaded whole with the developer words, read from the table)."""
    root = tmp_path_factory.mktemp("jieba")
    full = _tokenizer(root / "jieba")
    full.initialize()
    _add_developer_words(full)
    builder = _tokenizer(root / "jieba")
    assert jieba_freq.install(builder, root, developer_additions(), _add_developer_words) \
        == "built"
    lazy = _tokenizer(root / "jieba")
    assert jieba_freq.install(lazy, root, developer_additions(), _add_developer_words) \
        == "table"
    assert isinstance(lazy.FREQ, jieba_freq.LazyFrequencies)
    assert lazy.total == full.total
    return full, lazy


@pytest.mark.parametrize(("text", "expected"), SENTENCES)
def test_table_segments_like_the_whole_dictionary(pair, text, expected) -> None:
    full, lazy = pair
    assert lazy.lcut(text) == full.lcut(text)
    assert lazy.lcut_for_search(text) == full.lcut_for_search(text)
    if expected is not None:
        assert lazy.lcut(text) == expected


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=CHARS, max_size=40))
def test_any_text_segments_the_same(pair, text) -> None:
    full, lazy = pair
    assert lazy.lcut(text) == full.lcut(text)
    assert lazy.lcut(text, HMM=False) == full.lcut(text, HMM=False)
    assert lazy.lcut_for_search(text) == full.lcut_for_search(text)


def test_promotion_hands_the_tokenizer_a_plain_dict(tmp_path: Path, pair) -> None:
    full, _ = pair
    jieba_freq.install(_tokenizer(tmp_path / "jieba"), tmp_path, developer_additions(),
                       _add_developer_words)
    path = jieba_freq.table_path(tmp_path, full, developer_additions())
    lazy = _tokenizer(tmp_path / "jieba")
    lazy.FREQ = jieba_freq.LazyFrequencies(
        path, promote_after=40, on_promote=lambda d: setattr(lazy, "FREQ", d))
    lazy.total, lazy.initialized = full.total, True
    lazy.add_word("蓝绿发布", freq=200_000)  # this process's word must survive promotion
    assert lazy.lcut("我们用蓝绿发布") == ["我们", "用", "蓝绿发布"]
    text = "".join(s for s, _ in SENTENCES) * 3
    expected = full.lcut(text)
    assert lazy.lcut(text) == expected
    assert type(lazy.FREQ) is dict  # promoted: plain dict look-ups from now on
    assert lazy.FREQ["蓝绿发布"] == 200_000
    assert lazy.lcut("我们用蓝绿发布") == ["我们", "用", "蓝绿发布"]
    new = {"蓝绿发布"[:n] for n in range(1, 5)} - set(full.FREQ)  # the word, new prefixes
    assert new and set(lazy.FREQ) - set(full.FREQ) == new


def test_a_damaged_table_is_rebuilt(tmp_path: Path, pair) -> None:
    full, _ = pair
    path = jieba_freq.table_path(tmp_path, full, developer_additions())
    path.write_bytes(b"not a database at all" * 100)
    tokenizer = _tokenizer(tmp_path / "jieba")
    assert jieba_freq.install(tokenizer, tmp_path, developer_additions(),
                              _add_developer_words) == "built"
    assert tokenizer.lcut(SENTENCES[0][0]) == SENTENCES[0][1]
    again = _tokenizer(tmp_path / "jieba")
    assert jieba_freq.install(again, tmp_path, developer_additions(),
                              _add_developer_words) == "table"
    assert again.lcut(SENTENCES[0][0]) == SENTENCES[0][1]


def test_other_additions_get_their_own_table(tmp_path: Path, pair) -> None:
    full, _ = pair
    assert jieba_freq.table_path(tmp_path, full, "a") != jieba_freq.table_path(tmp_path, full,
                                                                               "b")


def test_a_new_process_reads_the_table_and_skips_pkg_resources(tmp_path: Path) -> None:
    """The second process segments from the table (nothing loaded whole, no pkg_resources
    imported) and cuts the same words as the first, which built it."""
    code = ("import sys\n"
            "from paicli_tui.paths import HomePaths\n"
            "from paicli_tui.core.text.jieba_setup import cut_words, get_jieba\n"
            "words = cut_words('在线程里运行测试', HomePaths.from_env())\n"
            "print(type(get_jieba().dt.FREQ).__name__, 'pkg_resources' in sys.modules,"
            " '/'.join(words))\n")
    env = {**os.environ, "PAICLI_HOME": str(tmp_path / "home")}
    runs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, timeout=120, check=True).stdout.split()
            for _ in range(2)]
    assert runs[0] == ["dict", "False", "在/线程/里/运行/测试"]
    assert runs[1] == ["LazyFrequencies", "False", "在/线程/里/运行/测试"]
