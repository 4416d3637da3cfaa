"""``@`` in the chat input offers the project's files, as Claude Code's does: typed key by
key, Tab and ↑↓ choose, Enter puts the path in (it does not send), Esc closes; the message
then goes out as typed, and the turn's notice says what was attached."""

from __future__ import annotations

from pathlib import Path

import pytest
from pilot_helpers import wait_until
from rich.console import Console
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.core.agent.mentions import mentioned_paths
from paicli_tui.core.contracts import events as ev
from paicli_tui.ui.widgets.mention_words import mention_at, menu_entries
from paicli_tui.ui.widgets.prompt_input import PromptInput
from paicli_tui.ui.widgets.slash_menu import SlashMenu


def _files(root: Path) -> None:
    for name in ("src/app.py", "src/apply.py", "README.md", "docs/a b.md", "build/out.js"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n", encoding="utf-8")
    (root / ".gitignore").write_text("build/\n", encoding="utf-8")


def _app(settings, project_dir: Path, session: FakeSession | None = None) -> PaicliApp:
    return PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=session or FakeSession(), client=FakeClient()))


def test_the_at_word_at_the_cursor() -> None:
    assert mention_at("see @src/ap", 0, 11).typed == "src/ap"
    assert mention_at("see @", 0, 5).typed == ""
    assert mention_at("mail me@host", 0, 12) is None      # not a word starting with @
    assert mention_at("see @src/ap now", 0, 8) is None    # the cursor is mid-word
    assert mention_at("see @src/app.py ", 0, 16) is None  # the word is finished


@pytest.mark.parametrize("path", ["docs/a b.md", "docs/会议\u3000记录.md",
                                  "docs/no\u00a0break.md", "src/app.py"])
def test_a_path_the_menu_puts_in_is_read_back_whole(path: str) -> None:
    """Whatever blank a name holds, the word the menu puts in names the whole path."""
    word = menu_entries([path])[0].name
    assert mentioned_paths(f"see {word} please") == [path]


async def test_typing_an_at_word_offers_files_and_enter_picks(settings, project_dir):
    _files(project_dir)
    session = FakeSession(script=[ev.FilesAttached(files=(("src/app.py", 1, 1),))])
    app = _app(settings, project_dir, session)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        prompt = app.screen.query_one(PromptInput)
        menu = app.screen.query_one(SlashMenu)
        await pilot.press(*"explain @ap")
        await wait_until(pilot, lambda: menu.display and bool(menu.matches))
        assert [m.name for m in menu.matches] == ["@src/app.py", "@src/apply.py"]
        console = Console(width=80, record=True)
        console.print(menu.renderable(80))
        assert "Enter picks" in console.export_text()
        await pilot.press("tab")
        assert prompt.text == "explain @src/app.py"
        await pilot.press("tab")  # the next one, in the same place
        assert prompt.text == "explain @src/apply.py"
        await pilot.press("up", "enter")
        assert prompt.text == "explain @src/app.py " and not menu.display  # not sent
        await pilot.press(*"please", "enter")
        await wait_until(pilot, lambda: bool(session.history))
        assert session.history[-1].content == "explain @src/app.py please"
        await wait_until(pilot, lambda: "Attached src/app.py (1 line)." in [
            str(n.source) for n in app.screen.query("ChatNotice")])


async def test_ignored_files_are_not_offered_and_esc_closes(settings, project_dir):
    _files(project_dir)
    app = _app(settings, project_dir)
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        prompt = app.screen.query_one(PromptInput)
        menu = app.screen.query_one(SlashMenu)
        await pilot.press("@")
        await wait_until(pilot, lambda: menu.display and bool(menu.matches))
        names = [m.name for m in menu.matches]
        assert "@README.md" in names and not any("build/" in n for n in names)
        await pilot.press(*"a b")  # a path with a blank is offered quoted
        await pilot.press("backspace", "backspace")
        await pilot.press("escape")
        assert not menu.display and prompt.text == "@a"
        await pilot.press("backspace", "backspace", *"@docs/a")
        await wait_until(pilot, lambda: menu.display and bool(menu.matches))
        assert [m.name for m in menu.matches] == ['@"docs/a b.md"']
        await pilot.press("tab")  # the only match: completed with a space, the menu closes
        assert prompt.text == '@"docs/a b.md" ' and not menu.display


async def test_a_resumed_message_says_what_it_attached(settings, project_dir):
    from paicli_tui.core.messages import Message, Role

    asked = Message(Role.USER, "<turn context>\n\nexplain @a.py\n\n<tool_result …>",
                    meta={"user_input": "explain @a.py", "attached": ["a.py"]})
    history = [Message.system("sys"), asked, Message.assistant("It prints.")]
    backend = FakeBackend(settings, project_dir, session=FakeSession(history=history),
                          client=FakeClient())
    app = PaicliApp(settings, project_dir, resume="a1b2c3", backend=backend)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: "Attached a.py." in [
            str(n.source) for n in app.screen.query("ChatNotice")])
