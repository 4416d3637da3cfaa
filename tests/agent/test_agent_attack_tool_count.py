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
