"""paicli-tui: a terminal coding agent with long-term memory and context engineering."""

from __future__ import annotations

__version__ = "0.1.0"
