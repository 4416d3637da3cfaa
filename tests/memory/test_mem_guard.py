"""The external-content guard (behaviour §16) and the save_memory tool's conflict handshake."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli_tui.config import Settings
from paicli_tui.core.contracts.asks import ConflictDecision, ConflictRequest
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.contracts.shell import is_network_command
from paicli_tui.core.contracts.tools import Tool, ToolContext, ToolOutput
from paicli_tui.core.memory.guard import is_external
from paicli_tui.core.memory.lexicon import asks_to_remember
from paicli_tui.core.memory.service import LocalMemoryService


@pytest.mark.parametrize(("command", "network"), [
    ("curl https://example.com", True),
    ("wget -q http://x/y.tar.gz", True),
    ("cd src && curl -s x | jq .", True),
    ("FOO=1 sudo /usr/bin/wget x", True),
    ("echo $(curl x)", True),
    ("ssh host cat /etc/motd", True),
    ("git clone https://github.com/a/b", True),
    ("git -C repo pull", True),
    ("git status", False),
    ("git log --oneline", False),
    ("ls -la", False),
    ("grep -rn curl src/", False),
    ("echo 'see http://docs.example.com'", False),
    ("pytest -q tests/", False),
    ("cat 'unbalanced", True),  # cannot be read: not taken for local
])
def test_network_commands(command: str, network: bool) -> None:
    assert is_network_command(command) is network


@pytest.mark.parametrize(("tool", "arguments", "external_flag", "external"), [
    ("mcp__github__get_issue", {}, False, True),
    ("web_search", {"query": "x"}, False, True),
    ("web_fetch", {"url": "x"}, False, True),
    ("browser_navigate", {}, False, True),
    ("execute_command", {"command": "curl x"}, False, True),
    ("execute_command", {"command": "make test"}, False, True),  # no Makefile to read here
    ("execute_command", {"command": "ls -la"}, False, False),
    ("read_file", {"path": "a.py"}, False, False),
    ("grep_code", {"pattern": "curl"}, False, False),
    ("some_tool", {}, True, True),
    ("WebFetch", {}, False, True),
    ("WebSearch", {}, False, True),
    ("tavily_search", {}, False, True),
    ("open_url", {"url": "x"}, False, True),
    ("fetch", {"url": "x"}, False, True),
    ("scrape_page", {}, False, True),
    ("git_fetch_status", {}, False, False),
    ("edit_file", {"path": "fetch.py"}, False, False),
])
def test_external_tools(tool: str, arguments: dict, external_flag: bool, external: bool) -> None:
    assert is_external(tool, arguments, ToolOutput("x", external=external_flag)) is external


@pytest.mark.parametrize(("text", "asks"), [
    ("记住：我们用 pnpm", True),
    ("帮我记一下这个约定", True),
    ("把这条保存到记忆里", True),
    ("Please remember that we use pnpm", True),
    ("Don't forget: tabs, not spaces", True),
    ("Keep in mind we deploy on Fridays", True),
    ("Summarise this page", False),
    ("我们用 pnpm", False),
    ("请牢记：接口统一返回 JSON", True),
    ("REMEMBER: we use pnpm", True),
    ("Do you remember what we changed yesterday?", False),
    ("Did you remember to run the tests?", False),
    ("Remember that we deploy on Mondays. Do you remember the last deploy?", True),
])
def test_remember_requests(text: str, asks: bool) -> None:
    assert asks_to_remember(text) is asks


@pytest.fixture
def service(settings: Settings, project_dir: Path) -> LocalMemoryService:
    return LocalMemoryService(settings, project_dir, use_vectors=False)


@pytest.fixture
def session() -> SessionState:
    return SessionState(session_id="s1", current_user_input="我们用 pnpm 管理依赖")


def _context(service: LocalMemoryService, session: SessionState, resolve=None) -> ToolContext:
    return ToolContext(project_root=Path(service.project_root), settings=service.settings,
                       session=session, resolve_conflict=resolve)


def _tool(service: LocalMemoryService) -> Tool:
    (tool,) = service.tools()
    assert isinstance(tool, Tool) and tool.name == "save_memory"
    return tool


@pytest.mark.parametrize(("tool_name", "arguments"), [
    ("execute_command", {"command": "curl -s https://example.com"}),
    ("mcp__fetch__fetch", {"url": "https://example.com"}),
])
async def test_after_external_content_save_is_refused_unless_the_turn_asks(
        service: LocalMemoryService, session: SessionState, tool_name: str, arguments: dict
) -> None:
    service.note_tool_result(tool_name, arguments, ToolOutput("page text"), session)
    assert session.external_content_used
    tool = _tool(service)
    refused = await tool.run({"content": "We use pnpm"}, _context(service, session))
    assert refused.status == "denied" and service.list_visible() == []
    session.current_user_input = "记住：我们用 pnpm 管理依赖"
    allowed = await tool.run({"content": "We use pnpm"}, _context(service, session))
    assert allowed.status == "done" and len(service.list_visible()) == 1


async def test_after_external_content_extraction_does_not_run(service: LocalMemoryService,
                                                              session: SessionState) -> None:
    calls = []

    async def model(system: str, user: str) -> str:
        calls.append(user)
        return '{"facts":[{"quote":"我们团队统一用 pytest 写测试"}]}'

    service.note_tool_result("web_fetch", {"url": "x"}, ToolOutput("x"), session)
    assert await service.after_turn("我们团队统一用 pytest 写测试。", session, model) == []
    assert calls == [] and service.list_visible() == []


async def test_extraction_runs_on_a_clean_session(service: LocalMemoryService,
                                                  session: SessionState) -> None:
    async def model(system: str, user: str) -> str:
        return '{"facts":[{"quote":"我们团队统一用 pytest 写测试"}]}'

    service.note_tool_result("read_file", {"path": "a.py"}, ToolOutput("code"), session)
    ids = await service.after_turn("我们团队统一用 pytest 写测试。", session, model)
    (entry,) = service.list_visible()
    assert ids == [entry.id] and entry.source == "auto_extracted"
    off = LocalMemoryService(service.settings.with_overrides(auto_extract=False),
                             service.project_root, use_vectors=False)
    assert await off.after_turn("我们以后一律用 uv。", session, model) == []


async def test_conflict_is_returned_and_refused_until_the_person_decides(
        service: LocalMemoryService, session: SessionState) -> None:
    old = service.save("项目使用 Java 17").entry
    tool = _tool(service)
    context = _context(service, session)
    first = await tool.run({"content": "项目使用 Java 21"}, context)
    assert first.status == "conflict"
    assert old.id in first.content and "项目使用 Java 17" in first.content
    assert "replace_id" in first.content and "keep_both" in first.content
    # Same turn: the model may not settle it on its own.
    alone = await tool.run({"content": "项目使用 Java 21", "replace_id": old.id}, context)
    assert alone.status == "conflict" and "not decided" in alone.content
    assert [e.content for e in service.list_visible()] == ["项目使用 Java 17"]
    session.current_user_input = "替换旧的那条"  # the person answers in the next turn
    wrong = await tool.run({"content": "项目使用 Java 21", "replace_id": "zzzz9999"}, context)
    assert wrong.status == "failed"
    done = await tool.run({"content": "项目使用 Java 21", "replace_id": old.id}, context)
    assert done.status == "done"
    assert [e.content for e in service.list_visible()] == ["项目使用 Java 21"]


async def test_keep_both_needs_a_reported_conflict_first(service: LocalMemoryService,
                                                         session: SessionState) -> None:
    service.save("Node 18")
    tool = _tool(service)
    context = _context(service, session)
    blind = await tool.run({"content": "Node 20", "keep_both": True}, context)
    assert blind.status == "conflict" and len(service.list_visible()) == 1
    again = await tool.run({"content": "Node 20", "keep_both": True}, context)
    assert again.status == "conflict" and len(service.list_visible()) == 1
    session.current_user_input = "两条都留着"
    kept = await tool.run({"content": "Node 20", "keep_both": True}, context)
    assert kept.status == "done" and len(service.list_visible()) == 2


@pytest.mark.parametrize(("decision", "contents"), [
    (ConflictDecision.REPLACE, ["Node 20"]),
    (ConflictDecision.KEEP_BOTH, ["Node 18", "Node 20"]),
    (ConflictDecision.CANCEL, ["Node 18"]),
])
async def test_the_person_decides_through_the_callback(
        service: LocalMemoryService, session: SessionState, decision: ConflictDecision,
        contents: list[str]) -> None:
    old = service.save("Node 18").entry
    asked: list[ConflictRequest] = []

    async def resolve(request: ConflictRequest):
        asked.append(request)
        return decision, old.id if decision == ConflictDecision.REPLACE else None

    await _tool(service).run({"content": "Node 20"}, _context(service, session, resolve))
    assert asked[0].new_content == "Node 20" and asked[0].existing[0].id == old.id
    assert [e.content for e in service.list_visible()] == contents


async def test_tool_refuses_secrets_and_bad_arguments(service: LocalMemoryService,
                                                      session: SessionState) -> None:
    tool = _tool(service)
    context = _context(service, session)
    assert (await tool.run({"content": "the api key is sk-live-abcdef123456"}, context)).status \
        == "denied"
    assert (await tool.run({"content": ""}, context)).status == "failed"
    assert (await tool.run({"content": "x y z", "scope": "team"}, context)).status == "failed"
    assert service.list_visible() == []


async def test_tool_saves_unverified_agent_memories(service: LocalMemoryService,
                                                    session: SessionState) -> None:
    out = await _tool(service).run({"content": "I prefer short answers", "scope": "global"},
                                   _context(service, session))
    (entry,) = service.list_visible()
    assert out.status == "done" and entry.id in out.content
    assert entry.source == "agent" and entry.verification == "unverified" and entry.is_global


def test_project_rules_come_from_pai_md(service: LocalMemoryService, project_dir: Path) -> None:
    (project_dir / "PAI.md").write_text("Use tabs.", encoding="utf-8")
    rules = service.project_rules()
    assert rules.text == "Use tabs." and rules.files[0].endswith("PAI.md")


async def test_tool_links_a_source_file(service: LocalMemoryService, session: SessionState,
                                        project_dir: Path) -> None:
    (project_dir / "pom.xml").write_text("<project/>", encoding="utf-8")
    tool = _tool(service)
    assert "conflict" in tool.description
    out = await tool.run({"content": "项目使用 Java 17", "source_file": "pom.xml"},
                         _context(service, session))
    (entry,) = service.list_visible()
    assert out.status == "done" and entry.source_file == "pom.xml"
    bad = await tool.run({"content": "We use Gradle", "source_file": "/etc/passwd"},
                         _context(service, session))
    assert bad.status == "failed" and "inside the project" in bad.content
