"""Keys a person presses in a real terminal, checked in tmux against the scripted
OpenAI-compatible server (skipped without tmux): Ctrl+C stops a turn waiting for the model
and then clears a half-typed message; PgUp in the input scrolls a conversation taller than
the screen back to its start and PgDn returns to the end, while typing stays in the input.
Found in the stranger's trial: Ctrl+C only showed Textual's quit hint, PgUp did nothing."""

from __future__ import annotations

from pathlib import Path

from e2e_fake_openai import FakeOpenAI
from test_e2e_tmux_chat import launch, pytestmark  # noqa: F401 - slow, skipped without tmux


def test_ctrl_c_and_page_keys_in_a_real_terminal(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir()
    with FakeOpenAI({}) as server:
        server.chat, server.delay_s = True, 3.0
        pane = launch(home, project, server.base_url)
        try:
            pane.wait_for("proj · custom:fake · 0 memories")
            pane.type("stop me")
            pane.keys("Enter")
            pane.wait_for("Waiting for custom:fake")
            pane.keys("C-c")
            pane.wait_for("Turn cancelled.")
            assert "You said: stop me" not in pane.screen()
            pane.type("half a thought")
            pane.wait_for("half a thought")
            pane.keys("C-c")
            pane.wait_for("Ask about this project")  # the placeholder: the input is empty
            server.delay_s = 0.0
            for n in range(8):  # taller than the 30-row screen
                pane.type(f"message {n} " + "word " * 30)
                pane.keys("Enter")
                pane.wait_for(f"You said: message {n}")
            pane.wait_for("0 memories", gone=True)  # the welcome line scrolled away
            pane.type("draft")
            for _ in range(12):
                pane.keys("PPage")
            pane.wait_for("proj · custom:fake · 0 memories")
            pane.keys("End")
            pane.type("ed")
            for _ in range(12):
                pane.keys("NPage")
            pane.wait_for("You said: message 7")
            assert pane.input_line() == "drafted"
        finally:
            pane.close()
    assert server.problems == []
