"""Tools that read the web: ``web_fetch`` (always there) and ``web_search`` (only when a search
backend is configured). Everything they return counts as external content (behaviour §16)."""

from .fetch import WebFetchTool
from .search import WebSearchTool

__all__ = ["WebFetchTool", "WebSearchTool"]
