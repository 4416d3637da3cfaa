"""A new agent session writes its ledger with the first turn, not at start (behaviour §7)."""

from __future__ import annotations

from agent_script import ScriptedClient, Step, drain

from paicli_tui.core.agent.session import AgentSession


def files(home) -> list[str]:
    folder = home.history_raw_dir
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


async def test_agent_session_writes_its_file_with_the_first_turn(settings, project_dir) -> None:
    client = ScriptedClient([Step(text="Hello")])
    idle = await AgentSession.start(settings, project_dir, client=client)
    await idle.aclose()
    assert files(settings.home) == []
    session = await AgentSession.start(settings, project_dir, client=ScriptedClient(
        [Step(text="Hello")]))
    await drain(session.run_turn("hi"))
    await session.aclose()
    assert files(settings.home) == [f"{session.session_id}.jsonl",
                                    f"{session.session_id}.lock"]
    resumed = await AgentSession.start(settings, project_dir, client=ScriptedClient([]),
                                       resume=session.session_id)
    assert [m.content for m in resumed.history[-1:]] == ["Hello"]
    await resumed.aclose()
