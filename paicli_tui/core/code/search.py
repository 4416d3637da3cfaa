"""search_code: vector, full-text and hybrid search over the project's code index."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...config import Settings


class SearchError(RuntimeError):
    """The search cannot run (no index, wrong embedder, bad mode); the message says what to do."""


@dataclass
class SearchResponse:
    query: str
    mode: str
    hits: list = field(default_factory=list)


def search_project(settings: Settings, project_root: Path, query: str, *, mode: str = "hybrid",
                   top_k: int = 5) -> SearchResponse:
    """Best ``top_k`` chunks for ``query``. Raises SearchError when there is no index yet."""
    raise SearchError("this project has no code index yet: run `paicli-tui index` (or /index) "
                      "first; meanwhile use grep_code")


def format_hits_for_model(response: SearchResponse) -> str:
    return "No results."
