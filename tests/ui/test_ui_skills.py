"""/skills and /mcp in the chat: what the model can load or call, and what is broken."""

from __future__ import annotations

from pilot_helpers import wait_until
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.core.messages import Message
from paicli_tui.core.skills import SkillCatalog
from paicli_tui.paths import ProjectPaths
from paicli_tui.ui.widgets.chat_log import ChatLog
from paicli_tui.ui.widgets.notice import ChatNotice
from paicli_tui.ui.widgets.prompt_input import PromptInput


def _skill(folder, name: str, front: str) -> None:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\n{front}\n---\nbody\n", encoding="utf-8")


async def _run_command(pilot, app, command: str) -> None:
    """Type ``command`` into the input, send it, wait until it has answered."""
    await pilot.pause()
    app.screen.query_one(PromptInput).load_text(command)
    await pilot.press("enter")
    await app.workers.wait_for_complete()
    await pilot.pause(0.3)


async def _skills_notice(app, command: str = "/skills") -> str:
    async with app.run_test(size=(100, 30)) as pilot:
        await _run_command(pilot, app, command)
        return "\n".join(n.source for n in app.screen.query_one(ChatLog).query(ChatNotice))


async def test_skills_lists_good_and_broken_ones(settings, project_dir) -> None:
    folder = ProjectPaths.for_dir(project_dir).skills_dirs(settings.home)[1]  # .claude/skills
    _skill(folder, "deploy", "name: deploy\ndescription: Ship to staging.")
    _skill(folder, "oops", "name: oops")
    session = FakeSession()
    session.skills = SkillCatalog.discover(ProjectPaths.for_dir(project_dir), settings.home)
    backend = FakeBackend(settings, project_dir, session=session, client=None)
    text = await _skills_notice(PaicliApp(settings, project_dir, backend=backend))
    assert "`deploy` (claude): Ship to staging." in text
    assert "Left out" in text and "no 'description'" in text


async def test_skills_uses_the_sessions_catalog(settings, project_dir) -> None:
    session = FakeSession(script=[])
    folder = settings.home.skills_dir
    _skill(folder, "notes", "name: notes\ndescription: Meeting notes format.")
    session.skills = SkillCatalog.discover(ProjectPaths.for_dir(project_dir), settings.home)
    backend = FakeBackend(settings, project_dir, session=session, client=FakeClient())
    text = await _skills_notice(PaicliApp(settings, project_dir, backend=backend))
    assert "`notes` (home): Meeting notes format." in text


async def test_mcp_without_servers_says_how_to_add_one(settings, project_dir) -> None:
    backend = FakeBackend(settings, project_dir, session=FakeSession(), client=None)
    text = await _skills_notice(PaicliApp(settings, project_dir, backend=backend), "/mcp")
    assert "No MCP servers" in text and "[mcp_servers.files]" in text
    # the file to edit is named as a path the person can open, not as a variable
    assert f"Add one to {settings.home.config_file}" in text.replace("`", "")
    assert "PAICLI_HOME/config.toml" not in text


def _warnings(app: PaicliApp) -> list:
    return [n.source for n in app.screen.query(ChatNotice) if n.kind == "warning"]


async def test_a_server_that_did_not_start_is_said_when_the_session_opens(settings,
                                                                          project_dir):
    """Found in tmux: with a server in config.toml whose command does not exist, the chat
    opened as if all were well; its tools were just missing until the person thought of
    `/mcp`. A person now sees, under the welcome line, a warning naming the server and why
    (`command not found: …`), and an unapproved .mcp.json, with `/mcp` for the details.
    With every server running nothing is said."""
    from paicli_tui.core.mcp import McpManager
    from paicli_tui.core.mcp.config import McpServerConfig
    from paicli_tui.core.mcp.status import ServerStatus

    broken = ServerStatus(McpServerConfig(name="broken", command="/nonexistent/mcp-server"),
                          state="failed", error="command not found: /nonexistent/mcp-server")
    running = ServerStatus(McpServerConfig(name="files", command="npx"), state="running")
    for statuses, problems, expected in (
            ([broken, running], ["1 server in .mcp.json not started: not approved."],
             ["`broken` did not start: command not found: /nonexistent/mcp-server",
              "1 server in .mcp.json not started", "`/mcp` shows every server and its log"]),
            ([running], [], [])):
        session = FakeSession()
        session.mcp = McpManager(statuses, problems)
        backend = FakeBackend(settings, project_dir, session=session, client=FakeClient())
        app = PaicliApp(settings, project_dir, backend=backend)
        async with app.run_test(size=(80, 24)) as pilot:
            # a loaded machine opens the session late: wait for it, not for a fixed time
            await wait_until(pilot, lambda a=app: a.screen.session is not None)
            if expected:
                await wait_until(pilot, lambda a=app: bool(_warnings(a)))
            await pilot.pause(0.3)
            warnings = _warnings(app)
        if expected:
            assert len(warnings) == 1 and all(part in warnings[0] for part in expected)
            assert "`files`" not in warnings[0]
        else:
            assert warnings == []


async def test_init_drafts_pai_md_for_review_and_never_overwrites(settings, project_dir):
    from textual.widgets import TextArea

    (project_dir / "go.mod").write_text("module demo\n")
    backend = FakeBackend(settings, project_dir, session=FakeSession(), client=None)
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.screen.query_one(PromptInput).load_text("/init")
        await pilot.press("enter")
        for _ in range(50):
            await pilot.pause()
            if app.screen.query(TextArea):
                break
        editor = app.screen.query_one(TextArea)
        assert "Test: `go test ./...`" in editor.text
        editor.insert("\n- Our own rule.\n")
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        written = (project_dir / "PAI.md").read_text()
        assert "go test ./..." in written and "Our own rule." in written
        app.screen.query_one(PromptInput).load_text("/init")
        await pilot.press("enter")
        await pilot.pause()
        notices = "\n".join(n.source for n in app.screen.query_one(ChatLog).query(ChatNotice))
        assert "never overwrites" in notices
        assert (project_dir / "PAI.md").read_text() == written


def test_inspector_names_the_rule_files(tmp_path) -> None:
    from paicli_tui.core.contracts.services import ProjectRules
    from paicli_tui.ui.screens.context_inspector import rules_line

    rules = ProjectRules(text="x", files=(str(tmp_path / "PAI.md"), str(tmp_path / "AGENTS.md"),
                                          "/home/me/.paicli/PAI.md"), truncated=True)
    line = rules_line(rules, tmp_path)
    assert line == ("project rules: PAI.md, AGENTS.md, /home/me/.paicli/PAI.md "
                    "(cut at 24,000 characters)")
    assert "/init drafts one" in rules_line(None, tmp_path)


async def test_mcp_how_to_has_one_blank_row_before_its_toml(settings, project_dir) -> None:
    """Found in tmux (a known item): `/mcp` with no servers showed two blank rows between
    "Add one to … (or a project's .mcp.json):" and the TOML to paste (the paragraph's margin
    and the code block's empty first row). A person now sees one blank row, then
    `[mcp_servers.files]` on the code block's first row; the same for a reply's code."""
    from textual.widgets import Label
    from textual.widgets._markdown import MarkdownFence, MarkdownParagraph

    backend = FakeBackend(settings, project_dir, session=FakeSession(), client=None)
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=(80, 24)) as pilot:
        await _run_command(pilot, app, "/mcp")
        notice = next(n for n in app.screen.query(ChatNotice) if "No MCP servers" in n.source)
        paragraph = notice.query(MarkdownParagraph).first()
        fence = notice.query_one(MarkdownFence)
        code = fence.query_one(Label)
        assert fence.region.y - paragraph.region.bottom == 1
        assert code.region.y == fence.region.y
        first_row = code.render_lines(code.region.reset_offset)[0].text
        assert "[mcp_servers.files]" in first_row


async def test_skills_says_a_skill_written_since_the_start_is_not_offered_yet(
        settings, project_dir) -> None:
    folder = ProjectPaths.for_dir(project_dir).skills_dirs(settings.home)[1]  # .claude/skills
    session = FakeSession(script=[], history=[Message.system("sys"), Message.user("hi"),
                                                  Message.assistant("hello")])
    session.skills = SkillCatalog.discover(ProjectPaths.for_dir(project_dir), settings.home)
    _skill(folder, "gotest", "name: gotest\ndescription: Run go tests with -race.")
    backend = FakeBackend(settings, project_dir, session=session, client=FakeClient())
    text = await _skills_notice(PaicliApp(settings, project_dir, backend=backend))
    assert text.startswith("No skills.")  # what the model is offered
    assert ("Changed in the skill folders since this session started (new: `gotest`). "
            "The model is offered the skills it started with: quit and reopen it "
            "(`paicli-tui --resume s1`) to offer the new set.") in text


async def test_skills_says_restart_when_nothing_was_said_to_resume(settings, project_dir):
    session = FakeSession(script=[])
    session.skills = SkillCatalog.discover(ProjectPaths.for_dir(project_dir), settings.home)
    _skill(settings.home.skills_dir, "notes", "name: notes\ndescription: Meeting notes.")
    backend = FakeBackend(settings, project_dir, session=session, client=FakeClient())
    text = await _skills_notice(PaicliApp(settings, project_dir, backend=backend))
    assert "(new: `notes`). The model is offered the skills it started with: restart " \
           "paicli-tui to offer the new set." in text


async def test_mcp_names_a_project_file_written_after_the_start(settings, project_dir):
    backend = FakeBackend(settings, project_dir, session=FakeSession(), client=FakeClient())
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        (project_dir / ".mcp.json").write_text('{"mcpServers": {"echo": {"command": "x"}}}')
        await _run_command(pilot, app, "/mcp")
        text = "\n".join(n.source for n in app.screen.query_one(ChatLog).query(ChatNotice))
    assert "No MCP servers" not in text
    assert (f"1 server in {project_dir / '.mcp.json'} not started: the file was written "
            "after this session started. Review it, then `/mcp approve`.") in text
