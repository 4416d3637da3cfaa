"""Sub-agents against scripted models at the protocol: own history, only the answer comes
back, compaction inside, parallel runs, cancel, named approvals, the session-wide guard and
the linked ledger stream."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from agent_script import ScriptedClient, Step, drain

from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.context.ledger import SessionLedger, list_sessions
from paicli_tui.core.context.pairing import pairing_problems
from paicli_tui.core.contracts.asks import ApprovalDecision
from paicli_tui.core.contracts.events import TurnFinished
from paicli_tui.core.messages import Message, Role

SUBAGENT_MARK = "working as a sub-agent"


@dataclass
class RoutedClient:
    """One model, several conversations: the parent's and each sub-agent's (by task word)."""

    routes: dict[str, ScriptedClient]
    provider: str = "scripted"
    model: str = "script-1"
    window: int = 128_000
    order: list[str] = field(default_factory=list)

    def route(self, messages: Sequence[Message]) -> str:
        if SUBAGENT_MARK not in messages[0].content:
            return "parent"
        task = next(m.content for m in messages if m.role is Role.USER)
        return next(key for key in self.routes if key != "parent" and key in task)

    async def stream(self, messages, tools=(), *, model=None):
        key = self.route(messages) if tools else "parent"
        self.order.append(key)
        async for event in self.routes[key].stream(messages, tools, model=model):
            yield event

    async def aclose(self) -> None:
        pass


def delegate(*tasks: str, **extra) -> Step:
    return Step(calls=[("run_subagent", {"task": t, "label": t.split()[0], **extra})
                       for t in tasks])


async def start(settings, project_dir, routes, **kwargs):
    client = RoutedClient(routes, window=kwargs.pop("window", 128_000))
    session = await AgentSession.start(settings, project_dir, client=client, **kwargs)
    return session, client


async def test_subagent_history_is_its_own_and_only_the_answer_returns(settings,
                                                                       project_dir) -> None:
    for i in range(5):
        (project_dir / f"f{i}.py").write_text(f"SECRET_MARKER_{i} = {i}\n" * 200)
    explorer = ScriptedClient([
        Step(calls=[("read_file", {"path": f"f{i}.py"}) for i in range(5)]),
        Step(text="ALPHA: the five files each define one SECRET_MARKER constant.")])
    parent = ScriptedClient([delegate("ALPHA: what do f0-f4.py define?"), Step(text="Done.")])
    session, client = await start(settings, project_dir,
                                  {"parent": parent, "ALPHA": explorer})
    events = await drain(session.run_turn("TOP-LEVEL QUESTION about the f files"))
    assert isinstance(events[-1], TurnFinished) and events[-1].final_text == "Done."
    child_requests = explorer.requests
    assert all("TOP-LEVEL QUESTION" not in m.content for r in child_requests for m in r)
    assert SUBAGENT_MARK in child_requests[0][0].content
    answer = [m for m in parent.requests[1] if m.role is Role.TOOL][0]
    assert "the five files each define one SECRET_MARKER constant" in answer.content
    assert "SECRET_MARKER_3 = 3" not in answer.content, "tool outputs stay in the sub-agent"
    assert sum(m.role is Role.TOOL for m in parent.requests[1]) == 1
    assert parent.problems == [] and explorer.problems == []
    # the read-only sub-agent was offered no writes, commands or sub-agents
    offered = {t["function"]["name"] for t in explorer.tool_lists[0]}
    assert "read_file" in offered
    assert not offered & {"write_file", "edit_file", "execute_command", "run_subagent",
                          "save_memory", "web_fetch"}
    await session.aclose()


async def test_subagent_stream_is_linked_and_not_listed(settings, project_dir) -> None:
    child = ScriptedClient([Step(text="BETA answer")])
    parent = ScriptedClient([delegate("BETA: look around"), Step(text="ok")])
    session, _ = await start(settings, project_dir, {"parent": parent, "BETA": child})
    await drain(session.run_turn("go"))
    child_id = f"{session.session_id}.sub-1"
    restored = SessionLedger.open(settings.home, child_id).restore()
    assert [m.role for m in restored.messages] == [Role.SYSTEM, Role.USER, Role.ASSISTANT]
    head = SessionLedger.open(settings.home, child_id).path.read_text().splitlines()[0]
    assert json.loads(head)["parent"] == session.session_id
    assert [s.session_id for s in list_sessions(settings.home)] == [session.session_id]
    await session.aclose()


async def test_long_subagent_run_compacts_inside_itself(settings, project_dir) -> None:
    # six files, not one file six times: six identical calls in a row stop the loop
    for n in range(6):
        (project_dir / f"big{n}.txt").write_text((f"{n}" * 3_000 + "\n") * 12)
    reads = [Step(text=f"step {n}", calls=[("read_file", {"path": f"big{n}.txt"})])
             for n in range(6)]
    child = ScriptedClient([*reads, Step(text="GAMMA: read it six times")])
    parent = ScriptedClient([delegate("GAMMA: read big.txt repeatedly"), Step(text="ok")])
    session, _ = await start(settings, project_dir, {"parent": parent, "GAMMA": child},
                             window=8_000)
    await drain(session.run_turn("go"))
    ledger = SessionLedger.open(settings.home, f"{session.session_id}.sub-1")
    assert ledger.compaction_history(), "the sub-agent compacted its own history"
    assert child.problems == [] and parent.problems == []
    assert "read it six times" in [m for m in parent.requests[1] if m.role is Role.TOOL][0].content
    await session.aclose()


async def test_parallel_subagents_overlap(settings, project_dir) -> None:
    both_started = asyncio.Event()
    started: list[str] = []

    def waiting(name: str):
        def step(messages):
            started.append(name)
            if len(started) == 2:
                both_started.set()
            return Step(text=f"{name} done", wait=both_started)
        return step

    routes = {"parent": ScriptedClient([delegate("ONE: a", "TWO: b"), Step(text="ok")]),
              "ONE": ScriptedClient([waiting("ONE")]), "TWO": ScriptedClient([waiting("TWO")])}
    session, _ = await start(settings, project_dir, routes)
    events = await asyncio.wait_for(drain(session.run_turn("go")), 20)
    assert events[-1].final_text == "ok" and sorted(started) == ["ONE", "TWO"]
    results = [m for m in routes["parent"].requests[1] if m.role is Role.TOOL]
    assert "ONE done" in results[0].content and "TWO done" in results[1].content
    await session.aclose()


async def test_cancel_mid_subagent_leaves_both_histories_valid(settings, project_dir) -> None:
    never = asyncio.Event()
    child = ScriptedClient([Step(calls=[("list_dir", {"path": "."})]),
                            Step(text="late", wait=never)])
    parent = ScriptedClient([delegate("DELTA: explore")])
    session, _ = await start(settings, project_dir, {"parent": parent, "DELTA": child})
    task = asyncio.ensure_future(drain(session.run_turn("go")))
    for _ in range(100):
        await asyncio.sleep(0.02)
        if len(child.requests) == 2:
            break
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert pairing_problems(session.history) == []
    restored = SessionLedger.open(settings.home, f"{session.session_id}.sub-1").restore()
    assert pairing_problems(restored.messages) == []
    await session.aclose()


async def test_approvals_name_the_subagent_and_the_guard_is_session_wide(settings,
                                                                         project_dir) -> None:
    asked: list[str] = []

    async def approve(request):
        asked.append(request.summary)
        return ApprovalDecision.ONCE

    child = ScriptedClient([Step(calls=[("write_file", {"path": "n.txt", "content": "hi"}),
                                        ("execute_command", {"command": "curl -s x.invalid"})]),
                            Step(text="EPS wrote it")])
    parent = ScriptedClient([delegate("EPS: write n.txt", tools="all"), Step(text="ok")])
    session, _ = await start(dataclasses.replace(settings, command_timeout_s=5), project_dir,
                             {"parent": parent, "EPS": child}, approve=approve)
    await drain(session.run_turn("go"))
    assert asked and all(s.startswith("[sub-agent EPS") for s in asked)
    assert (project_dir / "n.txt").read_text() == "hi"
    assert session.state.external_content_used, "a network command in a sub-agent marks all"
    await session.aclose()


async def test_a_subagent_that_fails_is_a_failed_result(settings, project_dir) -> None:
    child = ScriptedClient([Step(error=RuntimeError("model exploded"))])
    parent = ScriptedClient([delegate("ZETA: try"), Step(text="ok")])
    session, _ = await start(settings, project_dir, {"parent": parent, "ZETA": child})
    events = await drain(session.run_turn("go"))
    result = [m for m in parent.requests[1] if m.role is Role.TOOL][0]
    assert result.meta["status"] == "failed" and "did not finish" in result.content
    assert events[-1].final_text == "ok"
    await session.aclose()
