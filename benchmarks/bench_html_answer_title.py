"""The title of an HTML page a provider answered with (a wrong base URL, a gateway's error
page): CPU seconds of ``page_title`` at N, 2N and 4N characters for hostile shapes, and the
ratio of the last to the first. Linear work gives about 4; a pattern reading to the page's end
from every '<title' gave about 16. Exits with 1 when a shape's ratio is over 8.

    python benchmarks/bench_html_answer_title.py [16000]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from growth_ratio import report_growth  # noqa: E402

from paicli_tui.core.llm.html_answer import page_title  # noqa: E402

SHAPES = {
    "open titles": lambda n: "<title " * (n // 7),
    "open headings": lambda n: "<h1 " * (n // 4),
    "a real page": lambda n: "<html><title>502 Bad Gateway</title>" + "<p>a</p>" * (n // 8),
}
REPEAT = 20
"""Each size runs this many times: one run of a linear shape is too quick to time."""


def main() -> int:
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 16_000
    return report_growth(SHAPES, page_title, size, REPEAT)


if __name__ == "__main__":
    raise SystemExit(main())
