"""The wheel ships prompts/ and styles/ inside the package and runs from a fresh venv.

Builds the wheel from this checkout, installs it (no dependencies) into a new venv and runs
``paicli-tui --version`` plus a resource check there. Dependencies resolve offline through
PYTHONPATH pointing at this interpreter's site-packages; PYTHONPATH does not process ``.pth``
files, so the editable checkout cannot shadow the installed wheel (asserted below).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import paicli_tui

CHECKOUT = Path(paicli_tui.__file__).resolve().parent.parent

CHECK = """
import json, paicli_tui, paicli_tui.resources as r
print(json.dumps({
    "package": paicli_tui.__file__,
    "prompts": str(r.prompts_dir()),
    "styles": str(r.styles_dir()),
    "summary_prompt": len(r.load_prompt("summary")),
    "base_prompt": len(r.load_prompt("base")),
    "styles_found": [p.name for p in r.style_paths()],
    "glossary_words": len(__import__(
        "paicli_tui.core.text.devvocab", fromlist=["x"]).DEV_VOCABULARY),
    "thesaurus_groups": len(__import__(
        "paicli_tui.core.code.query.synonyms", fromlist=["x"]).groups()),
}))
"""


def _run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(argv, capture_output=True, text=True, timeout=300, **kwargs)
    assert result.returncode == 0, f"{argv} failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.mark.slow
def test_wheel_installs_into_fresh_venv(tmp_path: Path) -> None:
    if not (CHECKOUT / "pyproject.toml").is_file():
        pytest.skip("not running from a checkout")
    pytest.importorskip("hatchling", reason="hatchling is in the test extra")
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
          "--no-index", "-q", "-w", str(dist), str(CHECKOUT)])
    wheels = list(dist.glob("paicli_tui-*.whl"))
    assert len(wheels) == 1

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
          "--no-index", "-q", str(wheels[0])])

    env = {**os.environ, "PYTHONPATH": sysconfig.get_paths()["purelib"],
           "PAICLI_HOME": str(tmp_path / "home")}
    version = _run([str(venv / "bin" / "paicli-tui"), "--version"], env=env, cwd=tmp_path)
    assert version.stdout.strip() == f"paicli-tui {paicli_tui.__version__}"

    found = json.loads(_run([str(python), "-c", CHECK], env=env, cwd=tmp_path).stdout)
    venv_root = str(venv.resolve())
    for key in ("package", "prompts", "styles"):
        assert str(Path(found[key]).resolve()).startswith(venv_root), (key, found[key])
    assert found["summary_prompt"] > 0 and found["base_prompt"] > 0
    assert "app.tcss" in found["styles_found"]
    # the code-search data tables ship inside the wheel (a Chinese question needs the glossary)
    assert found["glossary_words"] > 1000 and found["thesaurus_groups"] > 200
