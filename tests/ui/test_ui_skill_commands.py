"""A skill runs by its name as a slash command, as in Claude Code: ``/release v1.4`` asks the
model to load and follow the skill, and the slash menu lists the skills after the commands."""

from __future__ import annotations

import pytest
from pilot_helpers import wait_until
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.core.messages import Role
from paicli_tui.core.skills import SkillCatalog
from paicli_tui.paths import ProjectPaths
from paicli_tui.ui.skill_commands import skill_request
from paicli_tui.ui.widgets.chat_log import ChatLog
from paicli_tui.ui.widgets.notice import ChatNotice
from paicli_tui.ui.widgets.prompt_input import PromptInput
from paicli_tui.ui.widgets.slash_menu import SlashMenu
from paicli_tui.ui.widgets.user_message import UserMessage


def app_with_skills(settings, project_dir, *names: str) -> tuple[PaicliApp, FakeSession]:
    folder = ProjectPaths.for_dir(project_dir).skills_dirs(settings.home)[1]  # .claude/skills
    for name in names:
        path = folder / name / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_text(f"---\nname: {name}\ndescription: How we {name}.\n---\nSteps.\n",
                        encoding="utf-8")
    session = FakeSession()
    session.skills = SkillCatalog.discover(ProjectPaths.for_dir(project_dir), settings.home)
    backend = FakeBackend(settings, project_dir, session=session, client=FakeClient())
    return PaicliApp(settings, project_dir, backend=backend), session


def sent(session: FakeSession) -> list[str]:
    return [m.content for m in session.history if m.role is Role.USER]


@pytest.mark.parametrize("typed,expected", [
    ("/release v1.4", 'Use the skill "release": load it with load_skill, then follow it for '
                      "this: v1.4"),
    ("/release", 'Use the skill "release": load it with load_skill, then follow it.'),
])
async def test_a_skill_typed_as_a_command_asks_the_model_to_use_it(settings, project_dir,
                                                                    typed, expected) -> None:
    """It said "Unknown command /release. Did you mean /resume?" and sent nothing."""
    app, session = app_with_skills(settings, project_dir, "release", "help")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        await pilot.pause()
        app.screen.query_one(PromptInput).load_text(typed)
        await pilot.press("enter")
        await wait_until(pilot, lambda: sent(session) == [expected])
        log = app.screen.query_one(ChatLog)
        assert [str(m.content) for m in log.query(UserMessage)] == [typed]
        assert not [n for n in log.query(ChatNotice) if "Unknown command" in str(n.source)]


async def test_the_slash_menu_lists_skills_after_the_commands(settings, project_dir) -> None:
    app, session = app_with_skills(settings, project_dir, "release", "help")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        await pilot.pause()
        await pilot.press("/", "r", "e")
        menu = app.screen.query_one(SlashMenu)
        await wait_until(pilot, lambda: menu.display)
        assert [c.name for c in menu.matches] == ["/resume", "/release"]
        assert menu.matches[1].help == "Skill: How we release."
        await pilot.press("escape")
        # a skill named as a program command is left to the command: /help opens the help
        app.screen.query_one(PromptInput).load_text("/help")
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert sent(session) == []


def test_what_the_model_is_sent_names_the_skill_and_the_request() -> None:
    assert skill_request("deploy", "to staging") == (
        'Use the skill "deploy": load it with load_skill, then follow it for this: to staging')
