"""A real MCP stdio server written with the SDK, for the MCP tests (run as a subprocess).

``python mcp_demo_server.py`` serves; ``--crash`` exits at once; ``--hang`` never answers;
``--ignore-eof PID_FILE`` writes its pid to PID_FILE, serves, and then stays running when its
stdin ends (and ignores SIGTERM and SIGHUP), as a careless server does; ``--tidy-on-term FILE``
stays running when its stdin ends too, and on SIGTERM writes "tidied" to FILE and exits;
``--stderr-flood MB`` writes that many megabytes of log lines to stderr before it serves;
``--crash-while-missing FILE`` exits at once as ``--crash`` does until FILE exists;
``--extra-tool NAME`` offers one more tool under NAME (answering its name).
"""

from __future__ import annotations

import os
import sys
import time


def main() -> None:
    if "--crash-while-missing" in sys.argv:
        if not os.path.exists(sys.argv[sys.argv.index("--crash-while-missing") + 1]):
            print("demo server: its database is not there yet", file=sys.stderr)
            sys.exit(3)
    elif "--crash" in sys.argv:
        print("demo server: cannot open its database", file=sys.stderr)
        sys.exit(3)
    if "--hang" in sys.argv:
        time.sleep(600)
        return
    if "--stderr-flood" in sys.argv:  # megabytes of log lines before it serves
        megabytes = int(sys.argv[sys.argv.index("--stderr-flood") + 1])
        line = b"debug: " + b"x" * 1_016 + b"\n"
        for _ in range(megabytes * 1_024):
            sys.stderr.buffer.write(line)
        sys.stderr.flush()
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
    def env_value(name: str) -> str:
        """An environment variable's value, as a careless server's debug output quotes it."""
        return f"{name}={os.environ.get(name, '')}"

    @server.tool()
    def pid() -> str:
        """The server's process id."""
        return str(os.getpid())

    @server.tool()
    def broken() -> str:
        """Always fails."""
        raise RuntimeError("the demo tool broke")

    @server.tool()
    async def hold(started: str) -> str:
        """Write STARTED, then take ten minutes to answer (a call a restart overtakes)."""
        import anyio

        with open(started, "w") as note:
            note.write(str(os.getpid()))
        await anyio.sleep(600)
        return "held"

    @server.tool()
    def die(name: str) -> str:
        """Exit at once, the last stderr line quoting an environment variable's value."""
        print(f"fatal: cannot log in with {os.environ.get(name, '')}", file=sys.stderr,
              flush=True)
        os._exit(4)

    @server.tool()
    def page(lines: int) -> str:
        """Many lines of text."""
        return "\n".join(f"line {i} of the remote page" for i in range(lines))

    if "--extra-tool" in sys.argv:
        extra = sys.argv[sys.argv.index("--extra-tool") + 1]
        server.add_tool(lambda: extra, name=extra, description="A tool named on the command line.")
    if "--ignore-eof" in sys.argv:
        import signal
        from pathlib import Path

        for number in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(number, signal.SIG_IGN)
        Path(sys.argv[sys.argv.index("--ignore-eof") + 1]).write_text(str(os.getpid()))
    if "--tidy-on-term" in sys.argv:
        import signal
        from pathlib import Path

        note = Path(sys.argv[sys.argv.index("--tidy-on-term") + 1])

        def tidy(*_: object) -> None:
            note.write_text("tidied")
            os._exit(0)

        signal.signal(signal.SIGTERM, tidy)
    server.run("stdio")
    if "--tidy-on-term" in sys.argv:
        time.sleep(600)
    if "--ignore-eof" in sys.argv:
        time.sleep(600)


if __name__ == "__main__":
    main()
