"""A real MCP stdio server written with the SDK, for the MCP tests (run as a subprocess).

``python mcp_demo_server.py`` serves; ``--crash`` exits at once; ``--hang`` never answers.
"""

from __future__ import annotations

import os
import sys
import time


def main() -> None:
    if "--crash" in sys.argv:
        print("demo server: cannot open its database", file=sys.stderr)
        sys.exit(3)
    if "--hang" in sys.argv:
        time.sleep(600)
        return
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("demo")

    @server.tool()
    def add(a: int, b: int) -> str:
        """Add two integers."""
        return str(a + b)

    @server.tool()
    def visible_env(name: str) -> str:
        """Say whether an environment variable is set in the server."""
        return "set" if os.environ.get(name) else "unset"

    @server.tool()
    def pid() -> str:
        """The server's process id."""
        return str(os.getpid())

    @server.tool()
    def broken() -> str:
        """Always fails."""
        raise RuntimeError("the demo tool broke")

    @server.tool()
    def page(lines: int) -> str:
        """Many lines of text."""
        return "\n".join(f"line {i} of the remote page" for i in range(lines))

    server.run("stdio")


if __name__ == "__main__":
    main()
