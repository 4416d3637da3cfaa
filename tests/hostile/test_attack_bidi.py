"""Attack table, text that reorders itself on the screen (Trojan Source, CVE-2021-42574): the
bidirectional embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069) make
a terminal that lays out bidirectional text (VTE's, Konsole's) draw what follows them in
another order, and draw nothing of themselves anywhere else. A repository's file named
``invoice\\u202egnp.py`` was listed as it is by list_dir, glob_files and grep_code, printed
so by ``paicli-tui exec``, and drawn so by the TUI (a command in the approval dialog too):
the person saw ``invoiceyp.png`` or a command in another order than the one run. They are
shown as ``\\u202e`` text, like the control characters, and a shown name still finds the
file."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest

from paicli_tui.commands.printable import printable
from paicli_tui.core.agent.tools.files import ListDirTool, ReadFileTool
from paicli_tui.core.code.globbing import glob_files
from paicli_tui.core.code.grep import GrepOptions, grep_code
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.contracts.tools import ToolContext
from paicli_tui.core.text.fsnames import display_name, from_display

REORDERING = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


@pytest.mark.parametrize("mark", REORDERING)
def test_a_reordering_mark_in_a_file_name_is_shown_as_text(mark: str, project_dir: Path,
                                                           settings) -> None:
    name = f"invoice{mark}gnp.py"
    (project_dir / name).write_text("needle = 1\n")
    shown = f"invoice\\u{ord(mark):04x}gnp.py"
    assert display_name(name) == shown and from_display(shown) == name
    assert glob_files(project_dir, "*.py").text == shown
    assert grep_code(project_dir, GrepOptions("needle"), use_ripgrep=False
                     ).text.startswith(f"{shown}:1:needle")
    context = ToolContext(project_root=project_dir, settings=settings,
                          session=SessionState("s"))
    listed = asyncio.run(ListDirTool().run({"path": "."}, context))
    assert shown in listed.content and mark not in listed.content
    read = asyncio.run(ReadFileTool().run({"path": shown}, context))
    assert read.status == "done" and "needle = 1" in read.content


@pytest.mark.parametrize("mark", REORDERING)
def test_exec_prints_a_reordering_mark_as_text(mark: str) -> None:
    command = f"cat notes.txt {mark}; rm -rf ~ {mark}"
    assert printable(command) == command.replace(mark, f"\\u{ord(mark):04x}")


@pytest.mark.parametrize("mark", REORDERING)
def test_the_tui_draws_a_reordering_mark_as_text(mark: str) -> None:
    from rich.console import Console
    from rich.text import Text
    from textual.content import Content

    from paicli_tui.ui.terminal_text import show_control_characters

    show_control_characters()
    out = io.StringIO()
    Console(file=out, force_terminal=True, width=80).print(Text(f"approve: ls {mark}x"))
    assert mark not in out.getvalue() and f"\\u{ord(mark):04x}" in out.getvalue()
    assert Content(f"ls {mark}x").plain == f"ls \\u{ord(mark):04x}x"


def test_other_right_to_left_text_is_left_alone() -> None:
    # Hebrew and Arabic letters, and the implicit marks they use, are text, not controls
    text = "שלום עולם \u200f مرحبا \u200e done"
    assert display_name(text) == text and printable(text) == text
