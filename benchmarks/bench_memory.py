"""Long-term memory at scale: retrieval per turn and one explicit save, at 1k, 5k and 10k
stored memories, measured side by side in one run.

    python benchmarks/bench_memory.py [--fake-embedder] [--sizes 1000,5000,10000]

A save is the whole path: thread lock, file lock, re-read, duplicate and conflict scan, write
.tmp, fsync, atomic replace. "cold" means a fresh process (the file is parsed and every
canonical form computed); "warm" means the same process saving again (the parse is reused
while the file is unchanged). Retrieval "1st turn" pays jieba for every entry and ranks by
keywords while a background thread loads the embedder and embeds the store; "embed rest" is
the wait for that thread, a one-time cost kept in PAICLI_HOME/memory/vectors; "turn" is a
later turn, which only embeds the query. Save and turn figures are the best of several runs: the machine is shared,
and the minimum is the figure least disturbed by other work.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from paicli_tui.config import Settings, load_settings
from paicli_tui.core.memory import canonical as canonical_module
from paicli_tui.core.memory.entry import MemoryEntry, format_time, new_entry_id, utc_now
from paicli_tui.core.memory.service import LocalMemoryService
from paicli_tui.core.memory.store import MemoryStore, serialise

SUBJECTS = ["我们团队", "这个项目", "The backend", "Our CI", "前端仓库", "The data team",
            "支付服务", "The mobile app", "网关模块", "Our docs site"]
VERBS = ["统一使用", "always uses", "禁止使用", "prefers", "默认采用", "never uses", "基于",
         "builds with", "依赖", "deploys with"]
TOOLS = ["pytest", "Gradle", "Maven", "ruff", "black", "PostgreSQL", "Redis", "Kafka", "helm",
         "pnpm", "uv", "Bazel", "Vite", "Jest", "Lombok", "MyBatis", "Spring Boot", "FastAPI",
         "Celery", "Terraform"]
PURPOSES = ["写测试", "for formatting", "做缓存", "for queues", "管理依赖", "for releases",
            "做迁移", "for linting", "记录日志", "for metrics", "生成文档", "for tracing"]
QUERIES = ["怎么运行测试", "which database do we use", "部署流程是什么", "how do we format code",
           "依赖用什么管理", "what do we use for queues"]


def _facts(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    seen: set[str] = set()
    out = []
    while len(out) < count:
        words = [rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(TOOLS),
                 rng.choice(PURPOSES), f"in {rng.choice('abcdefghij')}{rng.randrange(10**6):x}"]
        text = " ".join(words)
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


def _seed_store(path: Path, project: str, count: int) -> None:
    now = format_time(utc_now())
    entries = [MemoryEntry(id=new_entry_id(), content=text, created_at=now,
                           last_verified_at=now, project=project, token_count=10)
               for text in _facts(count)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(serialise(entries), encoding="utf-8")


class FakeEmbedder:
    name = "bench/hash"
    dim = 512

    def embed(self, texts: list[str]) -> np.ndarray:
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                rows[i, hash(word) % self.dim] += 1
        rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)
        return rows


def _clear_caches() -> None:
    canonical_module.canonical.cache_clear()
    canonical_module.version_skeleton.cache_clear()
    canonical_module._bigrams.cache_clear()


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


@contextmanager
def seeded_home(count: int) -> Iterator[tuple[Settings, Path, Path]]:
    """(settings, project, memory file) in a temporary PAICLI_HOME whose store holds
    ``count`` generated memories of the project."""
    with tempfile.TemporaryDirectory(prefix="paicli-bench-") as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        settings = load_settings({}, {"PAICLI_HOME": str(root / "home")})
        path = settings.home.memory_file
        _seed_store(path, str(project.resolve()), count)
        yield settings, project, path


def bench_size(count: int, embedder: object, saves: int = 5) -> dict[str, float]:
    with seeded_home(count) as (settings, project, path):
        cold = []
        for i in range(saves):
            _clear_caches()
            service = LocalMemoryService(settings, project, store=MemoryStore(path),
                                         embedder=embedder)
            started = time.perf_counter()
            result = service.save(f"Benchmark cold rule {i} zq{i:x} 仅用于测试 qv")
            cold.append(time.perf_counter() - started)
            assert result.status in ("saved", "conflict", "duplicate"), result
        service = LocalMemoryService(settings, project, embedder=embedder)
        service.list_visible()
        warm = []
        for i in range(saves):
            started = time.perf_counter()
            service.save(f"Benchmark warm rule {i} wz{i:x} 只是测量 vq")
            warm.append(time.perf_counter() - started)

        started = time.perf_counter()
        service.injection_block(QUERIES[0], 640)
        first_turn = time.perf_counter() - started
        # The first turn went on by keywords and started embedding the store in the background.
        started = time.perf_counter()
        service.wait_for_vectors()
        fill = time.perf_counter() - started
        turns = []
        for query in QUERIES * 2:
            started = time.perf_counter()
            block = service.injection_block(query, 640)
            turns.append(time.perf_counter() - started)
        size_mb = path.stat().st_size / 1e6
    return {"count": count, "size_mb": size_mb, "save_cold": min(cold),
            "save_warm": min(warm), "first_turn": first_turn, "fill": fill,
            "turn": min(turns), "block_chars": len(block)}


# -- retrieval quality: which memories reach the model -------------------------------------
# A small bilingual store and questions a developer might type, each with the memory that
# should be found (None: nothing should be injected). Written for this benchmark.
QUALITY_MEMORIES = {
    "pytest": "我们团队统一用 pytest 写测试，不用 unittest",
    "pg": "Our project uses PostgreSQL 15 as the only database",
    "lang": "我一直希望你用中文回复",
    "commit": "以后提交信息一律用英文",
    "lombok": "Never use Lombok in this codebase",
    "branch": "我们默认的主分支叫 main，发版走 release/* 分支",
    "ruff": "We always format with ruff",
    "py": "The repo targets Python 3.11",
    "java": "项目使用 Java 17，构建工具是 Gradle",
    "indent": "Go 文件用 tab 缩进，其他语言用 4 个空格",
    "deploy": "We deploy to Kubernetes with Helm charts kept in deploy/",
    "redis": "缓存统一用 Redis，过期时间默认 10 分钟",
    "api": "REST 接口统一返回 JSON，字段用 camelCase",
    "logs": "Use structlog for logging; never print() in library code",
    "ci": "CI runs on GitHub Actions; the workflow lives in .github/workflows/ci.yml",
    "tz": "所有时间都按 UTC 存储，展示时再转换为北京时间",
    "small": "I like small focused commits",
    "types": "I prefer type hints on every public function",
    "front": "前端项目采用 React 18 + TypeScript，状态管理用 Zustand",
    "mq": "Messages between services go through Kafka topics named <team>.<event>",
}
QUALITY_QUERIES = [
    ("帮我给这个模块写单元测试", "pytest"),
    ("which database should the migration target?", "pg"),
    ("写一个 commit message", "commit"),
    ("add getters and setters to this class", "lombok"),
    ("发版应该从哪个分支拉？", "branch"),
    ("format this file", "ruff"),
    ("can I use the match statement here?", "py"),
    ("升级一下 JDK 版本", "java"),
    ("这个 Go 文件的缩进怎么处理", "indent"),
    ("how do we ship this to production?", "deploy"),
    ("缓存多久过期", "redis"),
    ("接口返回的字段命名规范是什么", "api"),
    ("add some logging to the parser", "logs"),
    ("the CI pipeline is failing, where is it configured?", "ci"),
    ("数据库里的时间用哪个时区", "tz"),
    ("前端状态管理用什么库", "front"),
    ("publish an event when an order is paid", "mq"),
    ("数据库连接池配置", "pg"),
    ("给公共函数补上类型注解", "types"),
    ("how should I split this change into commits?", "small"),
    ("把这段正则解释一下", None),
    ("what does this stack trace mean?", None),
    ("rename variable x to count", None),
    ("这个循环有 bug 吗", None),
]


def bench_quality(embedder: object) -> dict[str, dict[str, float]]:
    """Recall@1/@3 and reciprocal rank of the right memory, and how many memories reach the
    model for questions that need none, ranking by keywords, vectors, or both."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="paicli-quality-") as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        settings = load_settings({}, {"PAICLI_HOME": str(root / "home")})
        ids = {}
        for key, text in QUALITY_MEMORIES.items():
            ids[LocalMemoryService(settings, project, use_vectors=False).save(
                text, force=True).entry.id] = key
        modes = {"keywords": LocalMemoryService(settings, project, use_vectors=False),
                 "keywords+vectors": LocalMemoryService(settings, project, embedder=embedder)}
        for mode, service in modes.items():
            hit1 = hit3 = rr = noise = 0.0
            positives = [q for q in QUALITY_QUERIES if q[1]]
            for query, want in QUALITY_QUERIES:
                ranked = [ids[r.entry.id] for r in service.search(query)]
                if want is None:
                    noise += len(ranked)
                    continue
                if want in ranked:
                    position = ranked.index(want) + 1
                    hit1 += position == 1
                    hit3 += position <= 3
                    rr += 1 / position
            negatives = len(QUALITY_QUERIES) - len(positives)
            out[mode] = {"recall@1": hit1 / len(positives), "recall@3": hit3 / len(positives),
                         "mrr": rr / len(positives), "noise": noise / max(1, negatives)}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fake-embedder", action="store_true",
                        help="hash words instead of the offline USE model (no model load)")
    parser.add_argument("--sizes", default="1000,5000,10000")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quality-only", action="store_true",
                        help="only the retrieval-quality figures (no 10k store)")
    args = parser.parse_args()
    embedder: object
    if args.fake_embedder:
        embedder = FakeEmbedder()
    else:
        from paicli_tui.config import Settings
        from paicli_tui.core.embedders import get_embedder

        embedder = get_embedder(Settings())
    quality = bench_quality(embedder)
    rows = [] if args.quality_only else [bench_size(int(n), embedder)
                                         for n in args.sizes.split(",")]
    if args.json:
        print(json.dumps({"quality": quality, "scale": rows}))
        return 0
    print(f"embedder: {getattr(embedder, 'name', '?')}")
    print(f"retrieval quality ({len(QUALITY_MEMORIES)} memories, {len(QUALITY_QUERIES)} "
          "questions; noise = memories injected for questions that need none):")
    for mode, figures in quality.items():
        print(f"  {mode:<17} " + "  ".join(f"{k} {v:.2f}" for k, v in figures.items()))
    if not rows:
        return 0
    print(f"{'memories':>9} {'file':>8} {'save cold':>11} {'save warm':>11} "
          f"{'1st turn':>11} {'embed rest':>11} {'turn':>11}")
    for r in rows:
        print(f"{r['count']:>9} {r['size_mb']:6.2f}MB {_ms(r['save_cold'])} {_ms(r['save_warm'])}"
              f" {_ms(r['first_turn'])} {_ms(r['fill'])} {_ms(r['turn'])}")
    print("cost per stored memory (a flat line is linear scaling):")
    for r in rows:
        per = 1e6 / r["count"]
        print(f"  {r['count']:>6}: save cold {r['save_cold'] * per:6.1f} µs  save warm "
              f"{r['save_warm'] * per:6.1f} µs  turn {r['turn'] * per:6.2f} µs")
    for before, after in zip(rows, rows[1:], strict=False):
        grow = after["count"] / before["count"]
        print(f"{before['count']}→{after['count']} (×{grow:.0f} entries): save cold "
              f"×{after['save_cold'] / before['save_cold']:.1f}, save warm "
              f"×{after['save_warm'] / before['save_warm']:.1f}, "
              f"turn ×{after['turn'] / before['turn']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
