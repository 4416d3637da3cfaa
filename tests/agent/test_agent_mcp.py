"""MCP: a real stdio server written with the SDK (no protocol mocks), started with the session,
its tools offered as mcp__<server>__<tool>, approval, the guard, failures that do not stop the
session, project .mcp.json only after approval, servers stopped with the session."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

import pytest
from agent_script import ScriptedClient, Step, drain

from paicli_tui.config import ConfigError, load_settings
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.contracts.asks import ApprovalDecision
from paicli_tui.core.mcp import servers_from_settings
from paicli_tui.core.messages import Role

SERVER = str(Path(__file__).parents[1] / "doubles" / "mcp_demo_server.py")
pytestmark = pytest.mark.slow


def inner(message) -> str:
    """The tool result's text inside its boundary tag."""
    return message.content.split(">", 1)[1].rsplit("</tool_result>", 1)[0].strip()


def server_table(*extra: str, **options) -> dict:
    return {"command": sys.executable, "args": [SERVER, *extra], **options}


def with_servers(settings, **servers):
    return dataclasses.replace(settings, mcp_servers=servers)


class Approvals:
    def __init__(self, answer=ApprovalDecision.ONCE) -> None:
        self.asked: list[str] = []
        self.answer = answer

    async def __call__(self, request):
        self.asked.append(request.tool)
        return self.answer


async def run_calls(settings, project_dir, calls, approve=None):
    client = ScriptedClient([Step(calls=calls), Step(text="done")])
    session = await AgentSession.start(settings, project_dir, client=client,
                                       approve=approve or Approvals())
    await drain(session.run_turn("use the demo server"))
    results = [m for m in client.requests[1] if m.role is Role.TOOL]
    return session, client, results


async def test_tool_offered_called_approved_and_guard_trips(settings, project_dir) -> None:
    approvals = Approvals()
    session, client, results = await run_calls(
        with_servers(settings, demo=server_table()), project_dir,
        [("mcp__demo__add", {"a": 2, "b": 3})], approvals)
    schemas = {t["function"]["name"]: t["function"] for t in client.tool_lists[0]}
    assert schemas["mcp__demo__add"]["parameters"]["required"] == ["a", "b"]
    assert "[MCP server demo]" in schemas["mcp__demo__add"]["description"]
    assert approvals.asked == ["mcp__demo__add"]
    assert results[0].content.startswith('<tool_result tool="mcp__demo__add" trust="untrusted')
    assert inner(results[0]) == "5"
    assert session.state.external_content_used
    assert "running" in session.mcp.report()
    await session.aclose()


async def test_allowed_tools_run_without_asking(settings, project_dir) -> None:
    approvals = Approvals(ApprovalDecision.DENY)
    session, _, results = await run_calls(
        with_servers(settings, demo=server_table(allowed_tools=["add"])), project_dir,
        [("mcp__demo__add", {"a": 1, "b": 1})], approvals)
    assert approvals.asked == [] and inner(results[0]) == "2"
    await session.aclose()


@pytest.mark.parametrize("written", [False, True])
async def test_allowed_tools_do_not_cover_a_call_written_as_text_unasked(
        settings, project_dir, written) -> None:
    """allowed_tools is the person's "run without asking", as "Always" is, and neither
    covers a call a model wrote as text when it was offered real tools (a README's planted
    call read back): that one is asked every time; the same call made natively is not."""
    approvals = Approvals(ApprovalDecision.DENY)
    arguments = {"a": 1, "b": 1}
    first = Step(text="<tool_call>" + json.dumps({"name": "mcp__demo__add",
                                                  "arguments": arguments}) + "</tool_call>") \
        if written else Step(calls=[("mcp__demo__add", arguments)])
    client = ScriptedClient([first, Step(text="done")])
    session = await AgentSession.start(
        with_servers(settings, demo=server_table(allowed_tools=["add"])), project_dir,
        client=client, approve=approvals)
    await drain(session.run_turn("use the demo server"))
    result = [m for m in client.requests[1] if m.role is Role.TOOL][0]
    if written:
        assert approvals.asked == ["mcp__demo__add"]
        assert result.meta["status"] == "denied" and "declined" in result.content
    else:
        assert approvals.asked == [] and inner(result) == "2"
    await session.aclose()


async def test_declined_call_never_reaches_the_server(settings, project_dir) -> None:
    session, _, results = await run_calls(
        with_servers(settings, demo=server_table()), project_dir,
        [("mcp__demo__add", {"a": 1, "b": 1})], Approvals(ApprovalDecision.DENY))
    assert results[0].meta["status"] == "denied" and "declined" in results[0].content
    await session.aclose()


async def test_tool_error_and_big_result(settings, project_dir) -> None:
    session, _, results = await run_calls(
        with_servers(settings, demo=server_table(allowed_tools=["broken", "page"])), project_dir,
        [("mcp__demo__broken", {}), ("mcp__demo__page", {"lines": 5000})])
    assert results[0].meta["status"] == "failed" and "Error executing tool broken" in results[0].content
    assert results[1].meta.get("offload_path"), "a big MCP result is offloaded like any other"
    assert "broken" in (session.mcp.statuses[0].error or "")
    await session.aclose()


async def test_provider_keys_do_not_reach_a_server(settings, project_dir, monkeypatch) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-should-not-leak")
    monkeypatch.setenv("PAICLI_API_KEY", "sk-should-not-leak")
    session, _, results = await run_calls(
        with_servers(settings, demo=server_table(allowed_tools=["visible_env"],
                                                  env={"DEMO_TOKEN": "given"})),
        project_dir, [("mcp__demo__visible_env", {"name": "DEEPSEEK_API_KEY"}),
                      ("mcp__demo__visible_env", {"name": "PAICLI_API_KEY"}),
                      ("mcp__demo__visible_env", {"name": "DEMO_TOKEN"})])
    assert [inner(r) for r in results] == ["unset", "unset", "set"]
    await session.aclose()


async def test_a_token_config_gives_a_server_is_masked_in_its_answers(settings,
                                                                     project_dir) -> None:
    """A token config.toml gives a server in `env` (GITHUB_TOKEN) went to the provider and
    the ledger when the server quoted it, where every other configured key is masked. Values
    not named like a secret (LOG_LEVEL) are not touched."""
    token = "ghp_demo0123456789abcdefTOKEN"
    table = server_table(allowed_tools=["env_value"],
                         env={"GITHUB_TOKEN": token, "LOG_LEVEL": "verbose-debugging",
                              "AUTHOR": "Jane Developer"})
    session, client, results = await run_calls(
        with_servers(settings, demo=table), project_dir,
        [("mcp__demo__env_value", {"name": "GITHUB_TOKEN"}),
         ("mcp__demo__env_value", {"name": "LOG_LEVEL"}),
         ("mcp__demo__env_value", {"name": "AUTHOR"})])
    assert inner(results[0]) == "GITHUB_TOKEN=****"
    assert inner(results[1]) == "LOG_LEVEL=verbose-debugging"
    assert inner(results[2]) == "AUTHOR=Jane Developer"  # a word holding "auth" is no secret
    sent = "".join(m.content for request in client.requests for m in request)
    assert token not in sent and token not in session.ledger.path.read_text()
    await session.aclose()


async def test_failing_servers_are_reported_and_the_session_goes_on(settings,
                                                                    project_dir) -> None:
    settings = with_servers(settings, crash=server_table("--crash"),
                            hang=server_table("--hang", startup_timeout_s=1.5),
                            missing={"command": "no-such-mcp-server-binary"},
                            off=server_table(enabled=False), demo=server_table())
    client = ScriptedClient([Step(text="ok")])
    session = await AgentSession.start(settings, project_dir, client=client)
    states = {s.config.name: (s.state, s.error or "") for s in session.mcp.statuses}
    assert states["demo"][0] == "running"
    # the chat's warning says why, not only "Connection closed": its stderr's last line
    assert states["crash"][0] == "failed"
    assert states["crash"][1].endswith(
        " (its stderr ended: demo server: cannot open its database)"), states["crash"]
    assert states["hang"] == ("failed", "no answer in time")
    assert states["missing"][0] == "failed" and "no-such-mcp-server-binary" in states["missing"][1]
    assert states["off"][0] == "disabled"
    names = session.tools.names()
    assert "mcp__demo__add" in names and not any(n.startswith("mcp__crash") for n in names)
    report = session.mcp.report()
    assert "**failed**" in report and "server log:" in report
    log_text = (settings.home.logs_dir / "mcp-crash.log").read_text()
    assert "cannot open its database" in log_text
    await drain(session.run_turn("hello"))
    await session.aclose()


async def test_a_server_whose_cwd_is_no_folder_says_so(settings, project_dir) -> None:
    """A mistyped cwd read 'command not found: <the folder>', sending the person to look
    at a command that was fine."""
    (project_dir / "a-file").write_text("x")
    settings = with_servers(settings, gone=server_table(cwd=str(project_dir / "no-such")),
                            file=server_table(cwd="a-file"))
    session = await AgentSession.start(settings, project_dir, client=ScriptedClient([]))
    errors = {s.config.name: (s.state, s.error) for s in session.mcp.statuses}
    assert errors == {
        "gone": ("failed", f"its cwd is not a folder: {project_dir / 'no-such'}"),
        "file": ("failed", f"its cwd is not a folder: {project_dir / 'a-file'}")}
    await session.aclose()


async def test_servers_stop_with_the_session(settings, project_dir) -> None:
    session, _, results = await run_calls(
        with_servers(settings, demo=server_table(allowed_tools=["pid"])), project_dir,
        [("mcp__demo__pid", {})])
    pid = int(inner(results[0]))
    os.kill(pid, 0)  # alive
    await session.aclose()
    with pytest.raises(ProcessLookupError):
        for _ in range(50):
            os.kill(pid, 0)
            import asyncio

            await asyncio.sleep(0.1)


async def test_project_mcp_json_needs_approval_once(settings, project_dir) -> None:
    (project_dir / ".mcp.json").write_text(json.dumps(
        {"mcpServers": {"proj": {"command": sys.executable, "args": [SERVER]}}}))
    first = await AgentSession.start(settings, project_dir, client=ScriptedClient([]))
    assert not any(n.startswith("mcp__proj") for n in first.tools.names())
    assert "/mcp approve" in first.mcp.report()
    text = await first.approve_project_mcp()
    assert "`proj` (.mcp.json): **running**" in text
    assert "mcp__proj__add" in first.tools.names()
    await first.aclose()
    second = await AgentSession.start(settings, project_dir, client=ScriptedClient([]))
    assert "mcp__proj__add" in second.tools.names(), "the approval is remembered"
    await second.aclose()
    (project_dir / ".mcp.json").write_text(json.dumps(
        {"mcpServers": {"proj": {"command": sys.executable, "args": [SERVER, "--crash"]}}}))
    third = await AgentSession.start(settings, project_dir, client=ScriptedClient([]))
    assert not any(n.startswith("mcp__proj") for n in third.tools.names()), \
        "a changed .mcp.json is asked about again"
    await third.aclose()


def test_config_toml_shape(tmp_path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        '[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs-server"]\n'
        'env = { DOCS_TOKEN = "t" }\nenabled = false\ntool_timeout_s = 5\n'
        'allowed_tools = ["search"]\n')
    settings = load_settings(env={"PAICLI_HOME": str(home)})
    (server,) = servers_from_settings(settings)
    assert (server.name, server.command, server.args, dict(server.env), server.enabled,
            server.tool_timeout_s, server.allowed_tools) == (
        "docs", "npx", ("-y", "docs-server"), {"DOCS_TOKEN": "t"}, False, 5.0,
        frozenset({"search"}))


@pytest.mark.parametrize(("table", "message"), [
    ({"args": []}, "needs a 'command'"),
    ({"command": "x", "args": "not a list"}, "'args' must be a list"),
    ({"command": "x", "tool_timeout_s": -1}, "tool_timeout_s must be a positive number"),
    ({"command": "x", "enabled": "yes"}, "'enabled' must be true or false"),
])
def test_bad_server_tables_are_clear_errors(settings, table, message) -> None:
    with pytest.raises(ConfigError, match=message):
        servers_from_settings(with_servers(settings, bad=table))


async def test_a_huge_result_is_cut_at_the_command_output_cap(settings, project_dir) -> None:
    # a server answering ~3 MB (a hostile one: hundreds) was redacted on the event loop and
    # saved whole; it now stops at the cap commands have, saying how much the server sent
    small_cap = dataclasses.replace(settings, command_output_cap_chars=100_000)
    session, _, results = await run_calls(
        with_servers(small_cap, demo=server_table(allowed_tools=["page"])), project_dir,
        [("mcp__demo__page", {"lines": 100_000})])
    sent = len("\n".join(f"line {i} of the remote page" for i in range(100_000)))
    saved = project_dir / results[0].meta["offload_path"]
    text = saved.read_text()
    assert text.startswith("line 0 of the remote page")
    assert text.endswith(f"\n[MCP result cut at 100,000 characters; the server sent {sent:,}]")
    assert len(text) == 100_000 + len(f"\n[MCP result cut at 100,000 characters; the server "
                                      f"sent {sent:,}]")
    await session.aclose()


async def test_a_server_flooding_its_stderr_is_cut_in_its_log(settings, project_dir) -> None:
    """A server's stderr was its log file itself: one logging without end filled the disk.
    The supervisor copies it now, up to 10 MB a run, says so once and drops the rest; the
    server is not held up and serves on. A log left over that size starts over next run."""
    MAX_SERVER_LOG_BYTES = 10_000_000  # noqa: N806 (the documented bound, as a number)
    log = settings.home.logs_dir / "mcp-demo.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_bytes(b"an earlier run\n" * (MAX_SERVER_LOG_BYTES // 10))  # 15 MB
    session, _, results = await run_calls(
        with_servers(settings, demo=server_table("--stderr-flood", "25",
                                                 allowed_tools=["add"])), project_dir,
        [("mcp__demo__add", {"a": 2, "b": 3})])
    assert inner(results[0]) == "5"
    await session.aclose()
    text = log.read_bytes()
    note = (f"\n[the MCP server wrote more than {MAX_SERVER_LOG_BYTES:,} bytes to stderr in "
            "this run; the rest is not kept]\n").encode()
    assert not text.startswith(b"an earlier run")
    assert text.startswith(b"debug: ") and note in text
    assert len(text) <= MAX_SERVER_LOG_BYTES + len(note) + 4_096


async def test_a_long_call_says_its_summary_is_cut(settings, project_dir) -> None:
    """The summary showed the first 120 characters of the arguments and nothing after: a
    long first argument hid the ones that matter. The cut now says how much follows."""
    summaries: list[str] = []

    async def deny(request):
        summaries.append(request.summary)
        return ApprovalDecision.DENY

    arguments = {"note": "n" * 150, "b": "~/.bashrc"}
    session, _, _ = await run_calls(with_servers(settings, demo=server_table()), project_dir,
                                    [("mcp__demo__add", arguments)], deny)
    shown = json.dumps(arguments)
    assert summaries == [f"demo: add {shown[:120]}… (+{len(shown) - 120} more characters)"]
    await session.aclose()


def test_one_mistyped_server_leaves_the_others_to_start(settings, project_dir) -> None:
    """A typo in one [mcp_servers.NAME] table ('commnd') kept every server of config.toml
    from starting, in a session and in `paicli-tui mcp list` alike: only that one is named
    as unreadable now."""
    from paicli_tui.core.mcp.session_start import configured_servers

    found = configured_servers(with_servers(
        settings, docs=server_table(), typo={"commnd": "npx"},
        wrong={"command": "npx", "args": "-y"}), project_dir)
    assert [config.name for config in found.configs] == ["docs"]
    assert [error.split(": ", 1)[1] for error in found.errors] == [
        "MCP server 'typo' needs a 'command'",
        "MCP server 'wrong': 'args' must be a list of strings"]


def test_a_mcp_json_written_after_the_start_is_named_by_slash_mcp(settings, project_dir):
    """/mcp said "No MCP servers. Add one to … (or a project's .mcp.json)" with one written
    in the project after the session started: it now names the file and `/mcp approve`."""
    from paicli_tui.core.mcp import McpManager
    from paicli_tui.core.mcp.config import McpServerConfig
    from paicli_tui.core.mcp.session_start import NOT_APPROVED, servers_written_since_start
    from paicli_tui.core.mcp.status import ServerStatus

    path = project_dir / ".mcp.json"
    written = f"in {path} not started: the file was written after this session"

    def running(name: str) -> McpManager:
        return McpManager([ServerStatus(McpServerConfig(name=name, command="x"),
                                        state="running")])

    assert servers_written_since_start(None, settings, project_dir) == ""  # no file
    path.write_text(json.dumps({"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}))
    for manager, expected in (
            (None, f"2 servers {written}"),
            (McpManager([]), f"2 servers {written}"),
            (running("a"), f"1 server {written}"),
            (McpManager([running("a").statuses[0],
                         ServerStatus(McpServerConfig(name="b", command="y"), "failed")]), ""),
            (McpManager([], [NOT_APPROVED.format(servers="2 servers", path=path)]), "")):  # said at the start
        note = servers_written_since_start(manager, settings, project_dir)
        assert (note.startswith(expected) if expected else note == ""), (manager, note)
        assert not expected or note.endswith("Review it, then `/mcp approve`.")


@pytest.mark.parametrize(("written", "expected"), [
    ("", ""),
    ("\n  \n", ""),
    ("Traceback …\nModuleNotFoundError: No module named 'x'\n",
     " (its stderr ended: ModuleNotFoundError: No module named 'x')"),
    ("bad token sk-abcdefghijklmnopqrstuvwxyz123456\n", " (its stderr ended: bad token ****)"),
    ("y" * 300, " (its stderr ended: " + "y" * 200 + "…)"),
    # Node ends an uncaught error with its frames and its version: the error says why
    ("node:internal/modules/cjs/loader:1080\n  throw err;\n  ^\n\nError: Cannot find module "
     "'zod'\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1077:15)\n"
     "    at node:internal/main/run_main_module:23:47 {\n  code: 'MODULE_NOT_FOUND'\n}\n\n"
     "Node.js v20.11.0\n", " (its stderr ended: Error: Cannot find module 'zod')"),
    ("Error: Cannot find module 'zod'\n    at Module._load (node:internal/modules/cjs/"
     "loader:922:27)\n    at node:internal/main/run_main_module:23:47\n\nNode.js v20.11.0\n",
     " (its stderr ended: Error: Cannot find module 'zod')"),
    ("Exception in thread \"main\" java.lang.IllegalStateException: no index\n"
     "\tat demo.Server.main(Server.java:12)\n\t... 3 more\n",
     " (its stderr ended: Exception in thread \"main\" java.lang.IllegalStateException: no "
     "index)"),
    ("at least one root folder is needed\n",
     " (its stderr ended: at least one root folder is needed)"),
    ("error: retrying in 1 s\nlistening on stdio\n",
     " (its stderr ended: error: retrying in 1 s)"),
    ("panic: runtime error: invalid memory address\n\ngoroutine 1 [running]:\n"
     "main.main()\n\t/src/main.go:12 +0x1d\nexit status 2\n",
     " (its stderr ended: panic: runtime error: invalid memory address)"),
    # masked before the cut: a key across the 200th character was shown up to it
    ("x" * 190 + " sk-abcdefghijklmnopqrstuvwxyz123456\n",
     " (its stderr ended: " + "x" * 190 + " ****)"),
], ids=["nothing", "blank", "traceback", "key", "long", "node-object", "node", "java",
        "words-at", "error-before-last", "go-panic", "key-at-the-cut"])
def test_a_failed_start_quotes_this_runs_last_stderr_line(tmp_path, written, expected):
    from paicli_tui.core.mcp.status import stderr_tail

    log = tmp_path / "mcp-x.log"
    log.write_text("an older run: its own last words\n")
    start = log.stat().st_size
    with log.open("a") as handle:
        handle.write(written)
    assert stderr_tail(log, start) == expected
    assert stderr_tail(tmp_path / "absent.log", 0) == ""


def test_a_failed_start_masks_the_servers_configured_values(tmp_path):
    """A server's stderr may print its own configured token or password, which need not
    look like a key: the values of its `env` are masked (short ones like a port are not)."""
    from paicli_tui.core.mcp.status import stderr_tail

    log = tmp_path / "mcp-db.log"
    log.write_text("login failed for admin with password hunter2hunter port 5432\n")
    tail = stderr_tail(log, 0, {"DB_PASSWORD": "hunter2hunter", "DB_PORT": "5432"}.values())
    assert "hunter2hunter" not in tail
    assert tail == " (its stderr ended: login failed for admin with password **** port 5432)"
