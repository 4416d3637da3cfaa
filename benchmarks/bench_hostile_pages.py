"""web_fetch's HTML conversion on hostile pages of growing size: CPU seconds of
``html_to_markdown`` at N, 2N and 4N characters for each shape, and the ratio of the last to
the first. Linear work gives about 4; Python's HTML parser reading each '<' of a tag left
open at the page's end as a tag of its own (fixed by dropping that tag) gave about 16.
Exits with 1 when a shape's ratio is over 8.

    python benchmarks/bench_hostile_pages.py [25000]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from growth_ratio import report_growth  # noqa: E402

from paicli_tui.core.web.page import html_to_markdown  # noqa: E402

SHAPES = {
    "open start tags": lambda n: "<a " * (n // 3),
    "open tag names": lambda n: "<a" * (n // 2),
    "open end tags": lambda n: "</a" * (n // 3),
    "open value": lambda n: '<p title="' + "<a " * (n // 3),
    "open title": lambda n: "<title>" + "<p>a</p>" * (n // 8),
    "nested svg": lambda n: "<svg><math>" * (n // 11),
    "paragraphs": lambda n: "<p>a</p>" * (n // 8),
}


def convert(html: str) -> object:
    return html_to_markdown(html, deadline=time.monotonic() + 3_600)


def main() -> int:
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 25_000
    return report_growth(SHAPES, convert, size)


if __name__ == "__main__":
    raise SystemExit(main())
