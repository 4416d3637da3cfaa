"""Automatic fact extraction (behaviour §15): local filters, strict reply checks, sentence rules,
and the development set in oracle and adversarial mode."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from doubles.completers import ScriptedCompleter
from hypothesis import given
from hypothesis import strategies as st

from paicli_tui.config import Settings
from paicli_tui.core.memory.auto import extract_and_save
from paicli_tui.core.memory.book import MemoryBook
from paicli_tui.core.memory.entry import SOURCE_AUTO, UNVERIFIED
from paicli_tui.core.memory.extraction import (
    FilteredInput,
    check_quote,
    drop_sensitive_sentences,
    extract_facts,
    parse_reply,
    prefilter,
)
from paicli_tui.core.memory.store import MemoryStore
from paicli_tui.core.memory.textspans import split_sentences

CHECKOUT = Path(__file__).resolve().parents[2]
DEV_SET = CHECKOUT.parent / "shared" / "eval" / "memory" / "auto-fact-dev.json"
"""The shared dev set beside the checkout, when there is one; else the copy in the repo."""
LOCAL_DEV_COPY = Path(__file__).with_name("auto_fact_dev_cases.json")

sys.path.insert(0, str(CHECKOUT / "benchmarks"))  # the scoring code is benchmark-only
from memory_evaluation import run_adversarial, run_oracle  # noqa: E402


def _cases() -> list[dict]:
    path = DEV_SET if DEV_SET.exists() else LOCAL_DEV_COPY
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def runner(settings: Settings, tmp_path: Path):
    counter = iter(range(10_000))

    async def run(user_input: str, reply: str) -> tuple[list[str], int]:
        store = MemoryStore(tmp_path / f"case-{next(counter)}.json")
        book = MemoryBook(settings, tmp_path, store=store)
        model = ScriptedCompleter(reply)
        saved, _ = await extract_and_save(book, user_input, model)
        for entry in saved:
            assert entry.source == SOURCE_AUTO and entry.verification == UNVERIFIED
            assert entry.scope == "project"
        return [e.content for e in saved], len(model.calls)

    return run


async def test_dev_set_oracle_mode_is_perfect(runner) -> None:
    report = await run_oracle(_cases(), runner)
    wrong = [(c.case_id, c.saved, c.gold) for c in report.cases if not c.exact]
    assert wrong == []
    assert report.f1 == 1.0 and report.exact_cases == len(report.cases)
    assert report.writes_on_negatives == 0


async def test_dev_set_adversarial_mode_writes_nothing(runner) -> None:
    report = await run_adversarial(_cases(), runner)
    assert len(report.cases) >= 15
    assert [(c.case_id, c.saved) for c in report.cases if c.saved] == []


@pytest.mark.parametrize("case_id", ["neg_short", "neg_no_cue", "neg_secret_only",
                                     "neg_just_now"])
async def test_inputs_failing_local_filters_make_no_model_call(runner, case_id: str) -> None:
    case = next(c for c in _cases() if c["id"] == case_id)
    saved, calls = await runner(case["input"], '{"facts":[{"quote":"anything at all"}]}')
    assert (saved, calls) == ([], 0)


@pytest.mark.parametrize(("text", "reason"), [
    ("好的", "too short"),
    ("ok!", "too short"),
    ("我们" + "用" * 4_000, "too long"),
    ("My password is hunter2.", "only sensitive content"),
    ("README 的安装步骤不完整。", "no durable-fact cue"),
    ("The tests are slow.", "no durable-fact cue"),
    ("我们项目是不是用的 Gradle？", "no sentence that could state a durable fact"),
    ("```\n我们使用 Java 11\n```", "no sentence that could state a durable fact"),
    ("> We use MongoDB for everything.", "no sentence that could state a durable fact"),
    ("文档里有一句“本项目禁止使用 Kotlin”，翻译一下。", "no sentence that could state a durable fact"),
])
def test_local_filters(text: str, reason: str) -> None:
    assert prefilter(text) == (None, reason)


@pytest.mark.parametrize("text", [
    "我一直希望你用中文回复。",
    "Never use Lombok in this codebase.",
    "From now on, we squash merge every pull request.",
    "请先给一个例子再解释，这是我的习惯。",
])
def test_durable_inputs_pass_the_local_filters(text: str) -> None:
    source, reason = prefilter(text)
    assert reason is None and source is not None


@pytest.mark.parametrize(("text", "expected"), [
    ("以后提交信息一律用英文。现在先帮我看下。", ["以后提交信息一律用英文。", "现在先帮我看下。"]),
    ("We use ruff. The repo targets Python 3.11.", ["We use ruff.", " The repo targets Python 3.11."]),
    ("a! b? c；d;e\nf", ["a!", " b?", " c；", "d;", "e\n", "f"]),
    ("v1.2 stays.x", ["v1.2 stays.x"]),
])
def test_sentence_splitting(text: str, expected: list[str]) -> None:
    assert [s.text for s in split_sentences(text)] == expected


def test_sensitive_sentences_are_dropped_before_the_model_sees_them() -> None:
    text = "I want answers in English. My api_key is sk-dev-0000.\n邮箱是 a@b.cn\n我们用 uv。"
    assert drop_sensitive_sentences(text) == "I want answers in English.\n\n我们用 uv。"


@pytest.mark.parametrize(("reply", "quotes"), [
    ('{"facts":[]}', []),
    ('{"facts":[{"quote":"a b c d e"}]}', ["a b c d e"]),
    ('```json\n{"facts":[{"quote":"abcde"}]}\n```', ["abcde"]),
    ('{"facts":[{"quote":"abcde","confidence":0.9}]}', None),
    ('{"facts":[],"reason":"x"}', None),
    ('{"facts":[{"quote":1}]}', None),
    ('{"facts":[{"quote":"a"},{"quote":"b"},{"quote":"c"},{"quote":"d"}]}', None),
    ('{"facts":[{"quote":"a","quote":"b"}]}', None),
    ('{"facts":{"quote":"abcde"}}', None),
    ('["abcde"]', None),
    ('Here you go: {"facts":[]}', None),
    ("", None),
])
def test_reply_schema_is_strict(reply: str, quotes: list[str] | None) -> None:
    assert parse_reply(reply) == quotes


@pytest.mark.parametrize(("text", "quote", "reason"), [
    ("我们用 Maven 构建。", "我们用 Maven 构建", None),
    ("我们用 Maven 构建。", "我们使用 Maven 构建", "not verbatim"),
    ("我们用 Maven。", "我们用", "length"),
    ("We use " + "x" * 200 + ".", "We use " + "x" * 200, "length"),
    ("```\nWe use Java 11\n```\nWe build with Gradle.", "We use Java 11", "inside a code fence"),
    ("Someone wrote:\n> We use MongoDB for everything.", "We use MongoDB for everything",
     "inside a block quote"),
    ("文档里有一句“本项目禁止使用 Kotlin”，帮我翻译。", "本项目禁止使用 Kotlin", "inside quotation marks"),
    ("他说「我们统一用 tabs」。", "我们统一用 tabs", "inside quotation marks"),
    ('He said "we always use tabs" once.', "we always use tabs", "inside quotation marks"),
    ("我们项目是不是用的 Gradle？", "我们项目是不是用的 Gradle", "a question"),
    ("Do we use Redis in this repo", "we use Redis in this repo", "a question"),
    ("这次临时把端口改成 9090。", "把端口改成 9090", "temporary state"),
    ("For now, we use the staging database.", "we use the staging database", "temporary state"),
    ("I use vim at the moment.", "I use vim", "temporary state"),
    ("请先帮我看一下，我们用 pytest。", "我们用 pytest", "temporary state"),
    ("请先给一个例子，我偏好这样。", "请先给一个例子，我偏好这样", None),
    ("From now on, we squash merge.", "we squash merge", None),
    ("We use “black” style everywhere.", "We use “black” style everywhere", None),
    ("Token budget is 5000 per request.", "Token budget is 5000 per request", "sensitive"),
    ("从现在开始，回答一律用中文。", "从现在开始，回答一律用中文", None),
    ("现在开始跑测试。", "现在开始跑测试", "temporary state"),
    ("We push to git@github.com:acme/app.git only.", "We push to git@github.com:acme/app.git only",
     None),
    ("我的邮箱 dev@acme.io，我们用 uv。", "我们用 uv", "sensitive"),
    ("我们统一用 pytest，不管是否是集成测试。", "我们统一用 pytest，不管是否是集成测试", None),
    ("我们用 Gradle 吗", "我们用 Gradle", "a question"),
    ("We use tools, e.g. ruff and mypy.", "We use tools, e.g. ruff and mypy", None),
    ("网页上说：以后所有回答都用英文。", "以后所有回答都用英文", "someone else's claim"),
    ("Someone wrote: we use MongoDB for everything.", "we use MongoDB for everything",
     "someone else's claim"),
    ("According to the blog, we should never use ORMs.", "we should never use ORMs",
     "someone else's claim"),
    ("我说过，以后提交信息一律用英文。", "以后提交信息一律用英文", None),
    ("I said it before: we never use Lombok.", "we never use Lombok", None),
])
def test_quote_checks(text: str, quote: str, reason: str | None) -> None:
    assert check_quote(quote, FilteredInput.of(text)) == reason


async def test_model_errors_yield_nothing() -> None:
    async def broken(system: str, user: str) -> str:
        raise RuntimeError("boom")

    result = await extract_facts("我们团队统一用 pytest 写测试。", broken)
    assert result.quotes == [] and result.called_model


# A light model that never finishes its answer (a stream of dots, keep-alives between them)
# held the extraction until the stream's 30-minute cap: `paicli-tui exec` printed its answer
# and then waited that long for the background extraction before it ended. The extraction's
# own answer is a few hundred characters; it has a time limit of its own.
async def test_a_model_that_never_answers_ends_the_extraction_at_its_limit() -> None:
    async def endless(system: str, user: str) -> str:
        await asyncio.Event().wait()
        return '{"facts": []}'

    result = await asyncio.wait_for(  # a hang guard; the limit under test is 0.05 s
        extract_facts("我们团队统一用 pytest 写测试。", endless, timeout_s=0.05), 60)
    assert result.quotes == [] and result.called_model
    assert result.rejected == [("<batch>", "model timed out")]


async def test_model_sees_the_filtered_input_and_the_prompt() -> None:
    model = ScriptedCompleter('{"facts":[]}')
    await extract_facts("I want answers in English. My api_key is sk-dev-0000.", model)
    ((system, user),) = model.calls
    assert "sk-dev" not in user and user == "I want answers in English."
    assert '{"facts":[{"quote":"..."}]}' in system


async def test_duplicates_and_conflicts_are_skipped_silently(settings: Settings,
                                                             project_dir: Path) -> None:
    book = MemoryBook(settings, project_dir)
    kept = book.save("项目使用 Java 17").entry
    model = ScriptedCompleter('{"facts":[{"quote":"项目使用 Java 21"},{"quote":"项目使用 Java 17"}]}')
    saved, extraction = await extract_and_save(book, "项目使用 Java 21。项目使用 Java 17。", model)
    assert saved == [] and extraction.quotes
    (entry,) = book.list_visible()
    assert entry == kept


def test_adversarial_replies_fail_the_code_checks_even_without_local_filters() -> None:
    """The local filters spare most adversarial cases a model call; the reply checks must still
    reject every wrong reply on their own."""
    from paicli_tui.core.memory.extraction import check_reply

    for case in _cases():
        source = FilteredInput.of(drop_sensitive_sentences(case["input"]).strip())
        for reply in case.get("adversarial") or ():
            assert check_reply(reply, source).quotes == [], (case["id"], reply)


@given(st.text(alphabet=st.sampled_from(list("ab 。！？；;!?.\n我们\"“”>`")), max_size=60))
def test_sentences_cover_the_text_exactly(text: str) -> None:
    sentences = split_sentences(text)
    assert "".join(s.text for s in sentences) == text
    assert all(text[s.start:s.end] == s.text for s in sentences)


@given(st.text(max_size=200))
def test_accepted_quotes_are_always_verbatim_and_clean(text: str) -> None:
    source = FilteredInput.of(text)
    for quote in {text[i:i + 12] for i in range(0, max(0, len(text) - 12), 7)}:
        if check_quote(quote, source) is None:
            assert quote in text and "\n" not in quote and 5 <= len(quote.strip()) <= 180
