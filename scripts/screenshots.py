"""Regenerate screenshots/*.svg from the same seeded scenes the snapshot tests check.

    python scripts/screenshots.py            # writes screenshots/<scene>.svg

The scenes (tests/ui/ui_scenarios.py) use seeded data in a temporary PAICLI_HOME and a fixed
terminal size of 100×30, so the pictures only change when the interface does.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "ui"))

from ui_scenarios import SIZE, reach, scenes  # noqa: E402

from paicli_tui.config import load_settings  # noqa: E402


async def main() -> None:
    out = ROOT / "screenshots"
    out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        settings = load_settings({}, {"PAICLI_HOME": str(Path(tmp) / "home")})
        for scene in scenes(settings, project):
            async with scene.app.run_test(size=SIZE) as pilot:
                await reach(pilot, scene)
                scene.app.save_screenshot(f"{scene.name}.svg", path=str(out))
            print(f"screenshots/{scene.name}.svg  {scene.about}")


if __name__ == "__main__":
    asyncio.run(main())
