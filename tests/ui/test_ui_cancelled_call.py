"""A command the person stopped reads "cancelled", not "failed".

Found in tmux: Esc during `sleep 30` left its block reading "✗ … · failed" in red, while the
plan pane and a sub-agent's block said "⊘ cancelled" for the same Esc. The block now reads
"⊘ … · cancelled" in the muted colour of a stopped sub-agent; exec's text output names the
call cancelled too.
"""

from __future__ import annotations

import asyncio
import io

import pytest
from pilot_helpers import wait_until
from textual.color import Color
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.core.context.pairing import cancelled_result
from paicli_tui.core.contracts import events as ev
from paicli_tui.core.messages import Message
from paicli_tui.ui.widgets.tool_block import ToolBlock, recorded_status


async def test_esc_during_a_command_leaves_it_cancelled(settings, project_dir) -> None:
    hold = asyncio.Event()  # never set: the command runs until Esc
    script = [ev.ToolCallStarted("c1", "execute_command", '{"command": "sleep 30"}'), hold]
    app = PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=FakeSession(script=script), client=FakeClient()))
    async with app.run_test(size=(80, 24)) as pilot:
        chat = app.screen
        await wait_until(pilot, lambda: chat.session is not None)
        await pilot.press(*"go", "enter")
        await wait_until(pilot, lambda: bool(chat.query(ToolBlock)))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not chat.turn_running)
        block = chat.query_one(ToolBlock)
        assert block.status == "cancelled"
        assert block.title.startswith("⊘ execute_command command=sleep 30 · cancelled")
        assert "failed" not in block.title
        assert block.has_class("status-cancelled") and not block.has_class("status-failed")
        assert "stopped before it finished" in str(block._preview.render())
        colours = app.get_css_variables()
        title = block.query_one("CollapsibleTitle").styles
        assert title.auto_color, "muted ($text-muted, as a stopped sub-agent's), not red"
        assert title.color.hex != Color.parse(colours["error"]).hex


def test_exec_names_a_command_stopped_by_ctrl_c_cancelled() -> None:
    from paicli_tui.commands.exec_cmd import _Printer

    out, err = io.StringIO(), io.StringIO()
    printer = _Printer(as_json=False, out=out, err=err)
    printer.emit(ev.ToolCallStarted("c1", "read_file", '{"path": "a.py"}'))
    printer.emit(ev.ToolCallFinished("c1", "read_file", "done", "A = 1"))
    printer.emit(ev.ToolCallStarted("c2", "execute_command", '{"command": "sleep 30"}'))
    printer.cancel_running()
    assert err.getvalue().splitlines()[-1] == (
        "  execute_command: cancelled (stopped before it finished; it may have run in part)")
    assert "read_file: cancelled" not in err.getvalue()


@pytest.mark.parametrize(("result", "status"), [
    (None, "failed"),  # never answered
    (Message.tool("c1", "execute_command", "ok"), "done"),
    (Message.tool("c1", "execute_command", "no", status="failed"), "failed"),
    (cancelled_result("c1", "execute_command"), "cancelled"),  # its turn was stopped
    (cancelled_result("c1", "execute_command", asked=True), "denied"),  # at its approval
])
def test_recorded_status(result, status) -> None:
    assert recorded_status(result) == status

