"""The Textual application (filled in by the TUI issue)."""

from __future__ import annotations

from .config import Settings


def run_app(settings: Settings, project_dir: str, resume: str | None) -> int:
    raise SystemExit("paicli-tui: the full-screen interface is not built yet")
