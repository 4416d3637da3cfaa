"""Running ``paicli-tui COMMAND`` as a person would, in a child process: PAICLI_HOME set, the
real environment's provider settings and keys left out."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_cli(command: str, args: list[str], home: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PAICLI_", "OLLAMA_")) and not k.endswith("_API_KEY")}
    env.update(PAICLI_HOME=str(home), RUST_LOG="error")
    return subprocess.run([sys.executable, "-m", "paicli_tui", command, *args], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=180)
