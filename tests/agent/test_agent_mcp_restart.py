"""MCP servers that fail mid-session, and `/mcp restart`, against the real SDK demo server.

A server whose process ended was taken for running until the model's next call to it failed
with "Connection closed", and nothing but quitting the app brought it back. Now its failure
is queued at once (one change, said once), its tools answer with a clear error naming
`/mcp restart NAME`, and a restart stops what is left, starts it again and offers its tools
from the next request on."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import signal
import sys
from pathlib import Path

import pytest
from agent_script import ScriptedClient, Step, drain

from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.contracts.events import McpServerChanged
from paicli_tui.core.messages import Role

SERVER = str(Path(__file__).parents[1] / "doubles" / "mcp_demo_server.py")
ALLOWED = ["add", "pid", "hold", "die"]
WAIT_S = 60  # a bound for a slow machine, never a measure of speed
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")]


def inner(message) -> str:
    """The tool result's text inside its boundary tag."""
    return message.content.split(">", 1)[1].rsplit("</tool_result>", 1)[0].strip()


def demo(settings, *extra: str, **options):
    table = {"command": sys.executable, "args": [SERVER, *extra], "allowed_tools": ALLOWED,
             **options}
    return dataclasses.replace(settings, mcp_servers={"demo": table})


async def started(settings, project_dir, steps) -> tuple[AgentSession, ScriptedClient,
                                                         asyncio.Event]:
    """A session on ``settings``, scripted with ``steps``; the event is set whenever an
    MCP server changes by itself or a restart ends."""
    client = ScriptedClient(steps)
    session = await AgentSession.start(settings, project_dir, client=client)
    changed = asyncio.Event()
    session.watch_mcp(changed.set)
    return session, client, changed


def last_result(request) -> str:
    return [inner(m) for m in request if m.role is Role.TOOL][-1]


def offered(tools: list[dict]) -> list[str]:
    return [t["function"]["name"] for t in tools]


async def test_a_killed_server_is_failed_at_once_and_restarts(settings, project_dir) -> None:
    session, client, changed = await started(demo(settings), project_dir, [
        Step(calls=[("mcp__demo__pid", {})]), Step(text="got it"),
        Step(calls=[("mcp__demo__add", {"a": 2, "b": 3})]), Step(text="it is down"),
        Step(calls=[("mcp__demo__add", {"a": 2, "b": 3})]), Step(text="five")])
    try:
        await drain(session.run_turn("what is the server's pid?"))
        pid = int(last_result(client.requests[1]))
        session.take_mcp_changes()
        os.kill(pid, signal.SIGKILL)
        # no call made: the end of its output alone marks it failed
        await asyncio.wait_for(changed.wait(), WAIT_S)
        status = session.mcp.status_of("demo")
        assert status.state == "failed" and status.error.startswith("its process ended")
        (change,) = session.take_mcp_changes()
        assert (change.server, change.state, change.cause) == ("demo", "failed", "exited")
        assert session.take_mcp_changes() == [], "said once"

        report = session.mcp.report()
        assert "- `demo` (config.toml): **failed**" in report
        assert ("  - unavailable, not offered to the model while it is failed: "
                "`mcp__demo__add`, ") in report and "(`/mcp restart demo` starts it again)" \
            in report
        assert not any(line.startswith("  - `mcp__demo") for line in report.splitlines())

        await drain(session.run_turn("add 2 and 3"))
        assert not [name for name in offered(client.tool_lists[2])
                    if name.startswith("mcp__demo__")], "a dead server's tools are not offered"
        told = client.requests[2][-1].content
        assert "The MCP server 'demo' stopped: its process ended" in told
        assert "`/mcp restart demo`" in told
        # a call the model makes from memory still answers with the way back
        answer = last_result(client.requests[3])
        assert "The MCP server 'demo' is not running: its process ended" in answer
        assert "`/mcp restart demo`" in answer

        changed.clear()
        assert await session.restart_mcp("demo") == ""
        assert changed.is_set() and status.state == "running" and status.error is None
        (change,) = session.take_mcp_changes()
        assert (change.state, change.cause) == ("running", "restart") and change.tools > 0
        events = [e async for e in session.run_turn("add 2 and 3 again")]
        assert last_result(client.requests[5]) == "5"
        names = offered(client.tool_lists[4])
        assert len(names) == len(set(names)) and names == offered(client.tool_lists[0]), \
            "the same tools under the same names, in the same place"
        assert not any(isinstance(e, McpServerChanged) for e in events), "taken already"
        kinds = [json.loads(line) for line in session.ledger.path.read_text().splitlines()]
        recorded = [(k["state"], k["cause"]) for k in kinds if k.get("kind") == "mcp_server"]
        assert recorded == [("failed", "exited"), ("running", "restart")]
    finally:
        await session.aclose()


async def test_a_server_failing_to_start_again_and_again_then_restarted(settings, project_dir,
                                                              tmp_path) -> None:
    ready = tmp_path / "database"
    session, client, _ = await started(demo(settings, "--crash-while-missing", str(ready)),
                                       project_dir, [Step(text="hello"),
                                                     Step(text="hello again")])
    try:
        status = session.mcp.status_of("demo")
        why = " (its stderr ended: demo server: its database is not there yet)"
        assert status.state == "failed" and status.error.endswith(why)
        assert await session.restart_mcp() == "", "every failed one: this one"
        assert status.state == "failed" and status.error.endswith(why)
        assert session.mcp.report().count("its database is not there yet") == 1
        said = [(c.state, c.cause, c.detail.endswith(why)) for c in session.take_mcp_changes()]
        assert said == [("failed", "start", True), ("failed", "restart", True)]
        assert not session.ledger.path.exists(), "nothing said yet: no session file for it"
        assert await session.restart_mcp("demo") == ""
        events = [e async for e in session.run_turn("hi")]
        said = [(e.state, e.cause, e.detail.endswith(why)) for e in events
                if isinstance(e, McpServerChanged)]
        assert said == [("failed", "restart", True)], "said before the turn's request"
        kinds = [json.loads(line) for line in session.ledger.path.read_text().splitlines()]
        assert [k["cause"] for k in kinds if k.get("kind") == "mcp_server"] == \
            ["start", "restart", "restart"]
        assert not any(n.startswith("mcp__demo") for n in offered(client.tool_lists[0]))

        ready.write_text("here now")
        assert await session.restart_mcp("demo") == ""
        assert status.state == "running"
        await drain(session.run_turn("hi again"))
        assert "mcp__demo__add" in offered(client.tool_lists[1]), "offered from the next request"
        assert await session.restart_mcp() == \
            "No MCP server has failed: `/mcp restart NAME` restarts a running one."
    finally:
        await session.aclose()


async def test_tools_named_alike_on_two_servers_restarted_together_stay_apart(
        settings, project_dir, tmp_path) -> None:
    """Server 'a' offering 'b__add' and server 'a__b' offering 'add' are both
    'mcp__a__b__add'. Failed at start and restarted together (`/mcp restart`), each found
    the other's names free: both took that name, and one server's tool hid the other's."""
    ready = tmp_path / "database"
    args = [SERVER, "--crash-while-missing", str(ready)]
    table = {"command": sys.executable, "allowed_tools": ALLOWED}
    settings = dataclasses.replace(settings, mcp_servers={
        "a": {**table, "args": [*args, "--extra-tool", "b__add"]},
        "a__b": {**table, "args": args}})
    session, client, _ = await started(settings, project_dir, [Step(text="hello")])
    try:
        assert session.mcp.failed() == ["a", "a__b"]
        ready.write_text("here now")
        assert await session.restart_mcp() == ""
        names = [t.name for t in session.mcp.tools()]
        assert len(names) == len(set(names)) == 17
        await drain(session.run_turn("hi"))
        sent = offered(client.tool_lists[0])
        assert sorted(n for n in sent if n.startswith("mcp__a__b__add")) == \
            ["mcp__a__b__add", "mcp__a__b__add_2"]
    finally:
        await session.aclose()


async def test_a_restart_overtaking_a_running_call(settings, project_dir, tmp_path) -> None:
    """The call on the old process fails saying so (not "Connection closed", not the
    server's fault); the restart is not held up by it and the next call runs."""
    note = tmp_path / "held"
    session, client, _ = await started(demo(settings), project_dir, [
        Step(calls=[("mcp__demo__hold", {"started": str(note)})]), Step(text="lost"),
        Step(calls=[("mcp__demo__add", {"a": 1, "b": 1})]), Step(text="two")])
    try:
        turn = asyncio.ensure_future(drain(session.run_turn("hold on")))
        for _ in range(WAIT_S * 10):
            if note.exists() and note.read_text():
                break
            await asyncio.sleep(0.1)
        old_pid = int(note.read_text())
        assert await session.restart_mcp("demo") == ""
        await asyncio.wait_for(turn, WAIT_S)
        answer = last_result(client.requests[1])
        assert answer == ("The MCP server 'demo' was restarted while mcp__demo__hold ran, "
                          "so its result is lost. Call it again if it is still needed.")
        status = session.mcp.status_of("demo")
        assert status.state == "running" and status.error is None
        await drain(session.run_turn("add"))
        assert last_result(client.requests[3]) == "2"
        with pytest.raises(ProcessLookupError):
            os.kill(old_pid, 0)
    finally:
        await session.aclose()


async def test_a_secret_in_a_dying_servers_stderr_is_masked(settings, project_dir) -> None:
    password = "hunter2hunter2"  # configured for the server: no key shape to go by
    key = "sk-abcdefghijklmnopqrstuvwxyz0123456789"
    session, client, changed = await started(
        demo(settings, env={"DB_PASSWORD": password, "OTHER": key}), project_dir,
        [Step(calls=[("mcp__demo__die", {"name": "DB_PASSWORD"})]), Step(text="gone")])
    try:
        await drain(session.run_turn("log in"))
        await asyncio.wait_for(changed.wait(), WAIT_S)  # said once its stderr is logged
        (change,) = session.take_mcp_changes()
        assert change.detail == "its process ended (its stderr ended: fatal: cannot log in " \
                                "with ****)"
        answer = last_result(client.requests[1])
        assert "`/mcp restart demo`" in answer
        ledger = session.ledger.path.read_text()
        assert password not in ledger and password not in session.mcp.report()
        log = session.mcp.status_of("demo").log_path.read_text()
        assert "cannot log in with ****" in log and password not in log  # the file too
    finally:
        await session.aclose()


@pytest.mark.parametrize(("event", "line"), [
    (McpServerChanged("demo", "failed", "exited", "its process ended"),
     "[mcp] MCP server `demo` stopped: its process ended; calls to its tools fail."),
    (McpServerChanged("demo", "failed", "start", "no answer in time"),
     "[mcp] MCP server `demo` did not start: no answer in time."),
    (McpServerChanged("demo", "failed", "restart", "command not found: x_y"),
     "[mcp] MCP server `demo` did not restart: command not found: x_y."),
    (McpServerChanged("demo", "running", "restart", tools=6),
     "[mcp] MCP server `demo` restarted: 6 tools, offered from the next request."),
], ids=["exited", "start", "restart-failed", "restarted"])
def test_exec_says_a_servers_change(event, line) -> None:
    """exec has no /mcp restart: its line does not offer one; --json carries the event."""
    import io

    from paicli_tui.commands.exec_cmd import _Printer

    out, err = io.StringIO(), io.StringIO()
    _Printer(as_json=False, out=out, err=err).emit(event)
    assert err.getvalue() == line + "\n" and out.getvalue() == ""
    out = io.StringIO()
    printer = _Printer(as_json=True, out=out, err=err)
    printer.session = "s1"
    printer.emit(event)
    assert json.loads(out.getvalue()) == {
        "type": "mcp_server", "server": "demo", "state": event.state, "cause": event.cause,
        "detail": event.detail, "tools": event.tools, "session": "s1"}


async def test_a_restart_after_the_session_closed_starts_nothing(settings, project_dir):
    """A restart still on its way when the session ends (the person quits meanwhile) would
    start a server nothing stops any more."""
    from paicli_tui.core.mcp import McpManager, servers_from_settings

    settings = demo(settings)
    manager = await McpManager.start(servers_from_settings(settings), project_root=project_dir,
                                     logs_dir=settings.home.logs_dir)
    status = manager.status_of("demo")
    assert status.state == "running"
    await manager.aclose()
    manager.take_changes()
    restarted = await manager.restart("demo")
    assert restarted.state == "stopped" and restarted.session is None
    assert manager.take_changes() == [] and manager._runs == {}
