"""A scripted ``TextCompleter`` (``await model(system, user) -> str``)."""

from __future__ import annotations

import asyncio


class ScriptedCompleter:
    """Answers from a script and records every call as ``(system, user)``.

    ``answers`` are given in order and the last one repeats; an exception among them is raised
    instead. ``delay`` seconds pass before each answer (to test a caller's time limit).
    """

    def __init__(self, *answers: str | Exception, delay: float = 0.0) -> None:
        if not answers:
            raise ValueError("a scripted completer needs at least one answer")
        self.answers = list(answers)
        self.delay = delay
        self.calls: list[tuple[str, str]] = []

    async def __call__(self, system: str, user: str) -> str:
        self.calls.append((system, user))
        if self.delay:
            await asyncio.sleep(self.delay)
        answer = self.answers[min(len(self.calls), len(self.answers)) - 1]
        if isinstance(answer, Exception):
            raise answer
        return answer
