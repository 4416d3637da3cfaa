"""Pilot flows on the chat screen against a scripted session (tests/ui/ui_fakes.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pilot_helpers import wait_until, wait_until_steady
from ui_fakes import FakeBackend, FakeClient, FakeSession, chat_script

from paicli_tui.app import PaicliApp
from paicli_tui.config import Settings
from paicli_tui.core.contracts import events as ev
from paicli_tui.ui.widgets.chat_log import ChatLog
from paicli_tui.ui.widgets.compaction_notice import CompactionNotice
from paicli_tui.ui.widgets.context_gauge import ContextGauge
from paicli_tui.ui.widgets.notice import ChatNotice
from paicli_tui.ui.widgets.prompt_input import PromptInput
from paicli_tui.ui.widgets.setup_notice import SetupNotice
from paicli_tui.ui.widgets.tool_block import ToolBlock

SIZE = (100, 30)


def make_app(settings: Settings, project: Path, session: FakeSession,
             client: object = None) -> tuple[PaicliApp, FakeBackend]:
    backend = FakeBackend(settings, project, session=session, client=client)
    return PaicliApp(settings, project, backend=backend), backend


async def send(pilot, text: str) -> None:
    """Type and send once the session is there (it starts in a worker)."""
    await wait_until(pilot, lambda: getattr(pilot.app.screen, "session", None) is not None)
    prompt = pilot.app.screen.query_one(PromptInput)
    prompt.load_text(text)
    await pilot.press("enter")


async def wait_turn(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_full_turn_renders_text_tools_compaction_and_moves_gauge(settings, project_dir):
    session = FakeSession(script=chat_script())
    app, _ = make_app(settings, project_dir, session, FakeClient())
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        await pilot.pause()
        gauge = app.screen.query_one(ContextGauge)
        assert gauge.tokens == 1_200
        await send(pilot, "find the config loader")
        await wait_turn(pilot)
        log = app.screen.query_one(ChatLog)
        blocks = list(log.query(ToolBlock))
        assert [b.status for b in blocks] == ["done", "done"]
        assert "offloaded" in str(blocks[1].title)
        notices = list(log.query(CompactionNotice))
        assert len(notices) == 1 and "61k → 44k" in str(notices[0].title)
        assert gauge.tokens == 44_000
        assert gauge.last_prompt == 44_100 and gauge.cached == 41_000
        assert gauge.per_request == [41_200.0, 44_100.0]
        assert "load_settings" in log.query("AssistantBlock").last().text


async def test_no_model_shows_how_to_connect_and_keeps_the_input(settings, project_dir):
    app, _ = make_app(settings, project_dir, FakeSession(), None)
    async with app.run_test(size=SIZE) as pilot:
        # the session starts in a worker: on a loaded machine one pause is not enough
        notices = await _wait_for_notices(pilot, app, 1)
        assert notices and notices[0].kind == "setup"
        await send(pilot, "hello")
        assert len(await _wait_for_notices(pilot, app, 2)) == 2


async def test_a_lone_slash_is_not_sent_to_the_model(settings, project_dir):
    """'/', Esc (the menu closes), Enter: the slash went to the model as a message and cost
    a turn. It stays in the input, and a toast says what to type."""
    session = FakeSession(script=chat_script("never asked"))
    app, _ = make_app(settings, project_dir, session, FakeClient())
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: getattr(app.screen, "session", None) is not None)
        prompt = app.screen.query_one(PromptInput)
        await pilot.press("slash", "escape", "enter")
        await pilot.pause(0.2)
        assert session.history == [] and not app.screen.query("UserMessage")
        assert prompt.text == "/"
        assert any("A lone / is not sent" in str(n.message) for n in app._notifications)


async def test_a_guide_looked_at_before_its_layout_still_opens_at_its_first_line(
        settings, project_dir):
    """On a loaded machine the refresh after the guide was added came before its layout: it
    was measured at no height, and the chat stayed at its end (a full test run at 60x20)."""
    app, _ = make_app(settings, project_dir, FakeSession(), None)
    async with app.run_test(size=(60, 20)) as pilot:
        await _wait_for_notices(pilot, app, 1)
        log = app.screen.query_one(ChatLog)
        await log.remove_children()
        log.anchor()  # as a new chat is: following its end
        guide = SetupNotice("No model connected (a second guide)\n" +
                            "\n".join(f"line {n} of the guide" for n in range(40)))
        await log.mount(guide)
        log._guide_from_its_top(guide)  # at once: before any layout of the guide
        await wait_until_steady(pilot, lambda: guide.virtual_region.height > 0
                                and in_view(log, guide), 30, lambda: where(log, guide))


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_no_model_guide_opens_at_its_first_line(settings, project_dir, size):
    """At 80×24 the guide is taller than the chat, and the chat opened at its end: a person
    read `│   --provider hunyuan …` without `No model connected` or the first example above
    it. The guide's first line is in view; sending a message follows the end again."""
    app, _ = make_app(settings, project_dir, FakeSession(), None)
    async with app.run_test(size=size) as pilot:
        notice = (await _wait_for_notices(pilot, app, 1))[0]
        log = app.screen.query_one(ChatLog)
        await wait_until_steady(
            pilot, lambda: notice.virtual_region.height > log.scrollable_content_region.height
            and in_view(log, notice), 30, lambda: where(log, notice))
        await send(pilot, "hello")
        second = (await _wait_for_notices(pilot, app, 2))[1]
        await wait_until_steady(pilot, lambda: in_view(log, second), 30,
                                lambda: where(log, second))


async def test_no_model_guide_fits_80_columns_unwrapped(settings, project_dir):
    """The guide is laid out in columns, and at 80 columns half its rows wrapped: the default
    model fell under the key variable's column (`│ deepseek-v4-flash`), the custom server's
    line broke in three. Every row fits the chat of an 80-column terminal."""
    app, _ = make_app(settings, project_dir, FakeSession(), None)
    async with app.run_test(size=(80, 24)) as pilot:
        notice = (await _wait_for_notices(pilot, app, 1))[0]
        text = app.screen.backend.how_to_configure()

        def rows() -> int:
            return notice.virtual_region.height - notice.styles.gutter.height

        await wait_until(pilot, lambda: rows() == len(text.splitlines()), 30,
                         lambda: f"{rows()} rows for {len(text.splitlines())} lines:\n{text}")


def in_view(log: ChatLog, block) -> bool:
    """The block's first line is on the chat's screen."""
    return log.scroll_y <= block.virtual_region.y < log.scroll_y + log.size.height


def where(log: ChatLog, block) -> str:
    return (f"block at {block.virtual_region}, scroll_y={log.scroll_y}/{log.max_scroll_y}, "
            f"view {log.size.height} rows")


async def _wait_for_notices(pilot, app, count: int) -> list[SetupNotice]:
    for _ in range(300):
        await pilot.pause(0.05)
        notices = list(app.screen.query(SetupNotice))
        if len(notices) >= count:
            return notices
    return list(app.screen.query(SetupNotice))


async def test_escape_mid_stream_cancels_and_leaves_paired_history(settings, project_dir):
    hold = asyncio.Event()
    script = [ev.RequestStarted(1, 1_000, 128_000, 57_000, 95_000), ev.TextDelta("Partial "),
              hold, ev.TextDelta("never shown")]
    session = FakeSession(script=script)
    app, _ = make_app(settings, project_dir, session, FakeClient())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "start")
        await wait_until(pilot, lambda: app.screen.turn_running)  # held until Esc
        await pilot.press("escape")
        await wait_turn(pilot)
        assert not app.screen.turn_running
        texts = [n.kind for n in app.screen.query(ChatNotice)]
        assert "warning" in texts
        roles = [m.role.value for m in session.history]
        assert roles == ["user", "assistant"]
        assert "never shown" not in app.screen.query("AssistantBlock").last().text


async def test_gauge_warns_once_near_clearing(settings, project_dir):
    script = [ev.RequestStarted(1, 52_000, 128_000, 57_000, 95_000),
              ev.RequestStarted(2, 58_000, 128_000, 57_000, 95_000),
              ev.RequestStarted(3, 96_000, 128_000, 57_000, 95_000)]
    app, _ = make_app(settings, project_dir, FakeSession(script=script), FakeClient())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "go")
        await wait_turn(pilot)
        warnings = [n for n in app._notifications if "clearing threshold" in n.message]
        assert len(warnings) == 1


async def test_input_history_and_slash_completion(settings, project_dir):
    app, _ = make_app(settings, project_dir, FakeSession(script=[]), FakeClient())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        prompt = app.screen.query_one(PromptInput)
        await send(pilot, "first")
        await send(pilot, "second")
        await wait_turn(pilot)
        await pilot.press("up")
        assert prompt.text == "second"
        await pilot.press("up")
        assert prompt.text == "first"
        await pilot.press("down", "down")
        assert prompt.text == ""
        prompt.load_text("/comp")
        prompt.move_cursor(prompt.document.end)
        await pilot.press("tab")
        assert prompt.text == "/compact "


async def test_up_and_down_move_through_a_wrapped_line_before_the_history(settings,
                                                                          project_dir):
    """Found in tmux: ↑ on the last row of a long line that wraps (one line, three rows)
    replaced it with the last input, where the person meant the row above; ↓ on the first
    row of a recalled long input jumped to the next one."""
    app, _ = make_app(settings, project_dir, FakeSession(script=[]), FakeClient())
    long = " ".join(["a long line that wraps"] * 10)  # 229 cells: 3 rows at 100 columns
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        prompt = app.screen.query_one(PromptInput)
        await send(pilot, "first")
        await send(pilot, long)
        await wait_turn(pilot)
        prompt.load_text("my draft " + long)
        prompt.move_cursor(prompt.document.end)
        await pilot.press("up", "up")  # to the first row, still the draft
        assert prompt.text == "my draft " + long and prompt.cursor_location[0] == 0
        await pilot.press("up")
        assert prompt.text == long
        await pilot.press("up")  # the recalled input's cursor is at its end: rows first
        assert prompt.text == long and not prompt.navigator.is_last_wrapped_line(
            prompt.cursor_location)
        await pilot.press("up", "up")
        assert prompt.text == "first"
        await pilot.press("down")
        assert prompt.text == long
        prompt.move_cursor((0, 0))
        await pilot.press("down")
        assert prompt.text == long  # a row down, not the next input
        await pilot.press("down", "down")
        assert prompt.text == "my draft " + long

async def test_input_history_survives_a_restart(settings, project_dir):
    """What was typed in one run is reachable with ↑ in the next (kept under PAICLI_HOME)."""
    app, _ = make_app(settings, project_dir, FakeSession(script=[]), FakeClient())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "remember this prompt")
        await wait_turn(pilot)
    assert settings.home.input_history_file.is_file()
    again, _ = make_app(settings, project_dir, FakeSession(script=[]), FakeClient())
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        prompt = again.screen.query_one(PromptInput)
        await pilot.press("up")
        assert prompt.text == "remember this prompt"


def test_input_history_file_rules(tmp_path):
    """Newest entries win the limit, repeats collapse, a broken line is skipped, and the file
    is trimmed when it grows well past the limit."""
    from paicli_tui.ui.input_history import InputHistory

    history = InputHistory(tmp_path / "h" / "inputs.jsonl", limit=3)
    assert history.load() == []
    for text in ["a", "b", "b", "c", "d"]:
        history.append(text)
    with history.path.open("a", encoding="utf-8") as handle:
        handle.write('{"torn": \n')
    history.append("多行\n输入")
    assert history.load() == ["c", "d", "多行\n输入"]
    for i in range(600):
        history.append(f"prompt {i}")
    assert history.path.stat().st_size < 400 * 3 + 200
    assert history.load() == ["prompt 597", "prompt 598", "prompt 599"]


async def test_slash_commands_clear_compact_theme_graph_unknown(settings, project_dir):
    session = FakeSession(script=[])
    app, backend = make_app(settings, project_dir, session, FakeClient())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        log = app.screen.query_one(ChatLog)
        await send(pilot, "/compact")
        await wait_turn(pilot)
        notices = list(log.query(CompactionNotice))
        assert len(notices) == 1 and notices[0].summary == "## Goal\nFind the loader."
        assert app.screen.query_one(ContextGauge).tokens == 900
        await send(pilot, "/clear")
        await wait_turn(pilot)
        assert not list(log.query(CompactionNotice))
        assert app.screen.query_one(ContextGauge).tokens == 300
        assert app.theme == "textual-dark"
        await send(pilot, "/theme")
        await pilot.pause()
        assert app.theme == "textual-light"
        await app.workers.wait_for_complete()
        # kept for the next start
        assert 'theme = "light"' in settings.home.config_file.read_text(encoding="utf-8")
        await send(pilot, "/graph Loader")
        await wait_turn(pilot)
        await send(pilot, "/nope")
        await pilot.pause()
        texts = [n.source for n in log.query(ChatNotice)]
        assert any("extends Base" in t for t in texts)
        assert any("Unknown command" in t for t in texts)


async def test_quit_closes_the_session(settings, project_dir):
    session = FakeSession(script=[])
    app, _ = make_app(settings, project_dir, session, FakeClient())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert session.closed
    assert app.resume_hint == ""  # nothing said: nothing to come back to


async def test_quit_after_a_message_leaves_a_resume_hint(settings, project_dir):
    session = FakeSession(script=[ev.TextDelta("Hi."), ev.AssistantMessage("Hi.")],
                          session_id="20261201-abc")
    app, _ = make_app(settings, project_dir, session, FakeClient())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "hello")
        await wait_turn(pilot)
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.resume_hint == "Resume this conversation: paicli-tui --resume 20261201-abc"


async def test_quit_after_only_bang_commands_says_how_to_send_their_output(settings,
                                                                         project_dir):
    """`!git status`, then Ctrl+Q: nothing was printed, though the command's output waits
    in the ledger for the next message of that session, which only --resume reaches."""
    session = FakeSession(script=[], session_id="20261201-abc")
    app, _ = make_app(settings, project_dir, session, FakeClient())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "!git status")
        await wait_until(pilot, lambda: bool(app.screen.query(ToolBlock)))
        session.pending_shell = ["git status"]  # what the real session keeps
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.resume_hint == ("The output of your command waits for your next message: "
                               "paicli-tui --resume 20261201-abc")


async def test_model_switch_follows_the_window(settings, project_dir):
    session = FakeSession(script=[])
    app, _ = make_app(settings, project_dir, session, FakeClient())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "/model glm:glm-4.6")
        await wait_turn(pilot)
        assert session.client.provider == "glm"
        gauge = app.screen.query_one(ContextGauge)
        assert gauge.window == 200_000
        assert "glm:glm-4.6" in app.screen.sub_title
        # a line in the conversation (a toast was gone when a person scrolled back to see
        # which model answered from there on)
        profile = session.profile  # the fake's thresholds stay fixed whatever the window
        said = (f"Now using glm:glm-4.6 · window 200,000: clearing at "
                f"{profile.clearing_trigger:,}, compaction at {profile.compaction_trigger:,}.")
        await wait_until(pilot, lambda: said in [str(n.source) for n in
                                                 app.screen.query("ChatNotice")])


async def test_model_switch_drops_a_summary_said_for_the_old_window(settings, project_dir):
    """Found in tmux: on a 9,000-token window the gauge read "summary next"; after /model
    to a 32k model it still read "summary next" at 15% of the window. The words said for the
    old triggers go with them (the next request says again when a summary is near)."""
    from paicli_tui.ui.messages import AgentEventPosted

    session = FakeSession(script=[])
    app, _ = make_app(settings, project_dir, session, FakeClient())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        gauge = app.screen.query_one(ContextGauge)
        app.screen.post_message(AgentEventPosted(ev.SummaryAhead(
            tokens=5_196, compaction_trigger=5_625, hard_limit=9_000,
            detail="The conversation is at 5,196 of 5,625 tokens.")))
        await wait_until(pilot, lambda: gauge.state == "summary next")
        await send(pilot, "/model glm:glm-4.6")
        await wait_until(pilot, lambda: session.client.provider == "glm")
        await wait_until(pilot, lambda: gauge.state == "", explain=lambda: gauge.state)


async def test_model_switch_within_the_provider_drops_a_window_given_for_another_model(
        settings, project_dir):
    """Started on glm-5.1 with --window 64000, `/model glm:glm-4.5` kept 64,000 for a model
    known to hold 128,000 (the gauge and the compaction triggers with it). The window given
    on the command line stays with the model it was given for."""
    from paicli_tui.config import Secret
    from paicli_tui.core.llm.registry import build_client

    started = settings.with_overrides(provider="glm", model="glm-5.1", window=64_000,
                                      provider_keys={"ZHIPUAI_API_KEY": Secret("sk-zhipu")})

    class Real(FakeBackend):
        def build_client(self, settings: Settings) -> object:
            return build_client(settings)

    backend = Real(started, project_dir, session=FakeSession(script=[]), client=FakeClient())
    app = PaicliApp(started, project_dir, backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for model, window in (("glm-4.5", 128_000), ("glm-5.1", 64_000)):
            await send(pilot, f"/model glm:{model}")
            await wait_turn(pilot)
            client = backend.session.client
            assert (client.model, client.window) == (model, window)
            assert app.screen.query_one(ContextGauge).window == window


async def test_calls_that_went_ahead_unasked_are_marked(settings, project_dir):
    """A person sees on each tool block why it ran without a dialog: ``read-only, no
    approval`` on `ls -la | head`, ``auto-approved (Always)`` on the second write after
    "Always", nothing on a call they approved themselves."""
    def call(call_id: str, name: str, arguments: str, permission: str) -> list[ev.AgentEvent]:
        return [ev.ToolCallStarted(call_id=call_id, name=name, arguments=arguments),
                ev.ToolCallFinished(call_id=call_id, name=name, status="done", preview="ok",
                                    permission=permission)]

    script = [ev.TurnStarted(session="s1", user_input="go"),
              *call("c1", "execute_command", '{"command": "ls -la | head"}', "read-only"),
              *call("c2", "write_file", '{"path": "a.txt"}', ""),
              *call("c3", "write_file", '{"path": "b.txt"}', "always"),
              ev.AssistantMessage(content="done"),
              ev.TurnFinished(session="s1", reason="done")]
    app, _ = make_app(settings, project_dir, FakeSession(script=script), FakeClient())
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go")
        await wait_turn(pilot)
        titles = [str(b.title) for b in app.screen.query(ToolBlock)]
        assert titles[0].endswith("· done · read-only, no approval"), titles[0]
        assert titles[1].endswith("· done"), titles[1]
        assert titles[2].endswith("· done · auto-approved (Always)"), titles[2]


@pytest.mark.parametrize("tier,before,after,failed,title", [
    # found in tmux: a 5 MB reply of the model was announced as "Large tool output"
    ("offload", 642_000, 4_500, False, "⇣ Large content saved to a file: 642k → 4.5k tokens"),
    ("clearing", 61_000, 44_000, False, "⇣ Old tool results cleared: 61k → 44k tokens"),
    ("summary", 96_000, 12_000, False, "⇣ Older turns summarised: 96k → 12k tokens"),
    ("summary", 96_000, 96_000, True, "⚠ Summary failed at 96k tokens"),
])
def test_compaction_notice_titles(tier, before, after, failed, title) -> None:
    assert CompactionNotice(tier, before, after, failed=failed).title == title


async def test_a_one_line_notice_takes_one_line(settings, project_dir) -> None:
    """Found in tmux at 80x24: every notice drew an empty bordered line under its text (the
    Markdown paragraph's bottom margin), so three "HTTP 500 … retry" lines took six rows.
    A one-line notice is one row high, a list notice ends on its last item, and three
    retry notices stack on three rows."""
    app = PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=FakeSession(), client=FakeClient()))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        log = app.screen.query_one(ChatLog)
        one = await log.add_notice("Turn cancelled.", "warning")
        listed = await log.add_notice("**Plan** for: x\n\n- **a** · A — do a\n- **b** · B — do b")
        retries = [await log.add_notice(f"HTTP 500: boom — retry {n} of 3 in {n} s", "retry")
                   for n in (1, 2, 3)]
        await pilot.pause()
        assert one.size.height == 1
        assert listed.size.height == 4  # the title, a blank line, two items
        assert [r.region.y for r in retries] == [retries[0].region.y + n for n in range(3)]


async def test_an_approval_pauses_the_running_call_of_that_id(settings, project_dir) -> None:
    """A sub-agent's model may number its calls like the parent's (`call_0` twice): the
    approval of the sub-agent's running call pauses that block, not the parent's finished
    one with the same id."""
    app = PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=FakeSession(), client=FakeClient()))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        log = app.screen.query_one(ChatLog)
        parent = await log.add_tool("call_0", "read_file", '{"path": "a.py"}')
        parent.finish("done", "A = 1")
        sub = await log.add_subagent(ev.SubAgentStarted(subagent="s1.sub-1", parent="s1",
                                                        label="explore"))
        await sub.step(ev.ToolCallStarted("call_0", "execute_command", '{"command": "make"}'))
        await pilot.pause()
        log.approval_asked("call_0", True)
        inner = sub.tools["call_0"]
        assert str(inner.title).endswith("waiting for your approval")
        assert log.find_tool("call_0") is inner and parent.waited == 0.0


async def test_model_switch_to_another_provider_leaves_the_first_ones_url_and_key(
        settings, project_dir):
    """Started on a custom server (its URL, its PAICLI_API_KEY, model x, --window 32000),
    `/model deepseek` sent DeepSeek's key to the custom server, asked it for model x and kept
    the 32k window. Another provider starts from its own defaults; the same provider keeps
    what was given for it."""
    from paicli_tui.config import Secret
    from paicli_tui.core.llm.registry import build_client

    started = settings.with_overrides(
        provider="custom", base_url="http://127.0.0.1:9/v1", model="x", window=32_000,
        api_key=Secret("sk-gateway"), provider_keys={"DEEPSEEK_API_KEY": Secret("sk-deep")})
    built: list[Settings] = []

    class Recording(FakeBackend):
        def build_client(self, settings: Settings) -> object:
            built.append(settings)
            return build_client(settings)

    backend = Recording(started, project_dir, session=FakeSession(script=[]),
                        client=FakeClient())
    app = PaicliApp(started, project_dir, backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "/model deepseek")
        await wait_turn(pilot)
        client = backend.session.client
        assert client.provider == "deepseek" and client.model == "deepseek-v4-flash"
        assert client.window == 1_000_000
        assert client.base_url.startswith("https://api.deepseek.com")
        assert built[-1].key_for("DEEPSEEK_API_KEY").reveal() == "sk-deep"
        await send(pilot, "/model custom:y")
        await wait_turn(pilot)
        client = backend.session.client
        assert (client.provider, client.model, client.window) == ("custom", "y", 32_000)
        assert client.base_url == "http://127.0.0.1:9/v1"
        assert built[-1].key_for(None).reveal() == "sk-gateway"


async def test_model_picker_opens_on_the_model_in_use(settings, project_dir):
    """F8 opened on DeepSeek, the first row, whatever was in use, and listed the custom
    server started with (model x, --window 32000) as `custom  128k` with no model: Enter,
    Enter switched away from it. The picker opens on the provider in use, its row says the
    model and window in use, a provider that has no key of its own says `no key`, and Ollama
    (no key, its server never checked) `local`, not `ready`."""
    from textual.widgets import Input, OptionList

    from paicli_tui.config import Secret
    from paicli_tui.ui.core_backend import CoreBackend
    from paicli_tui.ui.modals.model_picker import ModelPicker

    started = settings.with_overrides(
        provider="custom", base_url="http://127.0.0.1:9/v1", model="x", window=32_000,
        api_key=Secret("sk-gateway"))
    app = PaicliApp(started, project_dir, backend=CoreBackend(started, project_dir))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: getattr(app.screen, "session", None) is not None)
        await pilot.press("f8")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker))
        options = app.screen.query_one(OptionList)
        rows = {options.get_option_at_index(i).id: str(options.get_option_at_index(i).prompt)
                for i in range(options.option_count)}
        highlighted = options.get_option_at_index(options.highlighted)
        assert highlighted.id == "custom"
        assert rows["custom"].split() == ["custom", "x", "32k", "ready"]
        assert rows["deepseek"].split()[-2:] == ["no", "key"]
        # Ollama needs no key, but nothing checks its server runs: not "ready"
        assert rows["ollama"].split()[-1] == "local"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.query_one("#model-name", Input).value == "x"


async def test_model_switch_to_a_provider_not_set_up_says_what_it_needs(settings, project_dir):
    """`/model custom` without a custom server said "custom is not configured: set its key
    first.", but a custom server needs no key: it needs --base-url and --model. The notice
    says what the provider lacks, and the session keeps its model. It says so in the chat
    (a toast went by, where the switch's success leaves a line), with the model still in
    use."""
    from paicli_tui.core.llm.registry import build_client
    from paicli_tui.ui.widgets.notice import ChatNotice

    class Real(FakeBackend):
        def build_client(self, settings: Settings) -> object:
            return build_client(settings)

    started = settings.with_overrides(provider="ollama")
    backend = Real(started, project_dir, session=FakeSession(script=[]), client=FakeClient())
    app = PaicliApp(started, project_dir, backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        before = backend.session.client
        await send(pilot, "/model custom")

        def said() -> list[str]:
            return [str(n.source) for n in app.screen.query(ChatNotice)
                    if str(n.source).startswith("Cannot use custom")]

        await wait_until(pilot, lambda: bool(said()))
        [line] = said()
        assert "needs --base-url" in line and "set its key" not in line, line
        assert line.endswith(f"Still using {app.screen.model_label()}."), line
        assert not app._notifications
        assert backend.session.client is before


async def test_a_light_model_that_fails_to_choose_memories_is_told_to_the_person(
        settings, project_dir):
    """memory_selection's fallback (timeout, unusable answer, error) is a toast in the TUI,
    not only a ledger record; a choice the light model made says nothing."""
    script = [ev.MemorySelected(candidates=4, chosen=("m1",), by="offline", fallback="timeout"),
              ev.TextDelta("Hi."), ev.AssistantMessage("Hi.")]
    app, _ = make_app(settings, project_dir, FakeSession(script=script), FakeClient())
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "hello")
        await wait_turn(pilot)
        toasts = [n.message for n in app._notifications]
        assert any("did not choose this turn's memories (timeout)" in t for t in toasts), toasts

    chosen = [ev.MemorySelected(candidates=4, chosen=("m1",)), ev.TextDelta("Hi."),
              ev.AssistantMessage("Hi.")]
    app, _ = make_app(settings, project_dir, FakeSession(script=chosen), FakeClient())
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "hello")
        await wait_turn(pilot)
        assert not any("memories" in n.message for n in app._notifications)


async def test_the_model_chosen_stays_after_resuming_another_session(settings, project_dir):
    """/model glm:glm-4.6, then F5 to reopen an older session: the reopened session talked
    to the model the app was started with again, without a word. The model chosen stays
    until /model changes it."""
    from paicli_tui.ui.backend import SessionRow

    rows = [SessionRow("20261130-090000-0719aa", "Explain the tiers", "2026-11-30", 3)]
    backend = FakeBackend(settings, project_dir, session=FakeSession(script=[]),
                          client=FakeClient(), sessions_=rows)
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "/model glm:glm-4.6")
        await wait_turn(pilot)
        assert backend.session.client.provider == "glm"
        await send(pilot, "/resume 20261130-090000-0719aa")
        await wait_until(pilot, lambda: backend.started[-1:] == ["20261130-090000-0719aa"])
        await wait_turn(pilot)
        client = backend.session.client
        assert (client.provider, client.model) == ("glm", "glm-4.6")
        assert "glm:glm-4.6" in app.screen.sub_title


async def test_a_note_the_client_adds_after_the_stream_is_shown(settings, project_dir):
    """A reply cut at the provider's limit ends with '[reply cut: custom sent more than
    1,000,000 characters; the rest was not read]' in the conversation the model reads, but
    that note never streamed: the chat showed a reply that simply stopped. What the final
    message adds after the streamed text is shown at its end."""
    note = ("\n\n[reply cut: custom sent more than 1,000,000 characters; the rest was not "
            "read]")
    script = [ev.TextDelta("Here is the first part"),
              ev.AssistantMessage(content="Here is the first part" + note),
              ev.TurnFinished(session="s1", reason="done")]
    app, _ = make_app(settings, project_dir, FakeSession(script=script), FakeClient())
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go on")
        await wait_turn(pilot)
        block = app.screen.query_one(ChatLog).query("AssistantBlock").last()
        assert block.text.endswith("the rest was not read]"), block.text


async def test_a_reply_cut_shorter_than_it_streamed_shows_what_was_kept(settings,
                                                                       project_dir):
    """The piece that crossed the limit streamed whole, the reply kept was cut inside it:
    the chat showed the longer text, without the note."""
    note = "\n\n[reply cut: custom sent more than 20 characters; the rest was not read]"
    script = [ev.TextDelta("Twenty characters ok"), ev.TextDelta(" and then more"),
              ev.AssistantMessage(content="Twenty characters ok" + note),
              ev.TurnFinished(session="s1", reason="done")]
    app, _ = make_app(settings, project_dir, FakeSession(script=script), FakeClient())
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go on")
        await wait_turn(pilot)
        block = app.screen.query_one(ChatLog).query("AssistantBlock").last()
        assert block.text == "Twenty characters ok" + note


@pytest.mark.parametrize(("tokens", "said"), [
    (52_000, "The context is near the clearing threshold (52,000 of 57,000 tokens): old tool "
             "results will be cleared before the next requests."),
    # it read "(9,014 of 4,500 tokens)", as if there were room left
    (58_000, "The context is past the clearing threshold (58,000 tokens, the threshold is "
             "57,000): old tool results will be cleared before the next requests."),
])
def test_the_clearing_warning(tokens, said) -> None:
    from paicli_tui.ui.screens.chat import clearing_warning

    assert clearing_warning(tokens, 57_000) == said


async def test_a_resumed_session_does_not_inherit_the_gauges_failure(settings, project_dir):
    """A summary failed in this session ("digest failed" on the gauge), then /resume opened
    another session: the gauge still read "digest failed", about a session no longer shown.
    The reopened session starts with no such word."""
    from paicli_tui.ui.backend import SessionRow

    failed = [ev.CompactionFailed(tier="digest", tokens_before=3_600, tokens_after=3_600,
                                  detail="digest not smaller"),
              ev.TextDelta("Hi."), ev.AssistantMessage("Hi.")]
    rows = [SessionRow("20261130-090000-0719aa", "Explain the tiers", "2026-11-30", 3)]
    backend = FakeBackend(settings, project_dir, session=FakeSession(script=failed),
                          client=FakeClient(), sessions_=rows)
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        gauge = app.screen.query_one(ContextGauge)
        await send(pilot, "hello")
        await wait_turn(pilot)
        await wait_until(pilot, lambda: gauge.state == "digest failed", 10, lambda: gauge.state)
        await send(pilot, "/resume 20261130-090000-0719aa")
        await wait_until(pilot, lambda: backend.started[-1:] == ["20261130-090000-0719aa"])
        await wait_turn(pilot)
        await wait_until(pilot, lambda: gauge.state == "", explain=lambda: gauge.state)
