"""Fakes for the context-engine tests: a scripted summariser and a valid summary."""

from __future__ import annotations

from dataclasses import dataclass, field

VALID_SUMMARY = (
    "## 1. Current goal and success criteria\nFix the login bug in src/auth.py.\n"
    "## 2. User requirements and confirmed decisions\nKeep Java 17.\n"
    "## 3. Work done and evidence\nRan `pytest -q`: 2 failures in test_auth.py.\n"
    "## 4. Open problems and next steps\nPatch Auth.check().\n"
)


@dataclass
class FakeSummariser:
    """Answers with scripted replies in order (the last one repeats); records every call."""

    replies: list[str] = field(default_factory=lambda: [VALID_SUMMARY])
    calls: list[tuple[str, str]] = field(default_factory=list)
    error: Exception | None = None

    async def __call__(self, system_prompt: str, user_text: str) -> str:
        self.calls.append((system_prompt, user_text))
        if self.error is not None:
            raise self.error
        index = min(len(self.calls) - 1, len(self.replies) - 1)
        return self.replies[index]
