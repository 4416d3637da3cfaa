"""The real memory service inside the real agent loop, with a scripted model: memories reach
the newest user turn (never the system prompt), extraction saves after a finished turn,
save_memory refuses conflicts, and external content switches both off."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from paicli_tui.config import Settings
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.contracts.asks import approve_all
from paicli_tui.core.contracts.llm import LLMError, StreamDone
from paicli_tui.core.memory.service import LocalMemoryService
from paicli_tui.core.messages import Message, ToolCall


class NoVectors:
    name = "test/none"
    dim = 4

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.zeros((len(texts), self.dim), dtype=np.float32)


class Model:
    """Agent requests take the next scripted reply; requests without tools are background
    jobs: extraction gets ``facts``, anything else a plain answer."""

    provider = "scripted"
    model = "script-1"
    window = 128_000

    def __init__(self, replies: list[str | tuple[str, dict[str, Any]]],
                 facts: list[str] = ()) -> None:
        self.replies = replies
        self.facts = list(facts)
        self.agent_requests: list[list[Message]] = []
        self.extraction_inputs: list[str] = []
        self.counter = 0

    async def stream(self, messages: Sequence[Message], tools: Sequence[dict] = (), *,
                     model: str | None = None) -> AsyncIterator[Any]:
        if not tools:
            if '{"facts"' in messages[0].content:
                self.extraction_inputs.append(messages[-1].content)
                reply = json.dumps({"facts": [{"quote": q} for q in self.facts]},
                                   ensure_ascii=False)
            else:
                reply = "## summary"
            yield StreamDone(Message.assistant(reply), "stop")
            return
        self.agent_requests.append(list(messages))
        step = self.replies.pop(0)
        if isinstance(step, tuple):
            self.counter += 1
            call = ToolCall(f"call_{self.counter}", step[0], json.dumps(step[1],
                                                                       ensure_ascii=False))
            yield StreamDone(Message.assistant("", [call]), "tool_calls", None, (call,))
        else:
            yield StreamDone(Message.assistant(step), "stop")

    async def aclose(self) -> None:
        pass


async def _turn(session: AgentSession, text: str) -> list[Any]:
    events = [event async for event in session.run_turn(text)]
    await session.wait_background()
    return events


def _tool_results(session: AgentSession) -> list[str]:
    return [m.content for m in session.history if m.role.value == "tool"]


async def test_extracted_fact_comes_back_in_the_next_user_turn(settings: Settings,
                                                               project_dir: Path) -> None:
    memory = LocalMemoryService(settings, project_dir, embedder=NoVectors())
    model = Model(["好的", "用 pytest"], facts=["我们团队统一用 pytest 写测试"])
    session = await AgentSession.start(settings, project_dir, client=model, memory=memory)
    await _turn(session, "我们团队统一用 pytest 写测试，不用 unittest。")
    (entry,) = memory.list_visible()
    assert entry.content == "我们团队统一用 pytest 写测试" and entry.source == "auto_extracted"
    assert model.extraction_inputs == ["我们团队统一用 pytest 写测试，不用 unittest。"]
    await _turn(session, "新模块的测试怎么写？")
    last_request = model.agent_requests[-1]
    assert "我们团队统一用 pytest 写测试" in last_request[-1].content
    assert "<long_term_memory>" in last_request[-1].content
    assert "<long_term_memory>" not in last_request[0].content  # never in the system prompt
    assert model.agent_requests[0][0].content == last_request[0].content
    await session.aclose()


async def test_save_memory_conflict_is_refused_in_the_loop(settings: Settings,
                                                           project_dir: Path) -> None:
    memory = LocalMemoryService(settings, project_dir, embedder=NoVectors())
    old = memory.save("项目使用 Java 17").entry
    model = Model([("save_memory", {"content": "项目使用 Java 21"}), "I will ask you first."])
    session = await AgentSession.start(settings, project_dir, client=model, memory=memory)
    await _turn(session, "Java 版本升级了。")
    (result,) = _tool_results(session)
    assert old.id in result and "项目使用 Java 17" in result and "replace_id" in result
    assert [e.content for e in memory.list_visible()] == ["项目使用 Java 17"]
    await session.aclose()


async def test_after_a_network_command_the_model_cannot_save_or_extract(
        settings: Settings, project_dir: Path) -> None:
    memory = LocalMemoryService(settings, project_dir, embedder=NoVectors())
    model = Model([("execute_command", {"command": "curl --version >/dev/null; true"}),
                   ("save_memory", {"content": "The project deploys to example.com nightly"}),
                   "done"], facts=["我们统一用 uv 管理依赖"])
    session = await AgentSession.start(settings, project_dir, client=model, memory=memory,
                                       approve=approve_all)
    await _turn(session, "我们统一用 uv 管理依赖。看看 curl 的版本。")
    results = _tool_results(session)
    assert "Refused" in results[-1]
    assert memory.list_visible() == [] and model.extraction_inputs == []
    await session.aclose()


class FailingModel(Model):
    async def stream(self, messages: Sequence[Message], tools: Sequence[dict] = (), *,
                     model: str | None = None) -> AsyncIterator[Any]:
        if tools:
            raise LLMError("provider down")
        async for part in super().stream(messages, tools, model=model):
            yield part


async def _extracted_after(session: AgentSession, model: Model, text: str, *,
                           cancel: bool = False) -> list[str]:
    if cancel:
        turn = session.run_turn(text)
        async for event in turn:
            if type(event).__name__ == "ToolCallStarted":
                break
        await turn.aclose()
    else:
        await _turn(session, text)
    await session.wait_background()
    return model.extraction_inputs


async def test_extraction_runs_only_after_a_normally_finished_turn(settings: Settings,
                                                                   project_dir: Path) -> None:
    """behaviour §15: not after a cancelled turn, one stopped by max_iterations, or a failed one."""
    text = "我们团队统一用 pytest 写测试。"
    facts = ["我们团队统一用 pytest 写测试"]
    cases = [
        ("max_iterations", settings.with_overrides(max_iterations=1),
         Model([("read_file", {"path": "a.txt"}), "unused"], facts), False),
        ("error", settings, FailingModel([], facts), False),
        ("cancelled", settings, Model([("read_file", {"path": "a.txt"}), "done"], facts), True),
    ]
    for name, configured, model, cancel in cases:
        memory = LocalMemoryService(configured, project_dir, embedder=NoVectors())
        session = await AgentSession.start(configured, project_dir, client=model, memory=memory)
        assert await _extracted_after(session, model, text, cancel=cancel) == [], name
        assert memory.list_visible() == [], name
        await session.aclose()
    # and the same input in a normal turn is extracted
    model = Model(["好的"], facts)
    memory = LocalMemoryService(settings, project_dir, embedder=NoVectors())
    session = await AgentSession.start(settings, project_dir, client=model, memory=memory)
    assert await _extracted_after(session, model, text) == [text]
    await session.aclose()


async def test_a_resumed_session_keeps_its_external_content_mark(settings: Settings,
                                                                 project_dir: Path) -> None:
    memory = LocalMemoryService(settings, project_dir, embedder=NoVectors())
    model = Model([("execute_command", {"command": "curl --version >/dev/null; true"}), "done"])
    session = await AgentSession.start(settings, project_dir, client=model, memory=memory,
                                       approve=approve_all)
    await _turn(session, "看看 curl 的版本。")
    assert session.state.external_content_used
    session_id = session.session_id
    await session.aclose()
    again = await AgentSession.start(settings, project_dir, client=Model(["ok"]), memory=memory,
                                     resume=session_id)
    try:
        assert again.state.external_content_used
    finally:
        await again.aclose()
