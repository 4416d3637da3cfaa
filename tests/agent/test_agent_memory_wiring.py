"""How the loop uses a memory service: rules in the system prompt, memories in the user turn,
every tool result noted, extraction after a finished turn (in the background)."""

from __future__ import annotations

import pytest
from agent_script import ScriptedClient, Step, call, drain

from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.contracts.asks import approve_all
from paicli_tui.core.contracts.events import MemoryNotice
from paicli_tui.core.contracts.services import ProjectRules


class FakeMemory:
    def __init__(self) -> None:
        self.noted: list[tuple[str, bool]] = []
        self.after: list[tuple[str, bool]] = []
        self.queries: list[str] = []

    def project_rules(self) -> ProjectRules:
        return ProjectRules("Always use tabs.", files=("PAI.md",))

    def injection_block(self, query: str, budget_tokens: int) -> str:
        self.queries.append(query)
        return f"Memories (clues):\n- memory for {query}"

    async def selected_block(self, query, budget_tokens, complete):
        from paicli_tui.core.contracts.services import MemoryChoice

        return MemoryChoice(self.injection_block(query, budget_tokens))

    def tools(self):
        return []

    def note_tool_result(self, tool_name, arguments, output, session) -> None:
        self.noted.append((tool_name, output.external))

    async def after_turn(self, user_input, session, complete):
        self.after.append((user_input, complete is not None))
        return ["m1"]


async def test_memory_wiring(settings, project_dir) -> None:
    memory = FakeMemory()
    steps = [Step(calls=[call("execute_command", command="curl --help >/dev/null; true")]),
             Step(text="done"), Step(text="again")]
    client = ScriptedClient(steps)
    session = await AgentSession.start(settings, project_dir, client=client, memory=memory,
                                       approve=approve_all)
    first = await drain(session.run_turn("first task"))
    await session.wait_background()
    # the first turn's extraction, and (curl read the network) that extraction stops now
    assert [(n.action, n.ids) for n in session.take_notices()] == [("paused", ()),
                                                                    ("extracted", ("m1",))]
    events = await drain(session.run_turn("second task"))
    await session.wait_background()
    system = session.history[0].content
    assert "Always use tabs." in system and "memory for" not in system
    users = [m for m in session.history if m.is_real_user_turn]
    assert "memory for first task" in users[0].content
    assert "memory for second task" in users[1].content
    assert memory.noted == [("execute_command", True)]
    assert session.state.external_content_used
    assert memory.after == [("first task", True), ("second task", True)]
    # notices come one way only: taken after the turn, never inside a turn's events
    assert not any(isinstance(e, MemoryNotice) for e in first + events)
    assert [m.content for m in client.requests[2][:len(client.requests[1])]] == \
        [m.content for m in client.requests[1]]
    # the second turn's (the fake service extracts whatever the guard says); paused is said once
    assert [n.ids for n in session.take_notices()] == [("m1",)]
    assert session.take_notices() == []  # taken once


async def test_no_extraction_after_failed_turn(settings, project_dir) -> None:
    from paicli_tui.core.contracts.llm import LLMError

    memory = FakeMemory()
    session = await AgentSession.start(settings, project_dir, memory=memory,
                                       client=ScriptedClient([Step(error=LLMError("x"))]))
    await drain(session.run_turn("task"))
    await session.wait_background()
    assert memory.after == []


@pytest.mark.parametrize(("auto_extract", "after", "notices"), [
    (True, [("ship it", True)], [("m1",)]),
    (False, [], []),
])
async def test_fact_extraction_after_a_turn_or_plan_follows_the_setting(
        settings, project_dir, auto_extract: bool, after: list, notices: list) -> None:
    """The one entry for turns and plans alike: extraction runs in the background only when
    ``auto_extract`` is on, and what it saved is a notice taken once."""
    memory = FakeMemory()
    session = await AgentSession.start(settings.with_overrides(auto_extract=auto_extract),
                                       project_dir, client=ScriptedClient([]), memory=memory)
    session.extract_facts_later("ship it")
    await session.wait_background()
    assert memory.after == after
    assert [n.ids for n in session.take_notices()] == notices
    await session.aclose()


@pytest.mark.parametrize(("external", "said"), [(False, 0), (True, 1)])
async def test_automatic_memory_pausing_is_said_once_and_again_after_clear(
        settings, project_dir, external: bool, said: int) -> None:
    """After web content (or MCP, curl …) automatic extraction stops for the session
    (behaviour §16). It stopped without a word: facts the person wrote were simply no longer
    remembered. It is said once per mark, naming what brought the content; /clear drops the
    mark, and a new mark is said again."""
    session = await AgentSession.start(settings, project_dir, client=ScriptedClient([]),
                                       memory=FakeMemory())

    def mark() -> None:
        if external:
            session.state.external_content_used = True
            session.state.external_sources.append("web_fetch: https://example.com/guide")

    def paused() -> list[str]:
        return [n.detail for n in session.take_notices() if n.action == "paused"]

    mark()
    for _ in range(2):
        session.extract_facts_later("We format code with black")
        await session.wait_background()
    notes = paused()
    assert len(notes) == said
    if said:
        assert notes[0].startswith("Automatic memory is paused for this session: it read "
                                   "content from outside (web_fetch: https://example.com/guide)")
    session.clear_history()
    mark()
    session.extract_facts_later("We format code with black")
    await session.wait_background()
    assert len(paused()) == said
    await session.aclose()
