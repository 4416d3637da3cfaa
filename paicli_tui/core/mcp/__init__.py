"""MCP servers: configured stdio servers started with the session, their tools offered as
``mcp__<server>__<tool>``, every result external content (behaviour §16)."""

from .config import (
    McpServerConfig,
    ProjectServers,
    approve_project_servers,
    project_servers,
    servers_from_settings,
)
from .manager import McpManager
from .session_start import approve_and_start_project_servers, start_mcp
from .status import ServerStatus

__all__ = ["McpManager", "McpServerConfig", "ProjectServers", "ServerStatus",
           "approve_and_start_project_servers", "approve_project_servers", "project_servers",
           "servers_from_settings", "start_mcp"]
