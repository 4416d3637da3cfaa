"""Context-engine test data: valid and broken summaries, and a chat model that answers every
summary request with one of them (the scripted summariser is doubles.completers)."""

from __future__ import annotations

from dataclasses import dataclass, field

VALID_SUMMARY = (
    "## 1. Current goal and success criteria\nFix the login bug in src/auth.py.\n"
    "## 2. User requirements and confirmed decisions\nKeep Java 17.\n"
    "## 3. Work done and evidence\nRan `pytest -q`: 2 failures in test_auth.py.\n"
    "## 4. Open problems and next steps\nPatch Auth.check().\n"
)


FOREIGN_SUMMARY = ("## 1. 当前目标\n修复 src/auth.py 的登录错误。\n## 2. 用户要求\n保持 Java 17。\n"
                   "## 3. 已完成的工作\n运行 `pytest -q`。\n## 4. 未解决的问题\n修补 Auth.check()。\n")
BEHAVIOURS = {
    "valid": VALID_SUMMARY,
    "prose": "We talked about the login bug and ran the tests; next the check gets fixed.",
    "foreign": FOREIGN_SUMMARY,
    "extra": VALID_SUMMARY + "## 5. Notes\nThe CI is slow.\n",
    "reordered": "\n".join(VALID_SUMMARY.splitlines()[4:] + VALID_SUMMARY.splitlines()[:4]),
    "truncated": VALID_SUMMARY[: VALID_SUMMARY.index("## 3.")],
    "huge": VALID_SUMMARY.replace("## 4.", "Ran it again. " * 4_500 + "\n## 4."),
    "empty": "",
    "error": "",
    "timeout": "",
}
"""Summariser behaviours the context engine must survive; the reply text for each."""


@dataclass
class SummaryModel:
    """A chat model at the ChatClient protocol that answers every request without tools
    (the summary calls) with one scripted ``behaviour``: ``error`` fails the request,
    ``timeout`` never answers, ``empty`` answers with no text."""

    behaviour: str = "valid"
    provider: str = "scripted"
    model: str = "summary-1"
    window: int = 32_000
    requests: list[list] = field(default_factory=list)

    async def stream(self, messages, tools=(), *, model=None):  # noqa: ANN001, ANN201
        import asyncio

        from paicli_tui.core.contracts.llm import LLMError, StreamDone
        from paicli_tui.core.messages import Message

        self.requests.append(list(messages))
        if self.behaviour == "error":
            raise LLMError("scripted: HTTP 500 from the provider")
        if self.behaviour == "timeout":
            await asyncio.sleep(3_600)
        yield StreamDone(Message.assistant(BEHAVIOURS[self.behaviour]), "stop")

    async def aclose(self) -> None:
        pass
