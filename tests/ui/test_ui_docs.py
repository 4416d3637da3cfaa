"""docs/tui.md lists every key and slash command the app has (same tables as /help)."""

from __future__ import annotations

from pathlib import Path

from paicli_tui.ui.modals.help import help_markdown
from paicli_tui.ui.slash import SLASH_COMMANDS

DOC = Path(__file__).resolve().parents[2] / "docs" / "tui.md"


def test_docs_carry_the_help_tables() -> None:
    assert help_markdown() in DOC.read_text(encoding="utf-8"), \
        "regenerate the key and command tables in docs/tui.md from help_markdown()"


def test_every_spec_command_is_a_slash_command() -> None:
    spec = {"/save", "/memory", "/compact", "/context", "/clear", "/resume", "/index",
            "/graph", "/model", "/help"}
    assert spec <= {c.name for c in SLASH_COMMANDS}
