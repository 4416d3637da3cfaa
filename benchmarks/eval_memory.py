"""Score automatic fact extraction on the development set, in oracle and adversarial mode.

    python benchmarks/eval_memory.py [PATH_TO_CASES.json ...]

Without arguments: the shared development set, then tests/memory/auto_fact_review_cases.json
(bilingual cases written outside the development set).

Oracle mode: the model answers with exactly the gold spans; the pipeline must reach F1 1.0.
Adversarial mode: the model answers with each deliberately wrong reply; nothing may be
written. Every case starts from an empty store in a temporary PAICLI_HOME. The figures are
printed; nothing is asserted here (tests/memory/test_mem_extraction.py does that).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

from paicli_tui.config import load_settings
from paicli_tui.core.memory.auto import extract_and_save
from paicli_tui.core.memory.book import MemoryBook
from paicli_tui.core.memory.store import MemoryStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
from memory_evaluation import EvalReport, run_adversarial, run_oracle  # noqa: E402

DEFAULT_CASES = Path(__file__).resolve().parents[2] / "shared/eval/memory/auto-fact-dev.json"
"""The shared dev set beside the checkout (``<repo>/../shared``), when there is one."""
FALLBACK_CASES = Path(__file__).resolve().parent.parent / "tests/memory/auto_fact_dev_cases.json"
REVIEW_CASES = FALLBACK_CASES.with_name("auto_fact_review_cases.json")


def _runner(home: Path):
    settings = load_settings({}, {"PAICLI_HOME": str(home)})
    counter = iter(range(1_000_000))

    async def run(user_input: str, reply: str) -> tuple[list[str], int]:
        calls = 0

        async def model(system: str, user: str) -> str:
            nonlocal calls
            calls += 1
            return reply

        store = MemoryStore(home / f"case-{next(counter)}.json")
        book = MemoryBook(settings, home, store=store)
        saved, _ = await extract_and_save(book, user_input, model)
        return [e.content for e in saved], calls

    return run


def _print(title: str, report: EvalReport) -> None:
    print(f"== {title}: {len(report.cases)} runs")
    print(f"precision {report.precision:.3f}  recall {report.recall:.3f}  F1 {report.f1:.3f}")
    print(f"exact {report.exact_cases}/{len(report.cases)}  writes {report.writes}  "
          f"writes on negative cases {report.writes_on_negatives}  "
          f"model calls {sum(c.model_calls for c in report.cases)}")
    for case in report.cases:
        if not case.exact:
            print(f"  MISS {case.case_id}: saved {case.saved!r} gold {case.gold!r}")
    skipped = [c.case_id for c in report.cases if c.model_calls == 0]
    if skipped:
        print(f"  no model call (local filters): {', '.join(skipped)}")


async def evaluate(path: Path) -> bool:
    """Print the oracle and adversarial figures for one case file; True when both pass."""
    cases = json.loads(path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="paicli-eval-") as tmp:
        run = _runner(Path(tmp))
        oracle = await run_oracle(cases, run)
        adversarial = await run_adversarial(cases, run)
    print(f"### {path.name}: {len(cases)} cases")
    _print("oracle", oracle)
    _print("adversarial", adversarial)
    return oracle.f1 == 1.0 and oracle.exact_cases == len(oracle.cases) and adversarial.writes == 0


async def main(paths: list[Path]) -> int:
    results = [await evaluate(path) for path in paths]
    print("RESULT", "pass" if all(results) else "FAIL")
    return 0 if all(results) else 1


if __name__ == "__main__":
    # Default: the shared development set, then the reviewer's extra cases (not in the dev set).
    default = [DEFAULT_CASES if DEFAULT_CASES.exists() else FALLBACK_CASES, REVIEW_CASES]
    sys.exit(asyncio.run(main([Path(a) for a in sys.argv[1:]] or default)))
