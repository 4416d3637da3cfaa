"""The keyword cache written by several processes at once (two sessions opening on one
PAICLI_HOME): every line a later process reads is whole and holds the terms of the text its
key names; nothing is lost for any text."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from paicli_tui.core.memory.keywords import STRONG, WEAK, KeywordIndex, content_key
from paicli_tui.core.memory.terms import text_terms
from paicli_tui.paths import HomePaths

WRITERS = 4


def _texts(writer: int) -> list[str]:
    """Half shared by every writer, half its own; long texts, so one batch is a write of
    many kilobytes (larger than a buffer)."""
    shared = [f"订单服务 {i} 调用支付网关失败时最多重试三次 deploy the billing job #{i} "
              * 8 for i in range(60)]
    own = [f"writer {writer} memory {i}: 缓存失效后回源数据库 cache invalidation {i} " * 8
           for i in range(60)]
    return shared + own


def _index(home: str, writer: int, start: multiprocessing.synchronize.Event) -> None:
    start.wait()
    index = KeywordIndex(HomePaths(Path(home)))
    texts = _texts(writer)
    for at in range(0, len(texts), 20):  # several appends per process, interleaving
        index.bags(texts[at:at + 20])


def _expected(text: str) -> dict[str, float]:
    return {t: (STRONG if w >= STRONG else WEAK) for t, w in text_terms(text).bag.items()}


def test_concurrent_writers_leave_only_whole_correct_lines(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    workers = [ctx.Process(target=_index, args=(str(tmp_path), n, start))
               for n in range(WRITERS)]
    for worker in workers:
        worker.start()
    start.set()
    for worker in workers:
        worker.join(120)
    assert [w.exitcode for w in workers] == [0] * WRITERS

    reader = KeywordIndex(HomePaths(tmp_path))
    path = reader.path
    assert path is not None
    lines = path.read_text(encoding="utf-8").splitlines()
    assert all(len(line.split("\t")) == 3 and len(line.split("\t")[0]) == 40
               for line in lines)
    every = {text for n in range(WRITERS) for text in _texts(n)}
    assert len(lines) >= len(every)  # a shared text may be written by each writer
    reader._load()
    by_key = {content_key(text): text for text in every}
    assert set(reader._terms) == set(by_key)
    wrong = [key for key, bag in reader._terms.items()
             if bag != {t: w for t, w in _expected(by_key[key]).items()
                        if not any(ch.isspace() for ch in t)}]
    assert wrong == []
