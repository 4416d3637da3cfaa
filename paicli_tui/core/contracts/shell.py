"""Shell-command classification shared by the command tool and the memory guard."""

from __future__ import annotations

import os
import re
import shlex

# Commands whose output comes from outside the project (SPEC §16 external content guard).
NETWORK_COMMANDS = frozenset({
    "curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "telnet", "ftp",
    "http", "https", "xh", "aria2c", "lynx", "w3m", "links", "gh", "httpie", "socat",
    "dig", "nslookup", "whois", "host", "ping", "svn", "hg",
})
NETWORK_GIT = frozenset({"clone", "fetch", "pull", "ls-remote", "remote", "submodule"})
# Programs that reach the network only with some sub-commands (docker pull, pip download…).
NETWORK_SUBCOMMANDS = {
    "docker": frozenset({"pull", "login", "search"}),
    "podman": frozenset({"pull", "login", "search"}),
    "ollama": frozenset({"pull"}),
    "pip": frozenset({"download", "install", "search"}),
    "npm": frozenset({"install", "i", "view", "info", "search"}),
}
_WRAPPERS = frozenset({"sudo", "time", "env", "nohup", "exec", "command", "xargs", "timeout"})
_SEPARATORS = re.compile(r"\|\||&&|[;|&\n()`]|\$\(")


def is_network_command(command: str) -> bool:
    """True when any simple command in ``command`` reaches the network (curl, git clone…)."""
    for part in _SEPARATORS.split(command):
        try:
            words = shlex.split(part, comments=True)
        except ValueError:
            words = part.split()
        words = [w for w in words if "=" not in w.split("/")[0] or w.startswith("-")]
        while words and (os.path.basename(words[0]) in _WRAPPERS or words[0].startswith("-")
                         or words[0].isdigit()):
            words = words[1:]
        if not words:
            continue
        program = os.path.basename(words[0])
        if program in NETWORK_COMMANDS:
            return True
        if program == "git" and any(w in NETWORK_GIT for w in words[1:5]):
            return True
        if any(w in NETWORK_SUBCOMMANDS.get(program, ()) for w in words[1:3]):
            return True
    return False
