"""LocalCodeService: the code tools of one project, as the agent loop sees them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ...config import Settings
from ...paths import normalise_project_root
from ..contracts.tools import Tool
from .tools import CodeGraphTool, GlobFilesTool, GrepCodeTool, SearchCodeTool


class LocalCodeService:
    """Implements core.contracts.services.CodeService for a project on the local disk.

    Building it is cheap: the index, embedder and graph are opened only when a tool runs.
    """

    def __init__(self, settings: Settings, project_root: Path) -> None:
        self.settings = settings
        self.project_root = normalise_project_root(project_root)

    def tools(self) -> Sequence[Tool]:
        """grep_code, glob_files, search_code, code_graph (in that order)."""
        return [
            GrepCodeTool(self.project_root),
            GlobFilesTool(self.project_root),
            SearchCodeTool(self.settings, self.project_root),
            CodeGraphTool(self.settings, self.project_root),
        ]
