"""Commands that take something out of the session: /copy puts the model's last answer on the
clipboard and says how much it copied, or that there is nothing to copy; /export writes the
conversation as Markdown, masked of keys, and never over a file without asking; /diff opens
the work tree's changes (or the agent's last turn) in a dialog, or says why there are none."""

from __future__ import annotations

import subprocess
from datetime import datetime

import pytest
from pilot_helpers import wait_for_screen, wait_until
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.config import load_settings
from paicli_tui.core.agent.git_changes import NOT_A_REPOSITORY
from paicli_tui.core.messages import Message, ToolCall
from paicli_tui.ui.modals.confirm import ConfirmModal
from paicli_tui.ui.modals.diff_view import DiffModal
from paicli_tui.ui.screens.chat import ChatScreen
from paicli_tui.ui.screens.chat_outputs import TURN_VIEW
from paicli_tui.ui.widgets.chat_log import ChatLog
from paicli_tui.ui.widgets.notice import ChatNotice
from paicli_tui.ui.widgets.prompt_input import PromptInput

SIZE = (100, 30)


def make_app(settings, project, history=()):
    backend = FakeBackend(settings, project, session=FakeSession(history=history),
                          client=FakeClient())
    return PaicliApp(settings, project, backend=backend)


def notices(app) -> list[str]:
    """The chat's notices (the chat screen under any dialog)."""
    chat = next(s for s in app.screen_stack if isinstance(s, ChatScreen))
    return [str(n.source) for n in chat.query_one(ChatLog).query(ChatNotice)]


async def send(pilot, text: str) -> None:
    await wait_until(pilot, lambda: getattr(pilot.app.screen, "session", None) is not None)
    pilot.app.screen.query_one(PromptInput).load_text(text)
    await pilot.press("enter")


ANSWERED = [
    Message.user("why does it crash?"),
    Message.assistant("First answer."),
    Message.user("and the fix?"),
    Message.assistant("", tool_calls=[ToolCall("c1", "read_file", '{"path": "a.py"}')]),
    Message.tool("c1", "read_file", "x = 1", status="done"),
    Message.assistant("Line one\nLine two\n修复：line three"),
    # a reply that only calls tools is not the answer
    Message.assistant("", tool_calls=[ToolCall("c2", "read_file", '{"path": "b.py"}')]),
    Message.tool("c2", "read_file", "y = 2", status="done"),
]


@pytest.mark.parametrize(("history", "copied", "said"), [
    (ANSWERED, "Line one\nLine two\n修复：line three",
     "Copied the last answer to the clipboard: 3 lines, 31 characters."),
    (ANSWERED[:2], "First answer.",
     "Copied the last answer to the clipboard: 1 line, 13 characters."),
    ([], None, "Nothing to copy: the model has not answered yet in this conversation."),
    (ANSWERED[:1], None, "Nothing to copy: the model has not answered yet in this "
                         "conversation."),
])
async def test_copy_puts_the_last_answer_on_the_clipboard(settings, project_dir, history,
                                                          copied, said) -> None:
    app = make_app(settings, project_dir, history)
    taken: list[str] = []
    app.copy_to_clipboard = taken.append
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/copy")
        await wait_until(pilot, lambda: any(said in n for n in notices(app)))
        assert taken == ([copied] if copied is not None else [])


KEY = "sk-export-0123456789abcdef0123"


class FixedClock(datetime):
    @classmethod
    def now(cls, tz=None):
        return cls(2026, 3, 1, 9, 5)


async def test_export_writes_a_new_file_under_the_project(paicli_home, project_dir,
                                                          monkeypatch) -> None:
    monkeypatch.setattr("paicli_tui.ui.screens.chat_outputs.datetime", FixedClock)
    settings = load_settings({}, {"PAICLI_HOME": str(paicli_home), "DEEPSEEK_API_KEY": KEY})
    history = [*ANSWERED, Message.user(f"is {KEY} safe here?"),
               Message.assistant(f"No: {KEY} is a key.")]
    app = make_app(settings, project_dir, history)
    async with app.run_test(size=SIZE) as pilot:
        for count in (1, 2):  # the second goes to a new file beside the first
            await send(pilot, "/export")
            await wait_until(pilot, lambda wanted=count: sum(
                "Exported" in n for n in notices(app)) == wanted)
        said = [n for n in notices(app) if "Exported" in n]
    folder = project_dir / ".paicli" / "exports"
    written = [folder / "conversation-s1-20260301-0905.md",
               folder / "conversation-s1-20260301-0905-2.md"]
    assert sorted(folder.iterdir()) == sorted(written)
    assert said[0] == ("Exported the conversation (3 messages from you, 2 tool calls) to "
                       f"`{written[0]}`.")
    text = written[0].read_text(encoding="utf-8")
    assert "## You\n\nwhy does it crash?" in text
    assert "- ✓ `read_file path=a.py` · done" in text
    assert KEY not in text and "No: **** is a key." in text
    # kept out of git status (and so out of /diff)
    assert (project_dir / ".paicli" / ".gitignore").read_text() == "*\n"


async def test_export_before_any_message_writes_nothing(settings, project_dir) -> None:
    """Found in tmux: a session of only !commands exported 'the conversation (0 messages
    from you, 0 tool calls)' to a new file holding one heading line. Before any message
    there is nothing to export, and the chat says so."""
    app = make_app(settings, project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/export")
        await wait_until(pilot, lambda: any("export" in n for n in notices(app)),
                         explain=lambda: notices(app))
        assert "Nothing to export: no message has been sent in this conversation yet. " \
            "Nothing was written." in notices(app)
    assert not (project_dir / ".paicli" / "exports").exists()


async def test_export_never_follows_a_dot_dir_leading_out(settings, project_dir,
                                                          tmp_path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project_dir / ".paicli").symlink_to(elsewhere)
    app = make_app(settings, project_dir, ANSWERED)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/export")
        await wait_until(pilot, lambda: any("Not exported" in n for n in notices(app)))
        said = next(n for n in notices(app) if "Not exported" in n)
    assert said.startswith("Not exported: .paicli/exports leads outside the project (to ")
    assert said.endswith(f"{elsewhere}/exports). `/export PATH` writes where you say.")
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize(("answer", "kept"), [("n", True), ("y", False)])
async def test_export_asks_before_replacing_a_file(settings, project_dir, answer, kept) -> None:
    target = project_dir / "notes.md"
    target.write_text("my notes", encoding="utf-8")
    app = make_app(settings, project_dir, ANSWERED)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/export notes.md")
        await wait_for_screen(pilot, ConfirmModal)
        assert app.screen.body == (f"{target} exists. Replacing it loses what it holds.")
        await pilot.press(answer)
        word = "left as it is" if kept else "Exported"
        await wait_until(pilot, lambda: any(word in n for n in notices(app)))
    text = target.read_text(encoding="utf-8")
    assert (text == "my notes") is kept
    assert kept or "## Assistant" in text


async def test_export_over_a_link_says_the_file_it_leads_to_is_kept(settings, project_dir,
                                                                    tmp_path) -> None:
    """Writing over notes.md, a link to a file elsewhere, replaces the link: the question
    said 'Replacing it loses what it holds', and the file linked to was in fact kept."""
    kept = tmp_path / "vault" / "notes.md"
    kept.parent.mkdir()
    kept.write_text("my notes", encoding="utf-8")
    (project_dir / "notes.md").symlink_to(kept)
    app = make_app(settings, project_dir, ANSWERED)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/export notes.md")
        await wait_for_screen(pilot, ConfirmModal)
        assert app.screen.body == (
            f"{project_dir / 'notes.md'} is a link to {kept}. Replace puts the export in "
            "place of the link; the file it leads to is left as it is.")
        await pilot.press("y")
        await wait_until(pilot, lambda: any("Exported" in n for n in notices(app)))
    assert kept.read_text(encoding="utf-8") == "my notes"
    assert not (project_dir / "notes.md").is_symlink()
    assert "## Assistant" in (project_dir / "notes.md").read_text(encoding="utf-8")


async def test_export_to_a_folder_or_through_a_file_says_why(settings, project_dir) -> None:
    (project_dir / "docs").mkdir()
    (project_dir / "a.txt").write_text("a file, not a folder", encoding="utf-8")
    app = make_app(settings, project_dir, ANSWERED)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/export docs")
        await wait_until(pilot, lambda: any("is a folder" in n for n in notices(app)))
        await send(pilot, "/export a.txt/chat.md")
        await wait_until(pilot, lambda: any("Cannot write" in n for n in notices(app)),
                         explain=lambda: notices(app))
        assert "`docs` is a folder: name a file in it. Nothing was written." in notices(app)
        assert "Cannot write `" + str(project_dir / "a.txt" / "chat.md") + "`: Not a " \
            "directory. Nothing was exported." in notices(app)


def git(root, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root,
                   check=True, capture_output=True)


@pytest.fixture
def own_git(tmp_path, monkeypatch):
    """git without the machine's configuration, and no repository above the project."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))


async def test_diff_shows_the_work_tree_in_a_dialog(settings, project_dir, own_git) -> None:
    git(project_dir, "init", "-q")
    (project_dir / "app.py").write_text("a = 1\n", encoding="utf-8")
    git(project_dir, "add", "app.py")
    git(project_dir, "commit", "-qm", "first")
    app = make_app(settings, project_dir, ANSWERED)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/diff")
        await wait_until(pilot, lambda: any("No changes" in n for n in notices(app)))
        (project_dir / "app.py").write_text("a = 2\n", encoding="utf-8")
        (project_dir / "new.md").write_text("hello\n", encoding="utf-8")
        await send(pilot, "/diff")
        await wait_for_screen(pilot, DiffModal)
        view = app.screen.view
        assert [(f.path, f.added, f.removed) for f in view.files] == \
            [("app.py", 1, 1), ("new.md", 1, 0)]
        assert "-a = 1\n+a = 2\n" in view.diff
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen))
        assert "No changes: the work tree matches HEAD and holds no untracked file " \
            "(ignored files left out)." in notices(app)


@pytest.mark.parametrize(("typed", "said"), [
    ("/diff", NOT_A_REPOSITORY + " " + TURN_VIEW),
    ("/diff turn", "The agent changed no file in this session (or `/undo` put back every "
                   "change), so there is no turn to show."),
    ("/diff everything", "Usage: `/diff` (the work tree against HEAD) or `/diff turn` (the "
                         "agent's last turn)"),
])
async def test_diff_says_why_it_has_nothing_to_show(settings, project_dir, own_git, typed,
                                                    said) -> None:
    app = make_app(settings, project_dir, ANSWERED)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, typed)
        await wait_until(pilot, lambda: said in notices(app), explain=lambda: notices(app))
        assert isinstance(app.screen, ChatScreen)


async def test_diff_turn_opens_the_agents_last_turn(settings, project_dir) -> None:
    from ui_chat_scenes import turn_diff_view

    session = FakeSession(history=ANSWERED)
    session.turn_diff = turn_diff_view()
    backend = FakeBackend(settings, project_dir, session=session, client=FakeClient())
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/diff turn")
        await wait_for_screen(pilot, DiffModal)
        assert app.screen.view is session.turn_diff
