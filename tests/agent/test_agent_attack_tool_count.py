"""OpenAI refuses a request offering more than 128 tools ("array too long"): two or three MCP
servers (GitHub's alone has about a hundred tools) beside the program's own got every request
of the session refused. The program's own tools are offered first, then the MCP tools while
there is room; the person hears how many were left out."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from agent_script import ScriptedClient, Step, drain

from paicli_tui.core.agent import session as session_module
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.mcp.config import McpServerConfig
from paicli_tui.core.mcp.manager import McpManager
from paicli_tui.core.mcp.status import ServerStatus
from paicli_tui.core.mcp.tool import McpTool


def _server(number: int, tools: int) -> ServerStatus:
    status = ServerStatus(McpServerConfig(name=f"s{number}", command="x"), state="running")
    for index in range(tools):
        remote = SimpleNamespace(name=f"t{index}", description="A tool.",
                                 input_schema={"type": "object", "properties": {}})
        status.tools.append(McpTool(status, remote, f"mcp__s{number}__t{index}"))
    return status


@pytest.mark.parametrize(("servers", "per_server"), [(1, 100), (2, 100), (3, 60), (1, 1_000)])
async def test_no_request_offers_more_than_128_tools(settings, project_dir, monkeypatch,
                                                     servers, per_server) -> None:
    statuses = [_server(number, per_server) for number in range(servers)]

    async def fake_start(*args, **kwargs):
        return McpManager(statuses)

    monkeypatch.setattr(session_module, "start_mcp", fake_start)
    client = ScriptedClient([Step(text="ok")])
    session = await AgentSession.start(settings, project_dir, client=client)
    try:
        names = [s["function"]["name"] for s in session.tool_schemas()]
        own = [n for n in session.tools.names() if not n.startswith("mcp__")]
        assert set(own) <= set(names)  # the program's own tools, every one
        assert len(names) == min(128, len(own) + servers * per_server)
        await drain(session.run_turn("hi"))
        assert len(client.tool_lists[-1]) == len(names)
        left_out = max(0, servers * per_server - (128 - len(own)))
        warning = session.mcp.startup_warning()
        if left_out:
            assert f"{left_out:,} MCP tools are not offered to the model" in warning
        else:
            assert warning == ""
    finally:
        await session.aclose()


@pytest.mark.parametrize(("state", "offered"), [
    ("running", True), ("restarting", True), ("failed", False), ("stopped", False)])
async def test_a_down_servers_tools_are_not_offered_nor_counted_left_out(
        settings, project_dir, monkeypatch, state: str, offered: bool) -> None:
    """A server that stopped mid-session kept its tools in every request, each call failing;
    with 100 of them it also pushed a running server's tools past the 128 offered."""
    down, up = _server(0, 100), _server(1, 10)

    async def fake_start(*args, **kwargs):
        return McpManager([down, up])

    monkeypatch.setattr(session_module, "start_mcp", fake_start)
    session = await AgentSession.start(settings, project_dir, client=ScriptedClient([]))
    try:
        before = session.tool_schemas()
        down.state = state
        names = [s["function"]["name"] for s in session.tool_schemas()]
        assert ("mcp__s0__t0" in names) is offered
        if not offered:
            assert all(f"mcp__s1__t{i}" in names for i in range(10))
            assert session.tools.left_out() == []
        else:
            assert session.tool_schemas() is before, "unchanged: the same list"
        down.state = "running"  # restarted: offered again, in the same place
        assert [s["function"]["name"] for s in session.tool_schemas()] == \
            [s["function"]["name"] for s in before]
    finally:
        await session.aclose()
