"""Find the prompt and style files from a checkout and from an installed wheel.

In a checkout they sit at the top level (``prompts/``, ``styles/``); the wheel carries them
inside the package (``paicli_tui/prompts``), see ``pyproject.toml``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def _resource_dir(name: str) -> Path:
    for candidate in (_PACKAGE_DIR / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"paicli-tui is missing its {name}/ folder (looked beside {_PACKAGE_DIR})")


def prompts_dir() -> Path:
    return _resource_dir("prompts")


def styles_dir() -> Path:
    return _resource_dir("styles")


@cache
def load_prompt(name: str) -> str:
    """Text of ``prompts/<name>.md`` (cached: prompts never change while the program runs)."""
    return (prompts_dir() / f"{name}.md").read_text(encoding="utf-8")


def style_paths() -> list[Path]:
    return sorted(styles_dir().glob("*.tcss"))
