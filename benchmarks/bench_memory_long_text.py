"""Keywords of one long memory text, by its shape, side by side in one run.

    python benchmarks/bench_memory_long_text.py [--chars 2000,100000]

A saved memory holds at most 2,000 characters, but a hand-edited store can hold any text, and
its keywords are computed once per text (then cached). The shapes: Chinese sentences with
punctuation (short runs), one Chinese concept word repeated with no punctuation (one long
run, every word naming the concept: the shape that was quadratic, 98.8 s for 100,000
characters before each word's concepts were found in one pass), English words, punctuation
only, emoji. Reported: seconds (best of --rounds) and the ratio to the sentences' time.
"""

from __future__ import annotations

import argparse
import time

SHAPES = {
    "zh sentences": "线上订单支付失败时要重试三次，日志里记录请求编号，缓存失效后回源数据库。",
    "zh one concept word": "部署",
    "en words": "deploy the billing service before noon ",
    "punctuation": "！？。，;:!?",
    "emoji": "😀🚀",
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chars", default="2000,100000")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    from paicli_tui.core.memory.terms import text_terms

    text_terms("预热 warm up")  # jieba and the concept table loaded before timing
    print(f"{'shape':22} {'chars':>8} {'seconds':>9} {'× sentences':>12}")
    for chars in (int(c) for c in args.chars.split(",")):
        base = None
        for name, unit in SHAPES.items():
            text = (unit * (chars // len(unit) + 1))[:chars]
            best = float("inf")
            for _ in range(args.rounds):
                start = time.perf_counter()
                text_terms(text)
                best = min(best, time.perf_counter() - start)
            base = base or best
            print(f"{name:22} {chars:>8} {best:>9.3f} {best / base:>12.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
