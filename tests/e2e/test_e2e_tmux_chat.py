"""The chat in a real terminal: `paicli-tui` inside tmux against the scripted OpenAI-compatible
server, typed the way a person types (one key at a time with `send-keys`), read back with
`capture-pane`. Runs only where tmux is installed (CI does not promise it).

What it walks through, in one session at 100x30:
- the welcome line (folder, model, memories, index state);
- `/m` + Tab opens the slash menu on /memory, Tab again moves to /mcp, Esc closes the menu and
  keeps the text;
- a message sent while the model is slow: the spinner line "Waiting for custom:fake · N s ·
  Esc to interrupt"; a second message typed during the turn is queued and sent after it;
- a read-only command (`ls -la | head`) runs without a dialog and its block says so;
- a command that needs approval: the dialog, the status line saying what the turn waits for,
  the y of someone who has read it (the dialog waits for a quiet keyboard) approves, Esc
  during the command cancels the turn and the next keys reach the input;
- F1: the help, with `/memory [list|search|delete|` wrapped after a `|`, not mid-word;
- F3: code search in grep mode shows the matched line and "1 matching line in 1 file";
  keys typed on the results go into the query; Esc goes back to the chat;
- Ctrl+Q prints the resume hint; `paicli-tui sessions` lists that one session, and a launch
  closed without a word adds none.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from e2e_fake_openai import FakeOpenAI

from paicli_tui.ui.modals.quiet_start import QuietStart

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]

SCRIPT = {1: [[("execute_command", {"command": "ls -la | head"})]],
          2: [[("execute_command", {"command": "sleep 30"})]]}
WAIT_S = 60.0


class Pane:
    """One tmux session on a private server, driven like a person at the keyboard."""

    def __init__(self, command: str, size: tuple[int, int], home: Path | None = None) -> None:
        self.home = home  # PAICLI_HOME: its log goes into a failure's message
        self.socket = f"paicli-test-{uuid.uuid4().hex[:8]}"
        self.tmux("new-session", "-d", "-s", "t", "-x", str(size[0]), "-y", str(size[1]),
                  command)

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True,
                              text=True, timeout=30)
        return done.stdout

    def keys(self, *names: str) -> None:
        for name in names:
            self.tmux("send-keys", "-t", "t", name)
            time.sleep(0.05)

    def type(self, text: str) -> None:
        for char in text:  # one key at a time, as fast as a quick typist
            self.tmux("send-keys", "-t", "t", "-l", char)
            time.sleep(0.03)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "t")

    def wait_for(self, text: str, *, gone: bool = False) -> str:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            screen = self.screen()
            if (text in screen) != gone:
                return screen
            time.sleep(0.2)
        pytest.fail(f"{'still' if gone else 'never'} on screen: {text!r}\n{self.screen()}"
                    f"{self.log_tail()}")

    def log_tail(self, lines: int = 40) -> str:
        """The app's own log, last lines: what a failure on a loaded CI machine needs to be
        understood afterwards (the screen alone once showed a reply cut with no cause)."""
        if self.home is None:
            return ""
        logs = sorted((self.home / "logs").glob("*.log*"))
        text = "".join(log.read_text(encoding="utf-8", errors="replace") for log in logs)
        return "\n--- app log ---\n" + "\n".join(text.splitlines()[-lines:])

    def input_line(self) -> str:
        """The text in the input box (the line between its borders)."""
        lines = self.screen().splitlines()
        top = max(i for i, line in enumerate(lines) if line.startswith("╭"))
        return lines[top + 1].strip("│ ")

    def answer_the_dialog(self, key: str, then: str) -> None:
        """Press ``key`` in the dialog on screen once it takes keys, until ``then`` shows.
        A person reads the dialog before answering: it takes keys only once the keyboard has
        been quiet for ARM_AFTER_S after it opened (a key typed sooner goes into the message
        being written; the pilot tests of quiet_start.py cover that). On a busy machine the
        app can open it, or run its timer, well after the screen shows it, so a key that
        went into the message is taken back and pressed again a moment later."""
        for _ in range(10):
            time.sleep(QuietStart.ARM_AFTER_S + 0.5)
            self.keys(key)
            deadline = time.monotonic() + WAIT_S
            while time.monotonic() < deadline:
                if then in self.screen():
                    return
                if self.input_line() == key:  # typed into the message, not answered
                    break
                time.sleep(0.2)
            else:
                pytest.fail(f"never on screen: {then!r}\n{self.screen()}{self.log_tail()}")
            self.keys("BSpace")
            self.wait_for_input("")
        pytest.fail(f"the dialog never took {key!r}\n{self.screen()}{self.log_tail()}")

    def wait_for_input(self, text: str) -> None:
        deadline = time.monotonic() + WAIT_S
        while self.input_line() != text:
            if time.monotonic() > deadline:
                pytest.fail(f"the input never read {text!r}\n{self.screen()}")
            time.sleep(0.2)

    def close(self) -> None:
        self.tmux("kill-server")


def launch(home: Path, project: Path, base_url: str) -> Pane:
    env = {"PAICLI_HOME": str(home), "PAICLI_PROVIDER": "custom", "PAICLI_BASE_URL": base_url,
           "PAICLI_MODEL": "fake", "PAICLI_API_KEY": "tmux-trial-key-0123456789",
           "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "tmux-256color",
           "LANG": "C.UTF-8"}
    command = " ".join(["env", "-i", *(f"{k}={shlex.quote(v)}" for k, v in env.items()),
                        shlex.quote(sys.executable), "-m", "paicli_tui",
                        shlex.quote(str(project)),
                        # keep the pane after the app quits, to read what it printed
                        "; sleep 60"])
    return Pane(command, (100, 30), home)


def sessions(home: Path, project: Path) -> list[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAICLI_")}
    done = subprocess.run([sys.executable, "-m", "paicli_tui", "sessions", "--json",
                           "--project", str(project)], env={**env, "PAICLI_HOME": str(home)},
                          capture_output=True, text=True, timeout=120, check=True)
    return [s["session"] for s in json.loads(done.stdout)["sessions"]]


def test_a_person_at_the_keyboard(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir()
    (project / "loader.py").write_text("import os\n\n\ndef load_settings(env):\n"
                                       "    return dict(env)\n", encoding="utf-8")
    with FakeOpenAI(SCRIPT) as server:
        server.chat, server.delay_s = True, 2.0
        idle = launch(home, project, server.base_url)
        try:
            idle.wait_for("no code index yet")
            idle.keys("C-q")
            idle.wait_for("Ask about this project", gone=True)
        finally:
            idle.close()
        assert sessions(home, project) == []

        pane = launch(home, project, server.base_url)
        try:
            pane.wait_for("proj · custom:fake · 0 memories · no code index yet")
            # the slash menu: Tab cycles, Esc closes and keeps the text
            pane.type("/m")
            pane.keys("Tab")
            pane.wait_for("❯ /memory")
            pane.keys("Tab")
            pane.wait_for("❯ /mcp")
            pane.keys("Escape")
            pane.wait_for("Tab / ↑↓ choose", gone=True)
            assert pane.input_line() == "/mcp"
            pane.keys(*["BSpace"] * 6)
            # a slow model: signs of life; a message typed meanwhile is queued, then sent
            pane.type("TURN 1 list the files")
            pane.keys("Enter")
            pane.wait_for("Waiting for custom:fake")
            assert "Esc to interrupt" in pane.screen()
            pane.type("and say hi")
            pane.keys("Enter")
            pane.wait_for("↳ queued: and say hi")
            pane.wait_for("execute_command command=ls -la | head · done · read-only, no "
                          "approval")
            pane.wait_for("You said: and say hi")
            # approval, the status line while it waits, Esc during the command
            pane.type("TURN 2 wait a while")
            pane.keys("Enter")
            screen = pane.wait_for("Allow execute_command?")
            assert "Waiting for your approval of execute_command" in pane.wait_for(
                "Waiting for your approval")
            pane.answer_the_dialog("y", "Running execute_command")
            pane.keys("Escape")
            pane.wait_for("Turn cancelled.")
            pane.type("typed after esc")
            pane.wait_for("typed after esc")
            assert pane.input_line() == "typed after esc"
            pane.keys(*["BSpace"] * 16)
            # help: long usages wrap after a '|', never inside a word
            pane.keys("F1")
            screen = pane.wait_for("Slash commands (type / in the input)")
            # the usage's lines, each cut after a '|', the next indented two cells more
            lines = [line for line in screen.splitlines() if "/memory [" in line]
            row = screen.splitlines().index(lines[0])
            first, rest = lines[0], screen.splitlines()[row + 1]
            start = first.index("/memory")
            head = first[start:].split("  ")[0]
            indent, tail = rest[start:start + 2], rest[start + 2:].split("  ")[0]
            assert head.endswith("|") and indent == "  " and not tail[:1].isspace(), screen
            assert head + tail == "/memory [list|search|delete|verify|replace|clear] …"
            pane.keys("Escape")
            pane.wait_for("Slash commands (type / in the input)", gone=True)
            # code search: grep mode without an index, the matched line and the count
            pane.keys("F3")
            pane.wait_for("code search")
            pane.wait_for("grep")
            pane.type("load_settings")
            pane.keys("Enter")
            screen = pane.wait_for("1 matching line in 1 file")
            assert "loader.py:4" in screen and "def load_settings(env):" in screen
            pane.keys("Down")
            pane.type("x")
            pane.wait_for("load_settingsx")
            pane.keys("Escape")
            pane.wait_for("Ask about this project")
            # quit: the resume hint, and one session listed
            pane.keys("C-q")
            screen = pane.wait_for("Resume this conversation: paicli-tui --resume ")
        finally:
            pane.close()
    hint = next(line for line in screen.splitlines() if "--resume" in line)
    session_id = hint.rsplit(" ", 1)[-1]
    assert sessions(home, project) == [session_id]
    assert server.problems == []
