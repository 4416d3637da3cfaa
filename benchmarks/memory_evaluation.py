"""Scoring automatic extraction on a golden set, the way the reference scores its own
(shared/eval/memory/README.md): precision, recall, F1, exact cases, writes on negatives."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class CaseScore:
    case_id: str
    saved: list[str]
    gold: list[str]
    true_positives: int
    false_positives: int
    false_negatives: int
    model_calls: int

    @property
    def exact(self) -> bool:
        return self.false_positives == 0 and self.false_negatives == 0


@dataclass
class EvalReport:
    cases: list[CaseScore] = field(default_factory=list)

    @property
    def precision(self) -> float:
        tp = sum(c.true_positives for c in self.cases)
        fp = sum(c.false_positives for c in self.cases)
        return tp / (tp + fp) if tp + fp else 1.0

    @property
    def recall(self) -> float:
        tp = sum(c.true_positives for c in self.cases)
        fn = sum(c.false_negatives for c in self.cases)
        return tp / (tp + fn) if tp + fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def exact_cases(self) -> int:
        return sum(1 for c in self.cases if c.exact)

    @property
    def writes_on_negatives(self) -> int:
        return sum(len(c.saved) for c in self.cases if not c.gold)

    @property
    def writes(self) -> int:
        return sum(len(c.saved) for c in self.cases)


def score_case(case_id: str, saved: Sequence[str], gold: Sequence[str], model_calls: int
               ) -> CaseScore:
    """A saved memory is a true positive if it contains a gold span not matched yet; each saved
    memory matches at most one span."""
    unmatched = list(gold)
    tp = 0
    for memory in saved:
        for span in unmatched:
            if span in memory:
                unmatched.remove(span)
                tp += 1
                break
    return CaseScore(case_id, list(saved), list(gold), tp, len(saved) - tp, len(unmatched),
                     model_calls)


def oracle_reply(gold: Iterable[str]) -> str:
    """The ideal extraction model's answer for a case."""
    return json.dumps({"facts": [{"quote": span} for span in gold]}, ensure_ascii=False)


# A runner saves one input into a fresh store with the given model reply and returns the
# contents written plus the number of model calls it made.
Runner = Callable[[str, str], Awaitable[tuple[list[str], int]]]


async def run_oracle(cases: Sequence[Mapping[str, Any]], run: Runner) -> EvalReport:
    report = EvalReport()
    for case in cases:
        saved, calls = await run(case["input"], oracle_reply(case["gold"]))
        report.cases.append(score_case(case["id"], saved, case["gold"], calls))
    return report


async def run_adversarial(cases: Sequence[Mapping[str, Any]], run: Runner) -> EvalReport:
    """One scored case per adversarial reply; gold is empty because each reply is wrong, so
    every write counts against the pipeline."""
    report = EvalReport()
    for case in cases:
        for n, reply in enumerate(case.get("adversarial") or ()):
            saved, calls = await run(case["input"], reply)
            report.cases.append(score_case(f"{case['id']}#{n}", saved, [], calls))
    return report
