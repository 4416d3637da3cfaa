"""Data on the screen never drives the terminal. A file read by a tool, a command's output
(a hostile repository's commit message through `git log`), an error body and the model's own
words can hold escape sequences; Textual and Rich passed ESC and the C1 controls to the
terminal as they were, so reading such a file wrote the person's clipboard (OSC 52), retitled
the window (OSC 0) and cleared the screen (ESC[2J).

What a person sees: the read_file block, opened, shows its lines with the sequences written
out as text — ``\\x1b]52;c;cHduZWQ=`` … ``\\x1b[2J\\x1b[31mRED\\x1b[0m after`` — the answer
reads ``Done \\x1b]0;PWNED``, the error notice ``HTTP 500: \\x1b[2Jboom``; the window keeps
its title and the screen is not cleared."""

from __future__ import annotations

import io
import re

from pilot_helpers import wait_until
from rich.console import Console
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.core.contracts import events as ev
from paicli_tui.ui.widgets.prompt_input import PromptInput
from paicli_tui.ui.widgets.tool_block import ToolBlock

EVIL = ("normal line\n\x1b]52;c;cHduZWQ=\x07\x1b]0;PWNED-TITLE\x07\n"
        "\x1b[2J\x1b[31mRED\x1b[0m after \x9b2J\x9d0;C1-TITLE\x9c")
DRIVING = ("\x1b]52", "\x1b]0;", "\x1b[2J", "\x1b[31mRED", "\x9b", "\x9d")
"""What must never reach the terminal from the data (the app's own colours are SGR codes
with other numbers, and nothing here is a link)."""


def _terminal_bytes(app: PaicliApp) -> str:
    """What the app writes to the terminal for its current screen."""
    out = io.StringIO()
    Console(file=out, force_terminal=True, width=120, color_system="truecolor",
            legacy_windows=False).print(app.screen._compositor.render_full_update())
    return out.getvalue()


async def test_escape_sequences_in_tool_output_errors_and_replies_are_shown_not_sent(
        settings, project_dir) -> None:
    script = [ev.TurnStarted(session="s1", user_input="read it"),
              ev.ToolCallStarted(call_id="c1", name="read_file",
                                 arguments='{"path": "evil\\u001b]0;x\\u0007.txt"}'),
              ev.ToolCallFinished(call_id="c1", name="read_file", status="done", preview=EVIL,
                                  chars=len(EVIL)),
              ev.AgentError(message="HTTP 500: \x1b[2Jboom"),
              ev.TextDelta(text="Done \x1b]0;PWNED\x07"),
              ev.AssistantMessage(content="Done \x1b]0;PWNED\x07"),
              ev.TurnFinished(session="s1", reason="done")]
    backend = FakeBackend(settings, project_dir, session=FakeSession(script=script),
                          client=FakeClient())
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: getattr(app.screen, "session", None) is not None)
        app.screen.query_one(PromptInput).load_text("read it")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await wait_until(pilot, lambda: len(app.screen.query(ToolBlock)) == 1)
        app.screen.query_one(ToolBlock).set_collapsed(False)
        shown = ("\\x1b]52;c;cHduZWQ=", "\\x1b[2J\\x1b[31mRED\\x1b[0m after",
                 "\\u009b2J", "HTTP 500: \\x1b[2Jboom", "Done \\x1b]0;PWNED")

        def missing() -> list[str]:
            """What the screen does not show yet (the opened block is laid out later on a
            busy machine)."""
            plain = re.sub(r"\x1b\[[0-9;]*m", "", _terminal_bytes(app))  # the app's colours out
            return [visible for visible in shown if visible not in plain]

        await wait_until(pilot, lambda: missing() == [], 30, missing)
        written = _terminal_bytes(app)
        assert [seq for seq in DRIVING if seq in written] == []


def test_a_textual_without_the_private_table_still_starts(monkeypatch, caplog) -> None:
    """The tables patched are private to Textual and Rich: if a release drops one, the app
    starts anyway and the log says the neutralising is off, instead of a crash at start."""
    import logging

    import rich.control
    from textual import content

    from paicli_tui.ui.terminal_text import show_control_characters

    monkeypatch.delattr(content, "_CONTROL_STRIP_TRANSLATE")
    with caplog.at_level(logging.WARNING, logger="paicli_tui.ui.terminal_text"):
        show_control_characters()
    assert "textual.content has no control-character table" in caplog.text
    assert rich.control._CONTROL_STRIP_TRANSLATE[0x1B] == "\\x1b"  # the other table still set
