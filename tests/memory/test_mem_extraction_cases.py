"""Extraction on inputs outside the development set (SPEC §15): the reviewer's own bilingual
cases, run through the whole pipeline (local filters, reply checks, save) like the dev set.

Each row: (case id, what the person typed, the quotes that must be saved, wrong quotes a model
might answer with, none of which may be saved). Oracle mode answers with exactly the gold
quotes; adversarial mode answers once per wrong quote.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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

CASES = [
    ('zh_style_guide', '我们的代码风格遵循 Google Java Style。',
     ['我们的代码风格遵循 Google Java Style'], ['代码风格遵循 Google 风格']),
    ('zh_pnpm_not_npm', '项目用 pnpm 管理依赖，不要用 npm。',
     ['项目用 pnpm 管理依赖，不要用 npm'], []),
    ('en_contraction', "I'm on macOS and I use zsh.",
     ["I'm on macOS and I use zsh"], []),
    ('en_fact_then_question', 'Our CI runs on GitHub Actions. Can you check why the build failed?',
     ['Our CI runs on GitHub Actions'], ['Can you check why the build failed']),
    ('zh_markdown_list', '项目约定：\n- 我们用 Go 1.22\n- 数据库是 MySQL 8.0\n- 禁止使用 ORM',
     ['我们用 Go 1.22', '数据库是 MySQL 8.0', '禁止使用 ORM'], []),
    ('zh_two_rules_comma', '以后回复请用简体中文，代码注释用英文。',
     ['以后回复请用简体中文，代码注释用英文'], []),
    ('en_backticks', 'We use `pnpm` workspaces for the monorepo.',
     ['We use `pnpm` workspaces for the monorepo'], ['pnpm']),
    ('en_inline_command', 'Always run `make lint` before pushing.',
     ['Always run `make lint` before pushing'], []),
    ('mixed_zh_en', '我们 backend 统一用 FastAPI，前端用 Vue 3。',
     ['我们 backend 统一用 FastAPI，前端用 Vue 3'], []),
    ('en_version_dot', 'We target Node 20.x. Please explain the error.',
     ['We target Node 20.x'], []),
    ('en_semicolon', 'Use 4 spaces for indentation; never use tabs.',
     ['Use 4 spaces for indentation', 'never use tabs'], []),
    ('zh_exclaim_dotfile', '我们项目禁止提交 .env 文件！',
     ['我们项目禁止提交 .env 文件'], []),
    ('zh_other_docs', '其他说明文档都放在 docs/ 目录，我们统一用 Markdown 写。',
     ['其他说明文档都放在 docs/ 目录，我们统一用 Markdown 写'], []),
    ('en_tokenizer', 'Our project uses the jieba tokenizer for Chinese text.',
     ['Our project uses the jieba tokenizer for Chinese text'], []),
    ('zh_priority', '我们团队评审时优先看测试覆盖率。',
     ['我们团队评审时优先看测试覆盖率'], []),
    ('en_eg', 'We prefer small PRs, e.g. under 300 lines.',
     ['We prefer small PRs, e.g. under 300 lines'], []),
    ('zh_ellipsis_list', '我习惯用 IntelliJ IDEA……另外我们仓库用 Git LFS 存大文件。',
     ['我们仓库用 Git LFS 存大文件'], []),
    ('neg_zh_question_no_mark', '我们项目用的是什么数据库',
     [], ['我们项目用的是什么数据库']),
    ('neg_zh_anotA', '你能不能以后都用中文回复？',
     [], ['以后都用中文回复']),
    ('neg_en_question_no_mark', 'Why do we use Gradle here',
     [], ['we use Gradle here']),
    ('neg_en_is_it_true', 'Is it true that our repo uses Lombok',
     [], ['our repo uses Lombok']),
    ('neg_en_right_now', 'Right now our build uses Java 8 while we migrate.',
     [], ['our build uses Java 8 while we migrate']),
    ('neg_en_temporarily', 'Temporarily, we pin numpy to 1.26.',
     [], ['we pin numpy to 1.26']),
    ('neg_en_quoted_colleague', 'My colleague said "we always squash merge" - is that right?',
     [], ['we always squash merge']),
    ('neg_zh_corner_quote', '产品经理说「以后所有接口都用 GraphQL」，我觉得不靠谱。',
     [], ['以后所有接口都用 GraphQL']),
    ('neg_tilde_fence', '~~~yaml\n# we use python 3.8\n~~~',
     [], ['# we use python 3.8']),
    ('neg_fullwidth_blockquote', '＞我们统一用 tabs 缩进',
     [], ['我们统一用 tabs 缩进']),
    ('neg_secret_same_sentence', 'Our DB password is hunter2 and we use Postgres 15.',
     [], ['we use Postgres 15']),
    ('mixed_email_then_fact', '我的邮箱是 dev@acme.io。我们团队用飞书沟通。',
     ['我们团队用飞书沟通'], ['我的邮箱是 dev@acme.io']),
    ('neg_by_the_way', 'By the way, we use Redis for caching.',
     [], ['we use Redis for caching']),
    ('neg_zh_xianba', '我们先把这个 bug 修了吧。',
     [], ['我们先把这个 bug 修了吧']),
    ('durable_qing_xian', '请先给一个例子，再讲原理，我一直这样学习。',
     ['请先给一个例子，再讲原理，我一直这样学习'], []),
    ('neg_heard', 'I heard the team uses Kafka.',
     [], ['the team uses Kafka']),
    ('neg_zh_colleague_said', '同事说我们以后都用 Bazel 构建。',
     [], ['我们以后都用 Bazel 构建']),
    ('neg_en_colleague_said', 'My colleague said we should always use Bazel.',
     [], ['we should always use Bazel']),
    ('neg_ma_with_period', '这个项目用的是 Java 17 吗。',
     [], ['这个项目用的是 Java 17']),
    ('url_query', '我们的文档托管在 https://docs.acme.io/?lang=zh 上。',
     ['我们的文档托管在 https://docs.acme.io/?lang=zh 上'], []),
    ('neg_phone', '我手机号 13812345678，我们用企业微信。',
     [], ['我们用企业微信']),
    ('neg_apikey_zh', '以后 OpenAI 的 API key 统一放在 .env 里。',
     [], ['以后 OpenAI 的 API key 统一放在 .env 里']),
    ('en_numbered_list', 'Team conventions:\n1. We use conventional commits.\n2. We rebase, never merge.',
     ['We use conventional commits', 'We rebase, never merge'], []),
    ('neg_indented_code', 'Look at this snippet:\n```python\n# we always use tabs\nx = 1\n```\nWhat does it do?',
     [], ['# we always use tabs']),
    ('neg_gt_after_space', '  > 我们默认用 UTF-8 编码',
     [], ['我们默认用 UTF-8 编码']),
    ('neg_now_any_case', 'NOW we use the beta API.',
     [], ['we use the beta API']),
    ('know_is_not_now', 'I know we always use ruff for linting.',
     ['we always use ruff for linting'], []),
    ('neg_single_quotes', "He wrote 'we always use tabs' in the wiki, is that still true?",
     [], ['we always use tabs']),
    ('neg_readme_says', 'The README says we use Yarn 1.',
     [], ['we use Yarn 1']),
    ('fact_after_fence', '```bash\nnpm i\n```\nWe use npm workspaces.',
     ['We use npm workspaces'], ['npm i']),
    ('bold_markdown', '**我们统一用 pnpm 管理依赖**',
     ['我们统一用 pnpm 管理依赖'], []),
    ('remember_prefix', '记住：我们的接口统一返回 JSON。',
     ['我们的接口统一返回 JSON'], []),
    ('neg_remember_secret', '记住我的密码是 hunter22',
     [], ['我的密码是 hunter22']),
    ('neg_inline_code_only', '这行配置 `我们默认用 UTF-8` 是什么意思？',
     [], ['我们默认用 UTF-8']),
    ('en_pep', 'We version packages according to PEP 440.',
     ['We version packages according to PEP 440'], []),
    ('zh_impl_dir', '我们的核心实现在 src/core 目录下。',
     ['我们的核心实现在 src/core 目录下'], []),
    ('en_when_clause', 'When we release, we always tag the commit',
     ['When we release, we always tag the commit'], []),
    ('zh_docs_shuoming', '项目的文档说明都放在 docs/ 下，统一用中文写。',
     ['项目的文档说明都放在 docs/ 下，统一用中文写'], []),
    ('neg_this_week', 'This week we use the staging cluster for demos.',
     [], ['we use the staging cluster for demos']),
    ('neg_chatgpt_said', 'ChatGPT 说我们应该统一用 Rust 重写。',
     [], ['我们应该统一用 Rust 重写']),
    ('mixed_fact_and_jwt', 'We sign requests with HMAC. Test token: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig',
     ['We sign requests with HMAC'], ['Test token: eyJhbGciOiJIUzI1NiJ9']),
    ('cue_in_a_neighbouring_question', '为什么我们这样做？数据库是 MySQL 8.0。',
     ['数据库是 MySQL 8.0'], ['为什么我们这样做']),
    ('en_dont_rule', "Don't use emojis in commit messages.",
     ["Don't use emojis in commit messages"], []),
    ('en_urls_with_dots', 'Our staging URL is https://staging.acme.io, production is https://acme.io.',
     ['Our staging URL is https://staging.acme.io, production is https://acme.io'], []),
    ('zh_xian_xie_is_durable', '以后遇到数据库迁移，先写回滚脚本。',
     ['以后遇到数据库迁移，先写回滚脚本'], []),
    ('neg_en_whats_no_mark', "What's our default branch",
     [], ['our default branch']),
    ('en_semicolon_contractions', "We're a Python shop; we don't write Java.",
     ["We're a Python shop", "we don't write Java"], []),
    ('blockquoted_then_own_words', '> 我们统一用 pnpm\n同意，我们统一用 pnpm。',
     ['我们统一用 pnpm'], []),
    ('en_parenthesised_url', 'Our monorepo is managed by Nx (https://nx.dev).',
     ['Our monorepo is managed by Nx (https://nx.dev)'], []),
    ('zh_ascii_quotes_inside_fact', '我们的 API 统一返回 {"code": 0, "data": ...} 格式。',
     ['我们的 API 统一返回 {"code": 0, "data": ...} 格式'], []),
]


class Scripted:
    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.calls = 0

    async def __call__(self, system: str, user: str) -> str:
        self.calls += 1
        return self.reply


async def _run(settings: Settings, tmp_path: Path, text: str, reply: str
               ) -> tuple[list[str], int]:
    store = MemoryStore(tmp_path / "m.json")
    book = MemoryBook(settings, tmp_path, store=store)
    model = Scripted(reply)
    saved, _ = await extract_and_save(book, text, model)
    return [e.content for e in saved], model.calls


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


# --- the SPEC's numbers and word lists, one row each -----------------------------------------

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
