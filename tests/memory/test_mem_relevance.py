"""Relevance of retrieved memories (behaviour §14 "beyond"): stop words, rarity weights, identifiers
kept whole, cross-language keywords, calibrated vectors with the real offline embedder, the
relevance bar, near-duplicates, and the caches that keep a turn cheap."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from paicli_tui.config import Settings
from paicli_tui.core.memory import keywords as keywords_module
from paicli_tui.core.memory.keywords import KeywordIndex
from paicli_tui.core.memory.retrieval import describe
from paicli_tui.core.memory.service import LocalMemoryService
from paicli_tui.core.memory.terms import text_terms


def _keywords_only(settings: Settings, project: Path, texts: list[str]) -> LocalMemoryService:
    service = LocalMemoryService(settings, project, use_vectors=False)
    for text in texts:
        assert service.save(text, force=True).written
    return service


STORE = ["All timestamps in the database are stored in UTC",
         "Production MySQL is only reachable through the bastion host",
         "我们用 pnpm 管理前端依赖",
         "We deploy on Fridays after the review",
         "生产库只给开发只读账号"]


@pytest.mark.parametrize("message", [
    "add a retry to the payment client",       # shares "the", "to" with the store
    "What should we do about it now?",          # "we", "do", "about", "now"
    "帮我看一下这个是什么",                       # 帮我 一下 这个 是 什么
    "please make sure it is also in there",
])
def test_stop_words_never_match_alone(settings: Settings, project_dir: Path,
                                      message: str) -> None:
    service = _keywords_only(settings, project_dir, STORE)
    assert service.search(message) == []
    assert service.injection_block(message, 500) == ""


@pytest.mark.parametrize(("message", "first"), [
    ("kafka service", "The order service publishes to Kafka"),
    ("which service owns redis", "The cache service runs on Redis"),
    ("服务 告警 阈值", "服务的告警阈值是 P99 800ms"),
])
def test_rare_shared_words_outrank_common_ones(settings: Settings, project_dir: Path,
                                               message: str, first: str) -> None:
    common = [f"The {name} service is written in Java" for name in
              ("billing", "search", "user", "report", "gateway")]
    common += [f"{name}服务用 Java 写" for name in ("计费", "搜索", "用户")]
    service = _keywords_only(settings, project_dir, [
        *common, "The order service publishes to Kafka", "The cache service runs on Redis",
        "服务的告警阈值是 P99 800ms"])
    ranked = service.search(message)
    assert ranked and ranked[0].entry.content == first
    assert all(r.relevance <= ranked[0].relevance for r in ranked)


@pytest.mark.parametrize(("text", "term"), [
    ("CI images still use Node 18", "18"),
    ("测试库是 mall_test", "mall_test"),
    ("Elasticsearch 7.17 only", "7.17"),
    ("dates are ISO-8601 with Z", "iso-8601"),
    ("@Scheduled is not allowed", "@scheduled"),
    ("key prefix product:detail:", "product:detail"),
])
def test_identifiers_and_versions_are_kept_whole(text: str, term: str) -> None:
    assert term in text_terms(text, None).bag


@pytest.mark.parametrize(("word", "terms"), [
    # four dictionary senses: the third and fourth are often the one a team means
    ("头像", ["头像", "profil", "pictur", "portrait", "bust", "avatar"]),
    ("轨迹", ["轨迹", "locus", "orbit", "trajectori", "track"]),
    ("截止", ["截止", "close", "stop", "cut-off", "point"]),
])
def test_a_chinese_word_keeps_four_senses(word: str, terms: list[str]) -> None:
    assert [t for t in text_terms(word, None).bag if not t.startswith("§")] == terms


def test_an_english_word_meets_a_chinese_one_through_a_later_sense(
        settings: Settings, project_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from paicli_tui.core.memory import terms

    empty = terms.parse_concepts("")  # the gloss alone, no concept (§image) in between
    monkeypatch.setattr(terms, "concepts", lambda: empty)
    service = _keywords_only(settings, project_dir, ["用户头像存在对象存储里", *STORE])
    ranked = service.search("avatar storage")
    assert ranked[0].entry.content == "用户头像存在对象存储里" and "avatar" in ranked[0].matched


def test_a_shared_version_tells_near_topics_apart(settings: Settings, project_dir: Path
                                                  ) -> None:
    service = _keywords_only(settings, project_dir, [
        "The storefront build requires Node 20", "The old admin console only builds on Node 18"])
    assert [r.entry.content for r in service.search("upgrade to Node 20")][0] == \
        "The storefront build requires Node 20"


@pytest.mark.parametrize(("memory", "message"), [
    ("订单服务调用支付网关失败时最多重试三次，间隔指数退避", "Add a retry to the payment client"),
    ("Every schema change goes through Flyway migrations", "给订单表加一个字段"),
    ("分布式锁用 Redisson，锁的 key 以 lock: 开头", "make sure two workers never take the same job lock"),
])
def test_keywords_meet_across_languages(settings: Settings, project_dir: Path, memory: str,
                                        message: str) -> None:
    service = _keywords_only(settings, project_dir, [memory, *STORE])
    ranked = service.search(message)
    assert [r.entry.content for r in ranked][:1] == [memory]
    assert ranked[0].keyword > 0 and ranked[0].matched


def test_near_duplicates_collapse_into_one(settings: Settings, project_dir: Path) -> None:
    service = _keywords_only(settings, project_dir, [
        "We deploy the billing service with helm charts",
        "We deploy the billing services with helm charts", *STORE])
    ranked = service.search("deploy billing with helm", explain=True)
    shown = [r for r in ranked if r.shown]
    assert len(shown) == 1
    twin = next(r for r in ranked if not r.shown and "helm" in r.entry.content)
    assert twin.why_not == f"near-duplicate of {shown[0].entry.id}"


def test_a_version_variant_is_not_a_duplicate(settings: Settings, project_dir: Path) -> None:
    service = _keywords_only(settings, project_dir, ["The project uses Java 17",
                                                     "The project uses Java 21"])
    assert len(service.search("Java")) == 2


def test_other_projects_stay_invisible_even_on_an_exact_match(settings: Settings,
                                                               tmp_path: Path) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir(), there.mkdir()
    _keywords_only(settings, there, ["Retry failed uploads three times with backoff"])
    service = _keywords_only(settings, here, ["The API gateway rate limit is 100 per second"])
    assert service.search("Retry failed uploads three times with backoff") == []
    glob = LocalMemoryService(settings, there, use_vectors=False)
    glob.save("Retry every webhook five times", scope="global")
    assert [r.entry.content for r in service.search("retry webhook")] == [
        "Retry every webhook five times"]


def test_keywords_are_kept_beside_the_vectors(settings: Settings, project_dir: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    service = _keywords_only(settings, project_dir, STORE)
    assert service.search("bastion host")
    path = settings.home.memory_dir / "keywords" / keywords_module.terms_file_name()
    assert len(path.read_text(encoding="utf-8").splitlines()) == len(STORE)

    def no_segmenting(text: str, home: object = None, **_: object) -> object:
        if text in STORE:
            raise AssertionError(f"segmented a stored memory again: {text}")
        return text_terms(text, home)

    monkeypatch.setattr(keywords_module, "text_terms", no_segmenting)
    fresh = LocalMemoryService(settings, project_dir, use_vectors=False)
    assert [r.entry.content for r in fresh.search("bastion host")] == [STORE[1]]


def test_a_torn_keyword_cache_line_is_skipped(settings: Settings, project_dir: Path) -> None:
    service = _keywords_only(settings, project_dir, STORE)
    service.search("bastion")
    path = settings.home.memory_dir / "keywords" / keywords_module.terms_file_name()
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("deadbeef\tbroken")  # a writer killed mid-line
    index = KeywordIndex(settings.home)
    assert index.match("bastion host", STORE)  # read, the torn line ignored


def test_explain_lists_parts_and_the_ones_below_the_bar(settings: Settings,
                                                        project_dir: Path) -> None:
    service = _keywords_only(settings, project_dir, [*STORE, "The billing service is in Go"])
    ranked = service.search("production database access through the bastion", explain=True)
    assert ranked[0].shown and ranked[0].entry.content == STORE[1]
    line = describe(ranked[0])
    assert line.startswith("shown; relevance") and "keywords" in line and "× time" in line
    assert any(not r.shown and r.why_not for r in ranked)
    assert [r.entry.id for r in service.search("production database access through the "
                                               "bastion")] == [r.entry.id for r in ranked
                                                               if r.shown]


def test_the_cli_explains_a_search(settings: Settings, project_dir: Path) -> None:
    _keywords_only(settings, project_dir, STORE)
    env = {"PAICLI_HOME": str(settings.home.home), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-m", "paicli_tui", "memory", "search", "--json",
                           "--explain", "--keywords-only", "bastion", "host"],
                          cwd=project_dir, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    first = json.loads(done.stdout)[0]
    assert first["content"] == STORE[1]
    parts = first["explain"]
    assert parts["shown"] is True and parts["keyword"] > 0 and parts["vector"] == 0
    assert "bastion" in parts["matched"] and 0 < parts["time_weight"] <= 1


def test_the_inspector_shows_the_last_turns_memories(settings: Settings,
                                                     project_dir: Path) -> None:
    from paicli_tui.ui.screens.context_inspector import _memory_lines

    service = _keywords_only(settings, project_dir, STORE)

    class Session:
        memory = service

    assert _memory_lines(Session()) == ""  # no turn yet: the section stays hidden
    service.injection_block("how do I reach the production MySQL via bastion", 500)
    lines = _memory_lines(Session())
    assert lines.startswith("✓ Production MySQL") and "keywords" in lines


# -- the real offline embedder ------------------------------------------------------------------

REAL_STORE = [
    "订单服务调用支付网关失败时最多重试三次，间隔指数退避",
    "前端使用 pnpm 管理依赖，不要用 npm",
    "All timestamps in the database are stored in UTC",
    "I use macOS with zsh; Homebrew is installed",
    "代码评审至少需要两个人 approve 才能合并",
    "The staging environment is redeployed automatically every night at 2am",
    "Lombok is allowed but @Data on JPA entities is forbidden",
    "日志里用户的手机号要打码，只保留后四位",
]


@pytest.fixture(scope="module")
def real_service(tmp_path_factory: pytest.TempPathFactory) -> LocalMemoryService:
    from paicli_tui.config import load_settings

    root = tmp_path_factory.mktemp("real")
    (root / "project").mkdir()
    settings = load_settings(env={"PAICLI_HOME": str(root / "home")})
    service = LocalMemoryService(settings, root / "project", background_vectors=False)
    for text in REAL_STORE:
        # the person saves these themselves (a rule about phone numbers names one)
        service.save(text, force=True, allow_sensitive=True)
    return service


@pytest.mark.slow
@pytest.mark.parametrize(("message", "memory"), [
    ("which package manager do I install the web frontend's dependencies with",
     "前端使用 pnpm 管理依赖，不要用 npm"),
    ("写日志的时候要注意什么", "日志里用户的手机号要打码，只保留后四位"),
])
def test_a_cross_language_pair_passes_the_bar(real_service: LocalMemoryService, message: str,
                                              memory: str) -> None:
    ranked = real_service.search(message, explain=True)
    item = next(r for r in ranked if r.entry.content == memory)
    assert item.shown, describe(item)
    assert item.relevance >= 0.8


@pytest.mark.slow
@pytest.mark.parametrize("message", [
    "Explain the difference between a process and a thread",
    "帮我把这首诗翻译成英文：床前明月光",
    "How do I center an element horizontally with flexbox?",
])
def test_a_message_with_nothing_relevant_shows_nothing(real_service: LocalMemoryService,
                                                       message: str) -> None:
    ranked = real_service.search(message, explain=True)
    assert [r for r in ranked if r.shown] == []
    assert real_service.injection_block(message, 500) == ""


@pytest.mark.slow
def test_an_unrelated_pair_stays_below_the_bar(real_service: LocalMemoryService) -> None:
    ranked = real_service.search("Add a retry to the payment client", explain=True)
    by_text = {r.entry.content: r for r in ranked}
    assert by_text[REAL_STORE[0]].shown
    unrelated = by_text.get("I use macOS with zsh; Homebrew is installed")
    assert unrelated is None or (not unrelated.shown and unrelated.relevance < 0.8)


def test_a_turn_sees_a_memory_saved_elsewhere_since_the_last_turn(settings: Settings,
                                                                  project_dir: Path,
                                                                  tmp_path: Path) -> None:
    """The visible list is reused between turns only while the store holds the same entries."""
    session = _keywords_only(settings, project_dir, ["Kafka topics are created by Terraform"])
    assert "Terraform" in session.injection_block("kafka terraform", 500)
    assert session.injection_block("flyway migrations", 500) == ""
    other = LocalMemoryService(settings, project_dir, use_vectors=False)  # another window
    assert other.save("Flyway migrations live in db/migration").written
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert LocalMemoryService(settings, elsewhere, use_vectors=False).save(
        "Flyway migrations of the other project are in sql/").written
    block = session.injection_block("flyway migrations", 500)
    assert "db/migration" in block and "sql/" not in block


@pytest.mark.parametrize(("table", "digest"), [
    ("lock\tlock\t锁\n", "cd5e27f8"),
    ("lock\tlock mutex\t锁\n", "edcbe29e"),
    ("", "da39a3ee"),
])
def test_cached_keywords_and_english_rows_follow_the_concept_table(
        table: str, digest: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both caches hold what the concepts added to a text: a new table is a new file."""
    from paicli_tui.core.memory import terms
    from paicli_tui.core.memory.service import english_variant

    monkeypatch.setattr(terms, "_concept_text", lambda: table)
    terms.concepts_digest.cache_clear()
    try:
        assert keywords_module.terms_file_name() == f"terms-4-{digest}.tsv"
        assert english_variant() == f"english-3-{digest}"
    finally:
        terms.concepts_digest.cache_clear()
