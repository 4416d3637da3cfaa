"""Extraction on inputs outside the development set (behaviour §15): the reviewer's own bilingual
cases (auto_fact_review_cases.json: tricky punctuation, mixed languages, lists, markdown,
quotes, reported speech, questions without a mark), run through the whole pipeline (local
filters, reply checks, save) like the dev set, plus table tests of the numbers of docs/behaviour.md and
word lists.

Each case: what the person typed, the quotes that must be saved, and wrong replies a model
might give, none of which may save anything. Oracle mode answers with exactly the gold quotes;
adversarial mode answers once per wrong reply.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from doubles.completers import ScriptedCompleter

from paicli_tui.config import Settings
from paicli_tui.core.memory.auto import extract_and_save
from paicli_tui.core.memory.book import MemoryBook
from paicli_tui.core.memory.extraction import (
    MAX_INPUT_CHARS,
    FilteredInput,
    check_quote,
    drop_sensitive_sentences,
    prefilter,
)
from paicli_tui.core.memory.lexicon import (
    has_fact_cue,
    is_question,
    is_reported,
    is_temporary,
    mentions_sensitive,
)
from paicli_tui.core.memory.store import MemoryStore
from paicli_tui.core.memory.textspans import quoted_regions, split_sentences

CASES_FILE = Path(__file__).with_name("auto_fact_review_cases.json")
"""The cases in the development set's format (benchmarks/eval_memory.py scores them too)."""


def _load() -> list[tuple[str, str, list[str], list[str]]]:
    rows = []
    for case in json.loads(CASES_FILE.read_text(encoding="utf-8")):
        wrong = [fact["quote"] for reply in case.get("adversarial", ())
                 for fact in json.loads(reply)["facts"]]
        rows.append((case["id"], case["input"], case["gold"], wrong))
    return rows


CASES = _load()


async def _run(settings: Settings, tmp_path: Path, text: str, reply: str
               ) -> tuple[list[str], int]:
    store = MemoryStore(tmp_path / "m.json")
    book = MemoryBook(settings, tmp_path, store=store)
    model = ScriptedCompleter(reply)
    saved, _ = await extract_and_save(book, text, model)
    return [e.content for e in saved], len(model.calls)


def _reply(quotes: list[str]) -> str:
    return json.dumps({"facts": [{"quote": q} for q in quotes]}, ensure_ascii=False)


@pytest.mark.parametrize(("case_id", "text", "gold", "wrong"), CASES, ids=[c[0] for c in CASES])
async def test_oracle_saves_exactly_the_gold(settings: Settings, tmp_path: Path, case_id: str,
                                             text: str, gold: list[str], wrong: list[str]) -> None:
    saved, calls = await _run(settings, tmp_path, text, _reply(gold))
    assert saved == gold
    if prefilter(text)[0] is None:  # a local filter said no: the model was never asked
        assert calls == 0


@pytest.mark.parametrize(("case_id", "text", "gold", "wrong"),
                         [c for c in CASES if c[3]], ids=[c[0] for c in CASES if c[3]])
async def test_wrong_quotes_are_never_saved(settings: Settings, tmp_path: Path, case_id: str,
                                            text: str, gold: list[str], wrong: list[str]) -> None:
    for quote in wrong:
        saved, _ = await _run(settings, tmp_path / quote[:8].replace("/", "_"), text,
                              _reply([quote]))
        assert saved == [], quote


def test_there_are_enough_cases_of_both_kinds() -> None:
    assert len(CASES) >= 20
    assert sum(1 for c in CASES if c[2]) >= 10 and sum(1 for c in CASES if not c[2]) >= 10


# --- the numbers of docs/behaviour.md and word lists, one row each -----------------------------------------

@pytest.mark.parametrize(("length", "asked"), [(4, False), (5, True), (MAX_INPUT_CHARS, True),
                                               (MAX_INPUT_CHARS + 1, False)])
def test_input_length_bounds(length: int, asked: bool) -> None:
    text = ("我们用" + "x" * length)[:length]
    assert (prefilter("  " + text + "\n")[0] is not None) is asked


@pytest.mark.parametrize(("length", "ok"), [(4, False), (5, True), (180, True), (181, False)])
def test_quote_length_bounds(length: int, ok: bool) -> None:
    quote = ("We use " + "x" * 200)[:length]
    source = FilteredInput.of(quote + ".")
    assert (check_quote(quote, source) is None) is ok


@pytest.mark.parametrize("quote", ["We use ruff\nWe use mypy", "We use ruff\r\nWe use mypy"])
def test_quotes_are_single_lines(quote: str) -> None:
    text = quote + "."
    assert check_quote(quote, FilteredInput.of(text)) == "not a single line"


@pytest.mark.parametrize("word", ["password", "secret", "token", "api_key", "bearer", "密码",
                                  "密钥", "手机号", "身份证", "邮箱", "Password", "API-KEY",
                                  "tokens", "credentials", "私钥", "验证码", "email"])
def test_sensitive_words_drop_their_sentence(word: str) -> None:
    text = f"我们团队用 GitLab。我们的 {word} 放在 vault 里。We use ruff."
    kept = drop_sensitive_sentences(text)
    assert word not in kept and kept == "我们团队用 GitLab。We use ruff."


@pytest.mark.parametrize("text", ["We use the jieba tokenizer.", "Tokenization runs in Rust.",
                                  "我们用 Passport.js 做登录。", "We push to git@github.com:a/b."])
def test_words_that_only_look_sensitive_are_kept(text: str) -> None:
    assert drop_sensitive_sentences(text) == text


@pytest.mark.parametrize("cue", ["我", "我们", "项目", "仓库", "团队", "偏好", "习惯", "默认", "统一",
                                 "使用", "采用", "基于", "构建", "技术栈", "语言", "框架", "版本",
                                 "编码", "规范", "禁止", "不要", "一律", "以后", "总是", "we",
                                 "our", "project", "repo", "team", "prefer", "always", "never",
                                 "default", "use", "framework", "version"])
def test_each_cue_word_opens_the_filter(cue: str) -> None:
    assert has_fact_cue(f"xx {cue} yy") and has_fact_cue(cue.upper())


def test_no_cue_no_call() -> None:
    assert prefilter("README 的安装步骤不完整。") == (None, "no durable-fact cue")
    assert prefilter("The page loads slowly.") == (None, "no durable-fact cue")


@pytest.mark.parametrize("word", ["今天", "明天", "现在", "刚刚", "刚才", "这次", "本轮", "临时",
                                  "暂时", "马上", "立刻", "顺便", "报错", "先帮", "先把", "先看"])
def test_chinese_temporary_words(word: str) -> None:
    assert is_temporary(f"我们{word}用 Java 17")


@pytest.mark.parametrize("phrase", ["today", "tomorrow", "now", "right now", "just now",
                                    "this time", "for now", "temporarily", "at the moment",
                                    "by the way", "right away"])
def test_english_temporary_words_as_words_in_any_case(phrase: str) -> None:
    assert is_temporary(f"We use Java 17 {phrase}")
    assert is_temporary(f"{phrase.upper()} we use Java 17")
    assert is_temporary(f"We use Java 17 {phrase.title()}.")


@pytest.mark.parametrize("text", [
    "请先给一个例子", "我们优先看测试覆盖率", "发布前事先把备份做好", "核心实现在 src/core",
    "From now on we squash merge", "从现在起一律用英文", "I know we use ruff",
    "From today on, we squash merge", "Starting today we tag every release", "现在起一律用英文",
    "从今天开始提交信息用英文", "from now onwards we use uv",
    "Nowadays we deploy weekly", "We never commit temporary files", "Use snowflake ids",
])
def test_not_temporary(text: str) -> None:
    assert not is_temporary(text)


@pytest.mark.parametrize(("sentence", "terminator", "question"), [
    ("我们项目是不是用的 Gradle", "？", True),
    ("Do we use Redis", "?", True),
    ("Do we use Redis", "", True),
    ("Why do we use Gradle here", "", True),
    ("- Do we use Redis", "\n", True),
    ("我们项目用的是什么数据库", "", True),
    ("这个项目用的是 Java 17 吗。", "。", True),
    ("你能不能以后都用中文回复", "", True),
    ("负责人是谁", "", True),
    ("Do not commit build output", "", False),
    ("When we release, we always tag the commit", "", False),
    ("是否用 Lombok 由模块决定。", "。", False),
    ("不管什么情况都用 UTF-8", "", False),
    ("什么项目都用 uv 管理依赖", "", False),
    ("我们都用什么测试框架", "", True),
    ("We use pytest", "\n", False),
    ("Why we use Gradle: it is fast.", ".", False),
    ("What's our default branch", "", True),
])
def test_questions(sentence: str, terminator: str, question: bool) -> None:
    assert is_question(sentence, terminator) is question


@pytest.mark.parametrize(("text", "expected"), [
    ("我们的文档在 https://d.io/?lang=zh 上。好", ["我们的文档在 https://d.io/?lang=zh 上。", "好"]),
    ("Use != not <>! Done", ["Use != not <>!", " Done"]),
    ("我们用 ruff;不用 black", ["我们用 ruff;", "不用 black"]),
    ("Node 20.x. Next", ["Node 20.x.", " Next"]),
    ("e.g. this", ["e.g.", " this"]),
])
def test_sentence_ends(text: str, expected: list[str]) -> None:
    assert [s.text for s in split_sentences(text)] == expected


@pytest.mark.parametrize(("text", "quoted"), [
    ("He wrote 'we always use tabs' once", ["'we always use tabs'"]),
    ("We don't use the users' data", []),
    ("文档写着“禁止使用 Kotlin”", ["“禁止使用 Kotlin”"]),
    ("他说「统一用 tabs」和『别用 var』", ["「统一用 tabs」", "『别用 var』"]),
    ("She said \"use tabs\" and ‘never spaces’", ["\"use tabs\"", "‘never spaces’"]),
    ("an “open mark only", []),
])
def test_quoted_regions(text: str, quoted: list[str]) -> None:
    assert sorted(text[a:b] for a, b in quoted_regions(text)) == sorted(quoted)


@pytest.mark.parametrize("reply", [
    '{"facts":[{"quote":"We use ruff","why":"x"}]}',
    '{"facts":[{"quote":"We use ruff"}],"extra":1}',
    '{"facts":[{"quote":null}]}',
    '{"facts":[{"quote":true}]}',
    '{"facts":[{"quote":{"text":"We use ruff"}}]}',
    '{"facts":[{"quote":"We use ruff"},{"quote":"We use mypy"},{"quote":"We use uv"},'
    '{"quote":"We use git"}]}',
    '{"facts":[{"quote":"We use ruff"}, "We use mypy"]}',
    '{"Facts":[{"quote":"We use ruff"}]}',
    '{"facts":[{"quote":"We use ruff"}]} trailing',
])
async def test_a_bad_batch_saves_nothing_even_with_good_quotes(settings: Settings,
                                                               tmp_path: Path, reply: str) -> None:
    text = "We use ruff. We use mypy. We use uv. We use git."
    saved, calls = await _run(settings, tmp_path, text, reply)
    assert (saved, calls) == ([], 1)


@pytest.mark.parametrize(("sentence", "reported"), [
    ("网页上说：以后所有回答都用英文。", True),
    ("同事说我们以后都用 Bazel 构建。", True),
    ("他们说以后都用 Go", True),
    ("ChatGPT 说我们应该用 Rust", True),
    ("听说我们要换成 Kafka", True),
    ("My colleague said we should always use Bazel.", True),
    ("According to the blog, we should never use ORMs.", True),
    ("The README says we use Yarn 1.", True),
    ("I heard the team uses Kafka.", True),
    ("项目的文档说明都放在 docs/ 下", False),
    ("其他说明文档都放在 docs/ 目录", False),
    ("我说过，以后提交信息一律用英文。", False),
    ("我们团队认为测试很重要", False),
    ("We version packages according to PEP 440.", False),
    ("I said it before: we never use Lombok.", False),
])
def test_reported_speech(sentence: str, reported: bool) -> None:
    assert is_reported(sentence) is reported


@pytest.mark.parametrize(("text", "secret"), [
    ("we deploy with sk-live-abcdef123456", True),
    ("key AIzaSyA1234567890abcdefghijk here", True),
    ("hf_abcdefghijklmnopqrstuvwx is ours", True),
    ("auth eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.sig", True),
    ("AKIAABCDEFGHIJKLMNOP", True),
    ("call 13812345678", True),
    ("mail dev@acme.io", True),
    ("postgres://app:hunter2@db.acme.io/main", True),
    ("We push to git@github.com:acme/app.git", False),
    ("We use Java 17 and Node 20", False),
])
def test_secret_looking_values(text: str, secret: bool) -> None:
    assert mentions_sensitive(text) is secret


@pytest.mark.parametrize(("text", "quote", "reason"), [
    ("We use pnpm everywhere.", "e use pnpm everywhere", "cuts a word"),
    ("The repo targets Python 3.12.", "The repo targets Python 3.1", "cuts a word"),
    ("We use pnpm everywhere.", "We use pnpm everywher", "cuts a word"),
    ("We use pnpm everywhere.", "We use pnpm everywhere", None),
    ("Please remember that we use pnpm.", "we use pnpm", None),
    ("我们统一用pnpm管理依赖。", "统一用pnpm管理依赖", None),
    ("我们统一用pnpm管理依赖。", "我们统一用pnp", "cuts a word"),
])
def test_quotes_never_cut_a_latin_word(text: str, quote: str, reason: str | None) -> None:
    assert check_quote(quote, FilteredInput.of(text)) == reason


@pytest.mark.parametrize(("text", "quote", "reason"), [
    ("We no longer use Java 8.", "use Java 8", "cut off its negation"),
    ("We don't use Lombok.", "use Lombok", "cut off its negation"),
    ("We don’t use Lombok.", "use Lombok", "cut off its negation"),
    ("We won't ship on Fridays.", "ship on Fridays", "cut off its negation"),
    ("项目禁止使用 Lombok。", "使用 Lombok", "cut off its negation"),
    ("我们不再用 Java 8 了。", "用 Java 8 了", "cut off its negation"),
    ("我们团队不用 unittest。", "用 unittest", "cut off its negation"),
    ("We no longer use Java 8.", "We no longer use Java 8", None),
    ("Remember that we use pnpm.", "we use pnpm", None),
    ("我说过，以后提交信息一律用英文。", "以后提交信息一律用英文", None),
    ("我们团队特别注重单元测试。", "注重单元测试", None),
    ("别用 var 声明变量。", "用 var 声明变量", "cut off its negation"),
])
def test_quotes_never_drop_a_negation(text: str, quote: str, reason: str | None) -> None:
    assert check_quote(quote, FilteredInput.of(text)) == reason
