"""The chat input's invariants, driven by keys as a person types them: typing always reaches
the input, Tab cycles the slash menu without leaving it, Esc brings the focus back, messages
typed during a turn are queued (and edited, cancelled, sent or returned), long pastes fold,
Alt+Enter (ESC CR from a terminal) is a new line."""

from __future__ import annotations

import asyncio

import pytest
from pilot_helpers import wait_until
from rich.console import Console
from textual import events
from textual._xterm_parser import XTermParser
from textual.widgets import Static
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.core.contracts import events as ev
from paicli_tui.core.messages import Message
from paicli_tui.ui.widgets.assistant_block import AssistantBlock
from paicli_tui.ui.widgets.chat_log import ChatLog
from paicli_tui.ui.widgets.prompt_input import PromptInput
from paicli_tui.ui.widgets.slash_menu import SlashMenu
from paicli_tui.ui.widgets.user_message import UserMessage

SIZE = (100, 30)


def make_app(settings, project, session, client=None):
    backend = FakeBackend(settings, project, session=session, client=client or FakeClient())
    return PaicliApp(settings, project, backend=backend)


async def started(pilot) -> None:
    """The session starts in a worker: wait for it before typing."""
    await wait_until(pilot, lambda: pilot.app.screen.session is not None)
    await pilot.pause()


def rendered(renderable) -> str:
    console = Console(width=100)
    with console.capture() as capture:
        console.print(renderable)
    return capture.get()


def held_turn_session() -> FakeSession:
    """A session whose turn writes 'Working' and then waits until it is cancelled."""
    return FakeSession(script=[ev.TextDelta("Working"), asyncio.Event()])


async def start_a_turn(pilot, text: str) -> PromptInput:
    """Type ``text``, send it and wait until the turn runs; the input is returned."""
    await started(pilot)
    prompt = pilot.app.screen.query_one(PromptInput)
    await pilot.press(*text, "enter")
    await wait_until(pilot, lambda: pilot.app.screen.turn_running)
    return prompt


def user_texts(app) -> list[str]:
    return [str(w.render()) for w in app.screen.query(UserMessage)]


async def test_tab_cycles_the_slash_menu_and_the_focus_stays_in_the_input(settings,
                                                                         project_dir):
    app = make_app(settings, project_dir, FakeSession())
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        prompt = app.screen.query_one(PromptInput)
        menu = app.screen.query_one(SlashMenu)
        await pilot.press("slash", "m")
        await pilot.pause()
        assert menu.display and [c.name for c in menu.matches] == ["/memory", "/mcp", "/model"]
        assert "Open the memory browser" in rendered(menu.renderable())
        await pilot.press("tab")
        assert prompt.text == "/memory" and app.focused is prompt
        await pilot.press("tab")
        assert prompt.text == "/mcp" and app.focused is prompt
        await pilot.press("tab", "tab")
        assert prompt.text == "/memory"  # past the last, back to the first
        await pilot.press("shift+tab")
        assert prompt.text == "/model" and app.focused is prompt
        assert menu.highlighted == 2
        # what is typed next still goes into the input
        await pilot.press("space", "x")
        assert prompt.text == "/model x" and app.focused is prompt
        await pilot.pause()
        assert not menu.display


async def test_the_only_match_completes_with_a_space_and_closes_the_menu(settings,
                                                                        project_dir):
    app = make_app(settings, project_dir, FakeSession())
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        prompt = app.screen.query_one(PromptInput)
        await pilot.press("slash", "c", "o", "m", "tab")
        await pilot.pause()
        assert prompt.text == "/compact "
        assert not app.screen.query_one(SlashMenu).display
        # a name with no match: Tab stays in the input too
        prompt.load_text("/zz")
        await pilot.press("tab")
        assert app.focused is prompt and prompt.text == "/zz"


async def test_enter_runs_the_highlighted_command(settings, project_dir):
    app = make_app(settings, project_dir, FakeSession())
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("slash", "h", "e")
        await pilot.pause()
        await pilot.press("enter")
        for _ in range(20):
            await pilot.pause(0.05)
            if type(app.screen).__name__ == "HelpScreen":
                break
        assert type(app.screen).__name__ == "HelpScreen"


async def test_a_command_with_arguments_is_put_in_the_input_not_run(settings, project_dir):
    app = make_app(settings, project_dir, FakeSession())
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        prompt = app.screen.query_one(PromptInput)
        await pilot.press("slash", "s", "a")
        await pilot.pause()
        await pilot.press("enter")
        assert prompt.text == "/save "


async def test_esc_closes_the_menu_first_and_keeps_the_text(settings, project_dir):
    app = make_app(settings, project_dir, FakeSession())
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        prompt = app.screen.query_one(PromptInput)
        await pilot.press("slash", "m")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert not app.screen.query_one(SlashMenu).display
        assert prompt.text == "/m" and app.focused is prompt


async def test_typing_anywhere_in_the_chat_reaches_the_input_and_esc_returns(settings,
                                                                            project_dir):
    script = [ev.ToolCallStarted("c1", "read_file", '{"path": "a.py"}'),
              ev.ToolCallFinished("c1", "read_file", "done", "print(1)", 8),
              ev.TextDelta("Done."), ev.AssistantMessage("Done.")]
    app = make_app(settings, project_dir, FakeSession(script=script))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        prompt = app.screen.query_one(PromptInput)
        prompt.load_text("go")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        # Tab from the empty input walks into the chat (to unfold tool blocks) ...
        await pilot.press("tab")
        assert app.focused is not prompt
        # ... and a printable key typed there goes to the input, not lost
        await pilot.press("h", "i")
        assert prompt.text == "hi" and app.focused is prompt
        # focus a tool block title (as a click would) and type: still the input
        title = app.screen.query_one(ChatLog).query("CollapsibleTitle").first()
        title.focus()
        await pilot.pause()
        await pilot.press("!")
        assert prompt.text == "hi!" and app.focused is prompt
        # Esc from anywhere in the chat comes back to the input
        app.screen.query_one(ChatLog).focus()
        await pilot.pause()
        await pilot.press("escape")
        assert app.focused is prompt


async def test_a_message_typed_during_a_turn_is_queued_editable_and_sent_after(settings,
                                                                              project_dir):
    hold = asyncio.Event()
    script = [ev.RequestStarted(1, 1_000, 128_000, 57_000, 95_000), ev.TextDelta("Working"),
              hold, ev.AssistantMessage("Working")]
    session = FakeSession(script=script)
    app = make_app(settings, project_dir, session)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        prompt = app.screen.query_one(PromptInput)
        await pilot.press(*"first", "enter")
        await wait_until(pilot, lambda: app.screen.turn_running)
        await pilot.press(*"second", "enter")
        await pilot.pause()
        queued = app.screen.query_one("#queued", Static)
        assert queued.display and "queued: second" in str(queued.render())
        assert prompt.text == "" and prompt.queued == ["second"]
        # ↑ on the empty input brings it back to edit; Enter queues it again
        await pilot.press("up")
        assert prompt.text == "second" and prompt.queued == []
        await pilot.pause()
        assert not queued.display
        await pilot.press(*" one", "enter")
        await pilot.pause()
        assert prompt.queued == ["second one"]
        # a second queued message joins it
        await pilot.press(*"third", "enter")
        assert prompt.queued == ["second one", "third"]
        assert user_texts(app) == ["first"]
        hold.set()
        for _ in range(40):
            await pilot.pause(0.05)
            if len(user_texts(app)) == 2 and not app.screen.turn_running:
                break
        assert user_texts(app) == ["first", "second one\n\nthird"]
        user_turns = [m.content for m in session.history if m.role.value == "user"]
        assert user_turns == ["first", "second one\n\nthird"]
        assert not queued.display


async def test_a_queued_message_comes_back_to_the_input_when_the_turn_is_cancelled(
        settings, project_dir):
    app = make_app(settings, project_dir, held_turn_session())
    async with app.run_test(size=SIZE) as pilot:
        prompt = await start_a_turn(pilot, "first")
        await pilot.press(*"later", "enter")
        await pilot.pause()
        await pilot.press("escape")  # Esc still cancels the running turn
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not app.screen.turn_running
        assert prompt.text == "later" and prompt.queued == []
        assert user_texts(app) == ["first"]
        notices = [str(n.source) for n in app.screen.query("ChatNotice")]
        assert any("queued message is back in the input" in n for n in notices)


async def type_then_paste(pilot, typed: str, pasted: str) -> PromptInput:
    """Once the session runs: type ``typed`` into the input, then paste ``pasted``."""
    await started(pilot)
    prompt = pilot.app.screen.query_one(PromptInput)
    await pilot.press(*typed)
    pilot.app.post_message(events.Paste(pasted))
    return prompt


async def test_a_long_paste_folds_and_the_full_text_is_sent(settings, project_dir):
    session = FakeSession()
    app = make_app(settings, project_dir, session)
    pasted = "\n".join(f"line {i}" for i in range(12))
    async with app.run_test(size=SIZE) as pilot:
        prompt = await type_then_paste(pilot, "see: ", pasted)
        await pilot.pause()
        assert prompt.text == "see: [Pasted text #1 +12 lines]"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        sent = [m.content for m in session.history if m.role.value == "user"]
        assert sent == ["see: " + pasted]
        assert user_texts(app) == ["see: [Pasted text #1 +12 lines]"]
        # a short paste goes in as it is
        app.post_message(events.Paste("a\nb"))
        await pilot.pause()
        assert prompt.text == "a\nb"
        # pasted with the focus in the chat log: it still lands in the input
        app.screen.query_one(ChatLog).focus()
        await pilot.pause()
        app.post_message(events.Paste("c"))
        await pilot.pause()
        assert prompt.text == "a\nbc" and app.focused is prompt


async def test_backspace_removes_a_paste_token_whole(settings, project_dir):
    """Found in tmux: a 2,000-line paste read "[Pasted text #1 +2001 lines]" (the copied
    lines' last newline counted as a line), and Backspace after it took only the "]": the
    rest stayed as plain text and was sent as it stood, the paste silently lost. A person
    now sees "+2000 lines", and Backspace right after the token (or Delete right before it)
    removes the whole token, as in Claude Code; other characters delete one at a time."""
    session = FakeSession()
    app = make_app(settings, project_dir, session)
    pasted = "".join(f"line {i}\n" for i in range(2000))
    async with app.run_test(size=SIZE) as pilot:
        prompt = await type_then_paste(pilot, "see ", pasted)
        await wait_until(pilot, lambda: prompt.text == "see [Pasted text #1 +2000 lines]")
        await pilot.press("backspace")
        assert prompt.text == "see "
        await pilot.press("backspace")
        assert prompt.text == "see"
        app.post_message(events.Paste(pasted))
        await wait_until(pilot, lambda: prompt.text == "see[Pasted text #2 +2000 lines]")
        await pilot.press("home", "right", "right", "right", "delete")
        assert prompt.text == "see"
        app.post_message(events.Paste("a\nb\nc\nd\ne\n"))
        await wait_until(pilot, lambda: prompt.text.endswith("+5 lines]"))
        await pilot.press(*" ok", "enter")
        await wait_until(pilot, lambda: any(m.role.value == "user" for m in session.history))
        sent = [m.content for m in session.history if m.role.value == "user"]
        assert sent == ["seea\nb\nc\nd\ne\n ok"]


async def test_every_deleting_key_removes_a_paste_token_whole(settings, project_dir):
    """Backspace and Delete took a paste token whole, but Ctrl+W (the word before), Ctrl+D
    (Delete's other key) and Alt+D / Alt+Delete (the word after) took part of it: a plain
    "[Pasted text #1 +9" was left and sent as it stood, the paste lost. A person sees the
    token go at once with each of these keys."""
    app = make_app(settings, project_dir, FakeSession())
    left = {}
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.screen.query_one(PromptInput)
        for key in ("ctrl+w", "alt+backspace", "ctrl+d", "alt+d", "alt+delete"):
            prompt.load_text("see ")
            prompt.move_cursor((0, 4))
            app.post_message(events.Paste("".join(f"line {i}\n" for i in range(9))))
            await wait_until(pilot, lambda: prompt.text.endswith("+9 lines]"))
            if key in ("ctrl+d", "alt+d", "alt+delete"):  # just before the token
                await pilot.press("home", *["right"] * 4)
            await pilot.press(key)
            left[key] = prompt.text
    assert left == dict.fromkeys(left, "see ")


def test_alt_enter_from_a_terminal_is_its_own_key() -> None:
    """ESC CR (what tmux and most terminals send for Alt+Enter) parses as alt+enter; a
    lone CR stays Enter."""
    from paicli_tui.ui.terminal_keys import register_alt_enter

    register_alt_enter()
    keys = [e.key for e in XTermParser().feed("\x1b\rx\r") if isinstance(e, events.Key)]
    assert keys == ["alt+enter", "x", "enter"]


async def test_a_path_is_a_message_and_a_mistyped_command_comes_back(settings, project_dir):
    """Found in tmux: "/usr/bin/python3 crashes on start, why?" was refused as an unknown
    command and the text was gone from the input; "/hlep" said only "Unknown command".
    A message starting with a path is now sent as a message; a mistyped command says
    "Did you mean `/help`?" and stays in the input, cursor at its end, to be corrected."""
    session = FakeSession()
    app = make_app(settings, project_dir, session)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        prompt = app.screen.query_one(PromptInput)
        await pilot.press(*"/usr/bin/python3 crashes", "enter")
        await wait_until(pilot, lambda: user_texts(app) == ["/usr/bin/python3 crashes"])
        await wait_until(pilot, lambda: not app.screen.turn_running)
        await pilot.press(*"/hlep", "enter")
        await wait_until(pilot, lambda: any("Unknown command" in str(n.source)
                                            for n in app.screen.query("ChatNotice")))
        notice = [str(n.source) for n in app.screen.query("ChatNotice")][-1]
        assert notice == "Unknown command `/hlep`. Did you mean `/help`? Press F1 for the list."
        assert prompt.text == "/hlep" and prompt.cursor_location == (0, 5)
        await pilot.press("backspace", "backspace", "backspace", *"elp", "enter")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "HelpScreen")
        assert [m.content for m in session.history if m.role.value == "user"] == \
            ["/usr/bin/python3 crashes"]


def terminal_keys(*reads: str) -> list[events.Key]:
    """The key events a terminal's reads parse to (as the app reads them), each read
    complete in itself (the parser's wait for more runs out in between)."""
    keys: list[events.Key] = []
    for data in reads:
        parser = XTermParser()
        keys += [e for e in [*parser.feed(data), *parser.feed("")]
                 if isinstance(e, events.Key)]
    return keys


async def test_esc_then_a_key_at_once_is_esc_and_the_key(settings, project_dir):
    """Found in tmux: Esc to stop a running turn and typing straight away ("no, …") left
    the turn running and only the letter typed: the terminal sends Esc and a key that
    follows within a moment as ESC + key (tmux joins them for 500 ms by default), which
    reads as Alt+key. The person now sees "Turn cancelled." and their text in the input.
    Alt+B / Alt+F / Alt+D keep their shell meaning (a word left / right, delete a word)."""
    app = make_app(settings, project_dir, held_turn_session())
    async with app.run_test(size=SIZE) as pilot:
        prompt = await start_a_turn(pilot, "go")
        assert [k.key for k in terminal_keys("\x1bn")] == ["alt+n"]
        for key in terminal_keys("\x1bn", "o"):
            app.post_message(key)
        await wait_until(pilot, lambda: not app.screen.turn_running)
        await wait_until(pilot, lambda: prompt.text == "no")

        def notices() -> list[str]:
            return [str(n.source) for n in app.screen.query("ChatNotice")]

        # the notice is added after the turn has ended: a moment later on a busy machine
        await wait_until(pilot, lambda: any("Turn cancelled" in n for n in notices()), 30,
                         notices)
        for key in terminal_keys(*" way", "\x1bb", "X", "\x1bf", "Y", "\x1bb", "\x1bb",
                                 "\x1bd"):
            app.post_message(key)
        await wait_until(pilot, lambda: prompt.text == " XwayY")
        assert app.focused is prompt


async def test_alt_enter_and_ctrl_j_add_a_line(settings, project_dir):
    session = FakeSession()
    app = make_app(settings, project_dir, session)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        prompt = app.screen.query_one(PromptInput)
        await pilot.press("a", "alt+enter", "b", "ctrl+j", "c")
        assert prompt.text == "a\nb\nc"
        assert not session.history


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


async def test_the_status_line_moves_while_the_model_is_silent(settings, project_dir):
    """From Enter to the first token: a spinner, 'Waiting for <model>', seconds that count
    up, 'Esc to interrupt'; the first token switches it to 'Writing'; the end hides it."""
    from paicli_tui.ui.widgets.turn_status import TurnStatus

    first_token, finish = asyncio.Event(), asyncio.Event()
    script = [ev.RequestStarted(1, 1_000, 128_000, 57_000, 95_000), first_token,
              ev.TextDelta("Hello"), finish, ev.AssistantMessage("Hello")]
    app = make_app(settings, project_dir, FakeSession(script=script))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        status = app.screen.query_one(TurnStatus)
        clock = FakeClock()
        status.clock = clock
        assert not status.display
        await pilot.press(*"hi", "enter")
        await wait_until(pilot, lambda: "Waiting for" in status.line().plain)
        first = status.line().plain
        assert status.display and "Waiting for fake:scripted-1" in first
        assert "0 s" in first and "Esc to interrupt" in first
        clock.now += 3.25  # the model stays silent
        # seconds and spinner frame moved (the frame at the status's next tick: late on a
        # busy machine)
        await wait_until(pilot, lambda: "3 s" in status.line().plain
                         and status.line().plain[0] != first[0], 30,
                         lambda: status.line().plain)
        first_token.set()
        await wait_until(pilot, lambda: "Writing" in status.line().plain)
        finish.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not status.display


async def test_the_status_line_says_memories_are_recalled_before_the_request(
        settings, project_dir):
    """Between Enter and the first request the core recalls long-term memory (seconds on a
    first run while the dictionary and the embedder load). The line reads 'Recalling
    memories' with its seconds and 'Esc to interrupt' then, not a model that seems slow; the
    request switches it to 'Waiting for <model>'."""
    from paicli_tui.ui.widgets.turn_status import TurnStatus

    recalled = asyncio.Event()
    script = [ev.TurnStarted(session="s1", user_input="hi"), recalled,
              ev.RequestStarted(1, 1_000, 128_000, 57_000, 95_000), ev.TextDelta("Hello"),
              ev.AssistantMessage("Hello")]
    app = make_app(settings, project_dir, FakeSession(script=script))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        status = app.screen.query_one(TurnStatus)
        await pilot.press(*"hi", "enter")
        await wait_until(pilot, lambda: "Recalling memories" in status.line().plain)
        assert "Esc to interrupt" in status.line().plain
        recalled.set()
        await wait_until(pilot, lambda: "Recalling" not in status.line().plain)
        await app.workers.wait_for_complete()


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_a_long_status_keeps_its_seconds_and_the_key_to_stop(settings, project_dir,
                                                                   size):
    """Found in tmux: at 60 columns a sub-agent's step filled the status line and cut its
    end ("sub-agent explore indexer: grep_code · 3 s · Esc to"). A person now sees the
    seconds and "Esc to interrupt" whole, the step's name shortened with "…" before them;
    a short status is left as it is."""
    from paicli_tui.ui.widgets.turn_status import TurnStatus

    hold = asyncio.Event()
    app = make_app(settings, project_dir, FakeSession(script=[hold]))
    async with app.run_test(size=size) as pilot:
        await started(pilot)
        status = app.screen.query_one(TurnStatus)
        await pilot.press(*"hi", "enter")
        await wait_until(pilot, lambda: status.display)
        for label, cut in (("sub-agent explore the indexer and its 子任务: grep_code", True),
                           ("Writing", False)):
            status.phase(label)
            await pilot.pause(0.1)
            line = status.line()
            assert line.cell_len <= status.content_size.width
            assert line.plain.endswith(" s · Esc to interrupt")
            assert ("…" in line.plain) is cut and (label in line.plain) is not cut
        hold.set()
        await app.workers.wait_for_complete()


async def test_a_running_tool_block_counts_its_seconds(settings, project_dir):
    from paicli_tui.ui.widgets.tool_block import ToolBlock

    done = asyncio.Event()
    script = [ev.ToolCallStarted("c1", "execute_command", '{"command": "pytest -q"}'), done,
              ev.ToolCallFinished("c1", "execute_command", "done", "ok", 2)]
    app = make_app(settings, project_dir, FakeSession(script=script))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press(*"test", "enter")
        await wait_until(pilot, lambda: bool(app.screen.query(ToolBlock)))
        block = app.screen.query_one(ToolBlock)
        clock = FakeClock()
        block.clock = clock
        block.started_at = clock.now
        assert "running" in str(block.title) and " s" not in str(block.title)
        clock.now += 4.2
        await wait_until(pilot, lambda: "running 4 s" in str(block.title))  # its own timer
        assert "Running execute_command" in app.screen.status.line().plain
        clock.now += 1.0
        done.set()
        await wait_until(pilot, lambda: "done · 5.2 s" in str(block.title))


async def test_a_new_session_opens_with_the_welcome_line(settings, project_dir):
    from ui_fakes import FakeMemory, seeded_memories

    from paicli_tui.ui.widgets.setup_notice import WelcomeLine

    backend = FakeBackend(settings, project_dir, session=FakeSession(), client=FakeClient(),
                          memory_=FakeMemory(seeded_memories()))
    backend.code_.indexed = False
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: bool(app.screen.query(WelcomeLine)))
        lines = [str(w.render()) for w in app.screen.query(WelcomeLine)]
        assert lines == [f"{project_dir.name} · fake:scripted-1 · 3 memories · no code index "
                         "yet (/index builds it)\nF1 help · / commands · Ctrl+P palette · "
                         "Esc interrupts"]
        assert app.screen.query_one(PromptInput).placeholder.startswith("Ask about")


async def test_a_resumed_session_says_so_instead_of_welcoming(settings, project_dir):
    from paicli_tui.core.messages import Message
    from paicli_tui.ui.widgets.setup_notice import WelcomeLine

    history = [Message.system("sys"), Message.user("first question"),
               Message.assistant("an answer")]
    backend = FakeBackend(settings, project_dir, session=FakeSession(history=history),
                          client=FakeClient())
    app = PaicliApp(settings, project_dir, resume="a1b2c3", backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        def notices() -> list[str]:
            return [str(n.source) for n in app.screen.query("ChatNotice")]

        await wait_until(pilot, lambda: "Resumed session a1b2c3 · 1 message from you."
                         in notices())
        assert not list(app.screen.query(WelcomeLine))
        assert user_texts(app) == ["first question"]


async def test_help_scrolls_from_the_keyboard_and_esc_returns_to_the_input(settings,
                                                                           project_dir):
    from textual.containers import VerticalScroll

    from paicli_tui.ui.modals.help import HelpScreen

    app = make_app(settings, project_dir, FakeSession())
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await pilot.press("f1")
        for _ in range(40):
            await pilot.pause(0.05)
            if isinstance(app.screen, HelpScreen):
                break
        scroll = app.screen.query_one(".help-scroll", VerticalScroll)
        await pilot.pause()
        assert app.focused is scroll and scroll.max_scroll_y > 0
        await pilot.press("pagedown")
        await wait_until(pilot, lambda: scroll.scroll_y > 0)
        await pilot.press("end")
        await wait_until(pilot, lambda: scroll.scroll_y == scroll.max_scroll_y)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
        assert app.focused is app.screen.query_one(PromptInput)


@pytest.mark.parametrize("text,width,lines", [
    ("/memory [list|search|delete|verify|replace|clear] …", 60,
     ["/memory [list|search|delete|verify|replace|clear] …"]),
    ("/memory [list|search|delete|verify|replace|clear] …", 30,
     ["/memory [list|search|delete|", "  verify|replace|clear] …"]),
    ("/memory [list|search|delete|verify|replace|clear] …", 20,
     ["/memory [list|", "  search|delete|", "  verify|replace|", "  clear] …"]),
    ("/save [--global] [--force] <fact>", 20, ["/save [--global]", "  [--force] <fact>"]),
    ("/save [--global] [--force] <fact>", 16, ["/save [--global]", "  [--force]", "  <fact>"]),
    ("/theme [dark|light]", 12, ["/theme", "  [dark|", "  light]"]),
    ("/model [provider[:model]]", 12, ["/model", "  [provider[", "  :model]]"]),  # folded
    ("", 10, [""]),
])
def test_help_usages_wrap_between_words_and_after_bars(text, width, lines) -> None:
    from paicli_tui.ui.modals.help import wrap_usage

    assert wrap_usage(text, width) == lines
    assert all(len(line) <= width for line in lines)


@pytest.mark.parametrize("keys,text", [
    ([("slash", "/"), ("m", "m"), ("tab", "\t")], "/memory"),
    ([("slash", "/"), ("m", "m"), ("c", "c"), ("tab", "\t")], "/mcp "),
    ([("slash", "/"), ("m", "m"), ("tab", "\t"), ("tab", "\t")], "/mcp"),
    # Backspace on an empty input, then a letter: the letter stays
    ([("slash", "/"), ("backspace", "\x7f"), ("backspace", "\x7f"), ("T", "T"), ("U", "U")],
     "TU"),
    ([("a", "a"), ("b", "b"), ("left", None), ("c", "c")], "acb"),
    ([("a", "a"), ("b", "b"), ("home", None), ("c", "c"), ("end", None), ("d", "d")], "cabd"),
    ([("a", "a"), ("b", "b"), ("ctrl+w", None), ("x", "x")], "x"),
])
async def test_keys_typed_faster_than_the_screen_keeps_up(settings, project_dir, keys, text):
    """Found in a real terminal: `/m` + Tab typed quickly gave `/save`, because the key after
    `m` arrived before the input had worked out the menu for `/m`; and Backspace then T lost
    the T (Backspace acted only after the key had gone up to the app, the T was inserted at
    once). All keys are queued at once here, as a fast typist's keys reach the app."""
    app = make_app(settings, project_dir, FakeSession())
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        prompt = app.screen.query_one(PromptInput)
        for key, character in keys:
            prompt.post_message(events.Key(key, character))
        await wait_until(pilot, lambda: prompt.text == text)
        assert app.focused is prompt


async def test_page_keys_scroll_the_conversation_and_typing_stays_in_the_input(settings,
                                                                              project_dir):
    """Found in tmux: with the input focused (always, on the chat screen) PgUp / PgDn did
    nothing, so a person without a mouse could not read back a long answer. Now PgUp scrolls
    the conversation up a page and PgDn down again (at the bottom it follows new text
    again); the focus and the typed text stay in the input."""
    history = [Message.system("system")]
    for n in range(30):
        history += [Message.user(f"question {n}"), Message.assistant(f"answer {n}")]
    app = make_app(settings, project_dir, FakeSession(history=history))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        log = app.screen.query_one(ChatLog)
        prompt = app.screen.query_one(PromptInput)
        await wait_until(pilot, lambda: log.max_scroll_y > 0 and log.scroll_y == log.max_scroll_y)
        bottom = log.max_scroll_y
        await pilot.press("a", "pageup", "b")
        await wait_until(pilot, lambda: log.scroll_y < bottom)
        assert bottom - log.scroll_y == log.scrollable_content_region.height
        assert prompt.text == "ab" and app.focused is prompt
        await pilot.press("pageup", "pageup", "pagedown", "pagedown", "pagedown")
        await wait_until(pilot, lambda: log.scroll_y == log.max_scroll_y)
        assert app.focused is prompt and prompt.text == "ab"


async def test_sending_a_message_after_scrolling_up_follows_the_conversation_again(
        settings, project_dir):
    """Found in tmux: after PgUp to read an older answer, a message sent stayed below the
    screen and so did its reply (the view kept the old place until PgDn). As in Claude Code
    and Codex, sending brings the conversation back to its end: the person sees their
    message and the reply streaming under it, followed to the last line."""
    history = [Message.system("system")]
    for n in range(30):
        history += [Message.user(f"question {n}"), Message.assistant(f"answer {n}")]
    reply = [ev.TextDelta("\n\n".join(f"reply line {n}" for n in range(12))),
             ev.AssistantMessage(content="the reply"),
             ev.TurnFinished(session="s1", reason="done")]
    app = make_app(settings, project_dir, FakeSession(history=history, script=reply))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        log = app.screen.query_one(ChatLog)
        await wait_until(pilot, lambda: log.max_scroll_y > 0 and log.scroll_y == log.max_scroll_y)
        await pilot.press("pageup", "pageup")
        await wait_until(pilot, lambda: log.scroll_y < log.max_scroll_y - 20)
        await pilot.press(*"new one", "enter")
        await wait_until(pilot, lambda: not app.screen.turn_running
                         and isinstance(log.children[-1], AssistantBlock))
        await wait_until(pilot, lambda: log.scroll_y == log.max_scroll_y)
        assert log.children[-1].region.bottom <= log.region.bottom  # its last line is shown


async def test_a_resumed_message_without_a_reply_says_so(settings, project_dir):
    """Found in tmux: a turn cancelled mid-stream (or one whose provider kept failing) came
    back on resume as the person's message with nothing under it, as if the model had just
    not answered. Each such message now has 'No reply: that turn was cancelled or failed.'
    under it (the last one too); answered ones have their answer."""
    from paicli_tui.ui.screens.chat import NO_ANSWER

    history = [Message.system("sys"), Message.user("cancelled one"),
               Message.user("answered one"), Message.assistant("an answer"),
               Message.user("failed at the end")]
    backend = FakeBackend(settings, project_dir, session=FakeSession(history=history),
                          client=FakeClient())
    app = PaicliApp(settings, project_dir, resume="a1b2c3", backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        log = app.screen.query_one(ChatLog)
        await wait_until(pilot, lambda: any("Resumed session" in str(getattr(w, "source", ""))
                                            for w in log.children))
        shown = [(type(w).__name__, str(getattr(w, "source", "")) or str(w.render()))
                 for w in log.children if type(w).__name__ in ("UserMessage", "ChatNotice")]
        assert shown[:5] == [("UserMessage", "cancelled one"), ("ChatNotice", NO_ANSWER),
                             ("UserMessage", "answered one"),
                             ("UserMessage", "failed at the end"), ("ChatNotice", NO_ANSWER)]


async def test_a_resumed_message_without_a_reply_says_why_when_the_ledger_knows(
        settings, project_dir):
    """Found in tmux: a message sent while the model's server was down came back on resume
    with 'No reply: that turn was cancelled or failed.', though the session file held the
    error ('ollama: cannot reach …'). Each such message now says why, as the ledger has it;
    one the ledger says nothing about keeps the generic line."""
    from paicli_tui.ui.screens.chat import NO_ANSWER

    failed, cancelled, unknown = (Message.user("failed one"), Message.user("cancelled one"),
                                  Message.user("unknown one"))
    history = [Message.system("sys"), failed, cancelled, unknown]
    backend = FakeBackend(settings, project_dir, session=FakeSession(history=history),
                          client=FakeClient(),
                          unanswered={failed.id: "ollama: cannot reach http://127.0.0.1:11434",
                                      cancelled.id: "cancelled"})
    app = PaicliApp(settings, project_dir, resume="a1b2c3", backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        log = app.screen.query_one(ChatLog)
        await wait_until(pilot, lambda: any("Resumed session" in str(getattr(w, "source", ""))
                                            for w in log.children))
        notices = [str(w.source) for w in log.children if type(w).__name__ == "ChatNotice"]
    assert notices[:3] == [
        "No reply: that turn failed: ollama: cannot reach http://127.0.0.1:11434",
        "No reply: that turn was cancelled.", NO_ANSWER]


async def test_ctrl_c_stops_the_turn_then_clears_the_input_then_hints_at_quitting(
        settings, project_dir):
    """Found in tmux: Ctrl+C during a streaming reply only showed Textual's "Do you want to
    quit? Press ctrl+q" while the reply went on. Ctrl+C now works as in Claude Code and
    Codex: it stops the running turn ("Turn cancelled."); on an idle chat it clears what is
    typed; on an empty input it gives the quit hint. A selection is still copied."""
    app = make_app(settings, project_dir, held_turn_session())
    async with app.run_test(size=SIZE) as pilot:
        prompt = await start_a_turn(pilot, "go")
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not app.screen.turn_running)
        await wait_until(pilot, lambda: any(
            str(n.source) == "Turn cancelled." for n in app.screen.query("ChatNotice")))
        await pilot.press(*"half a thought", "ctrl+c")
        assert prompt.text == "" and app.focused is prompt
        await pilot.press(*"copy me", "shift+home", "ctrl+c")  # a selection: copied, kept
        assert app.clipboard == "copy me" and prompt.text == "copy me"
        await pilot.press("end", "ctrl+c")  # nothing selected: cleared
        assert prompt.text == ""
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: any("quit" in n.message.lower()
                                            for n in app._notifications))


async def test_the_quit_hint_names_the_key_in_plain_words(settings, project_dir):
    """Found in tmux: Ctrl+C on an empty input toasted "Press [b]ctrl+q[/b] to quit the
    app", the markup shown as typed (every notice here is plain text). It reads "Press
    Ctrl+Q to quit." now."""
    app = make_app(settings, project_dir, held_turn_session())
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: bool(app._notifications))
        hint = list(app._notifications)[-1]
        assert hint.message == "Press Ctrl+C again or Ctrl+Q to quit.", hint.message
        assert "[" not in hint.title


@pytest.mark.parametrize(("seconds_between", "quits"), [(0.5, True), (3.0, True),
                                                         (3.5, False), (60.0, False)])
async def test_ctrl_c_twice_on_an_empty_input_quits(settings, project_dir, seconds_between,
                                                    quits) -> None:
    """Ctrl+C twice quits in Claude Code and Codex; here the second press only showed the
    hint again, and people pressed it again and again. A second Ctrl+C within 3 seconds of
    the hint now quits; later, it is the hint again."""
    now = [100.0]
    app = make_app(settings, project_dir, held_turn_session())
    app.clock = lambda: now[0]
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: bool(app._notifications))
        now[0] += seconds_between
        await pilot.press("ctrl+c")
        if quits:
            await wait_until(pilot, lambda: app._exit)
        else:
            await wait_until(pilot, lambda: len(app._notifications) == 2)
            assert not app._exit


@pytest.mark.parametrize("highlighted,hint", [
    (0, "15 below · Tab"), (5, "15 below · Tab"), (8, "3 above · 12 below · Tab"),
    # found in tmux: at the last command the menu still said "11 more"
    (20, "15 above · Tab"),
])
def test_the_slash_menu_says_where_the_hidden_commands_are(highlighted, hint) -> None:
    from paicli_tui.ui.slash import SLASH_COMMANDS

    menu = SlashMenu()
    menu.matches, menu.highlighted = list(SLASH_COMMANDS), highlighted
    assert len(SLASH_COMMANDS) == 21
    assert rendered(menu.renderable(80)).splitlines()[-1].startswith(hint)


@pytest.mark.parametrize("size", [(100, 30), (80, 24), (60, 20)])
async def test_the_placeholder_fits_the_input(settings, project_dir, size):
    """Found in tmux: at 60 columns the empty input read "Ask about this project · / for
    commands · Ctrl+J new" (cut). A person now sees the longest hint that fits, whole: the
    full one at 80 and 100 columns, "Ask about this project · / for commands" at 60."""
    from paicli_tui.ui.widgets.prompt_input import PLACEHOLDER

    app = make_app(settings, project_dir, FakeSession())
    async with app.run_test(size=size) as pilot:
        await started(pilot)
        prompt = app.screen.query_one(PromptInput)
        expected = PLACEHOLDER if size[0] >= 80 else "Ask about this project · / for commands"
        # chosen for the input's width once it is laid out: late on a busy machine
        await wait_until(pilot, lambda: prompt.placeholder == expected, 30,
                         lambda: f"{prompt.placeholder!r} at {prompt.content_size}")
        assert len(prompt.placeholder) < prompt.content_size.width
        row = "".join(s.text for s in prompt.render_lines(prompt.region.reset_offset)[1:2])
        assert expected in row


async def test_a_plan_does_not_say_it_recalls_memories(settings, project_dir):
    """Found in tmux: `/plan add a CHANGELOG` showed "Recalling memories · 9 s" while the
    planner ran (a plan starts with a planning request, not a memory recall). A person now
    reads "Planning" from Enter until the plan's own steps take over."""
    session = FakeSession()
    app = make_app(settings, project_dir, session)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        labels: list[str] = []
        status = app.screen.status
        phase = status.phase
        status.phase = lambda label, **kw: (labels.append(label), phase(label, **kw))[1]
        app.screen.query_one(PromptInput).load_text("/plan add a CHANGELOG")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause(0.2)
    assert labels and "Recalling memories" not in labels and labels[0] == "Planning", labels
