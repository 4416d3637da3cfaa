"""Small project trees for tests: relative path -> text, written under a temporary root."""

from __future__ import annotations

from pathlib import Path


def write_files(root: Path, files: dict[str, str]) -> None:
    """Write every file (parent folders made) under ``root``."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
