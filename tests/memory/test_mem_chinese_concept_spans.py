"""Which concepts a Chinese sentence names when a concept word crosses jieba's cut: one that
holds a whole word at either end is a word jieba missed (合回 of 合 / 回去); one that only
joins the end of one word to the start of the next is a coincidence of the characters (下单 in
一下 / 单元 is not "place an order", 同时 in 不同 / 时区 not "at the same time")."""

from __future__ import annotations

import pytest

from paicli_tui.core.memory.terms import text_terms


def _concepts(text: str) -> list[str]:
    return sorted({term for group in text_terms(text).groups for term, _ in group
                   if term.startswith("§")})


@pytest.mark.parametrize(("text", "concepts"), [
    # the end of one word + the start of the next: no concept
    ("帮我看一下单元测试", ["§test"]),          # 一下 / 单元测试: not 下单 (§order)
    ("不同时区的用户", ["§timezone"]),          # 不同 / 时区: not 同时 (§lock)
    ("把不同步骤拆开", []),                     # 不同 / 步骤: not 同步 (§sync)
    ("来回调整了好几次", []),                   # 来回 / 调整: not 回调 (§webhook)
    ("加上线程池", ["§thread"]),                # 加上 / 线程池: not 上线 (§release)
    ("开发布局", ["§layout"]),                  # 开发 / 布局: not 发布 (§release)
    ("帮我改一下单号的格式", ["§id"]),          # 一下 / 单号: not 下单 (§order)
    # a whole word at one end: jieba's cut missed the concept, it still counts
    ("分支合回去", ["§branch", "§merge"]),      # 合 / 回去
    ("最多重试三次", ["§limit", "§retry"]),
    ("线上下单失败", ["§error", "§order", "§production"]),  # 线 / 上下 / 单
    ("订单重复提交", ["§idempotency", "§lock", "§order"]),  # 重复 / 提交, both whole
])
def test_a_concept_across_words_counts_only_with_a_whole_word_at_an_end(
        text: str, concepts: list[str]) -> None:
    assert _concepts(text) == concepts


def test_a_long_run_of_one_concept_word_names_it_once() -> None:
    """100 KB of one concept word without punctuation (a hand-edited store can hold one):
    each word's concepts are found in one pass, not by scanning every match for every word
    (98.8 s before, 0.8 s after on the development machine; measured, not asserted)."""
    terms = text_terms("部署" * 50_000)
    assert [g for g in terms.groups if any(t == "§deploy" for t, _ in g)] == [
        terms.groups[0]]


@pytest.mark.parametrize(("text", "concepts"), [
    # everyday words that are not the concept: 同时 "at the same time" is no lock, 打印
    # "print out" and a Java record or a database record are no log
    ("同时打开两个文件", ["§file"]),
    ("把这段代码打印出来", []),
    ("what does this record type do", []),
    # the concept's own words still name it
    ("并发请求要加锁", ["§concurrency", "§http", "§lock"]),
    ("同时请求太多", ["§concurrency", "§http"]),
    ("打印日志", ["§log"]),
    ("记录一下接口出错时的上下文", ["§api", "§error", "§log"]),
    ("add a log line", ["§log"]),
])
def test_an_everyday_word_does_not_name_a_concept(text: str, concepts: list[str]) -> None:
    assert _concepts(text) == concepts


@pytest.mark.parametrize(("text", "concepts"), [
    # a concept word that is only a part of a longer dictionary word with a meaning of its
    # own: 锁屏 "lock screen" (jieba cuts 锁 / 屏后), 大小写 "capitals and lowercase letters",
    # 慢慢来 "take your time", 生产者 "producer" (no production environment)
    ("锁屏后白屏", ["§pageload"]),
    ("大小写敏感", []),
    ("慢慢来", []),
    ("Kafka的生产者配置", ["§config", "§producer", "§queue"]),
    # the longer word's senses still say the concept: 锁定 "to lock" (a one-character part
    # counts by the last word of a sense), 正则表达式 "regular expression" (正则 "regular"),
    # 测试用例 "test case"
    ("锁定库存", ["§inventory", "§lock"]),
    ("正则表达式", ["§regex"]),
    ("测试用例要补", ["§test"]),
    # a longer word the dictionary does not know is made of its parts
    ("生产库只读", ["§production", "§replica"]),
    ("测试环境的数据库", ["§database", "§test", "§testenv"]),
    # the concept word alone, or beside other words, as before
    ("接口很慢", ["§api", "§latency", "§performance"]),
    ("文件大小不能超过", ["§file", "§size"]),
    ("加锁失败", ["§error", "§lock"]),
])
def test_a_concept_word_inside_a_word_of_its_own_does_not_count(
        text: str, concepts: list[str]) -> None:
    assert _concepts(text) == concepts
