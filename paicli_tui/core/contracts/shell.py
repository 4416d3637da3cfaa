"""Shell-command classification shared by the command tool and the memory guard (behaviour §16).

"May this command bring content from outside the project?" is decided by reading the command
the way the shell would: lists and pipelines are split (quotes respected), wrappers (``sudo``,
``env``, ``timeout``, ``xargs``…) are looked through, ``bash -c`` / ``sh -c`` scripts, ``eval``
arguments, ``$(…)`` and backtick substitutions are read recursively, variables assigned in the
same line are followed (``c=curl; $c …``), and interpreter code (``python3 -c``, ``node -e``,
a here-document fed to ``python3 -``) is searched for network modules. Anything whose program
cannot be known from the text (``$c`` unassigned, ``$(which curl)``, obfuscated code such as
``exec(bytes.fromhex(…))``) counts as external: when a command cannot be shown local, it is
not taken for local. Running the project's own programs and scripts (``pytest``,
``python tool.py``, ``make``) counts as local.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

# Programs whose whole job is talking to another machine.
NETWORK_COMMANDS = frozenset({
    "curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "telnet", "ftp",
    "http", "https", "xh", "aria2c", "lynx", "w3m", "links", "elinks", "gh", "glab", "httpie",
    "socat", "dig", "nslookup", "whois", "host", "ping", "svn", "hg", "lftp", "tftp",
    "openssl", "mosh", "fetch", "axel", "curlie", "grpcurl", "websocat", "wscat",
    "ngrok", "npx", "pnpx", "bunx", "uvx", "pipx", "yt-dlp", "youtube-dl", "s3cmd",
    "aws", "gcloud", "gsutil", "az", "kubectl", "helm", "heroku", "vercel", "netlify",
})
# git sub-commands that talk to a remote.
NETWORK_GIT = frozenset({"clone", "fetch", "pull", "push", "ls-remote", "remote", "submodule",
                         "archive", "request-pull", "send-email", "svn", "p4", "lfs"})
# Programs that reach the network with some sub-commands (package managers, containers).
NETWORK_SUBCOMMANDS = {
    "docker": frozenset({"pull", "login", "search", "push", "run", "build", "create"}),
    "podman": frozenset({"pull", "login", "search", "push", "run", "build", "create"}),
    "ollama": frozenset({"pull", "push", "run"}),
    "pip": frozenset({"download", "install", "search", "index", "wheel"}),
    "uv": frozenset({"add", "sync", "lock", "tool", "pip", "python", "init", "publish"}),
    "poetry": frozenset({"add", "install", "update", "lock", "publish", "search"}),
    "pdm": frozenset({"add", "install", "update", "lock", "sync", "publish"}),
    "conda": frozenset({"install", "create", "update", "search"}),
    "mamba": frozenset({"install", "create", "update", "search"}),
    "npm": frozenset({"install", "i", "ci", "add", "update", "view", "info", "search",
                      "publish", "exec", "create", "init", "audit", "outdated", "login"}),
    "yarn": frozenset({"add", "install", "upgrade", "dlx", "create", "info", "npm", "up"}),
    "pnpm": frozenset({"add", "install", "i", "update", "up", "dlx", "create", "view"}),
    "bun": frozenset({"add", "install", "i", "update", "x", "create"}),
    "gem": frozenset({"install", "fetch", "update", "search", "push"}),
    "bundle": frozenset({"install", "update", "add"}),
    # building and testing fetch only what is missing: not counted (cargo test, go test)
    "cargo": frozenset({"install", "fetch", "update", "add", "search", "publish"}),
    "go": frozenset({"get", "install", "mod", "download"}),
    "apt": frozenset({"install", "update", "upgrade", "download", "source"}),
    "apt-get": frozenset({"install", "update", "upgrade", "download", "source"}),
    "yum": frozenset({"install", "update", "upgrade", "download"}),
    "dnf": frozenset({"install", "update", "upgrade", "download"}),
    "apk": frozenset({"add", "update", "upgrade", "fetch"}),
    "brew": frozenset({"install", "update", "upgrade", "fetch", "tap", "search", "info"}),
    "composer": frozenset({"install", "require", "update", "create-project"}),
    "mvn": frozenset({"dependency:get", "dependency:resolve", "deploy", "-U"}),
    "deno": frozenset({"run", "install", "cache", "add"}),
}
_PIP_LIKE = {"pip3": "pip"}
_WRAPPERS = frozenset({"sudo", "doas", "time", "nohup", "exec", "command", "builtin",
                       "nice", "ionice", "stdbuf", "setsid", "unbuffer", "chronic", "watch",
                       "strace", "ltrace", "caffeinate", "chrt", "taskset", "flock", "then",
                       "do", "else", "elif", "if", "while", "until", "!", "{", "}", "in"})
# Wrappers that take an argument before the command (timeout 5 curl …, flock f curl …).
_WRAPPER_ARGS = {"timeout": 1, "flock": 1, "taskset": 1, "chrt": 1, "watch": 0}
# Options of wrappers that take a value (sudo -u bob curl …, nice -n 5 curl …).
_VALUE_OPTIONS = frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-n", "-c",
                            "-s", "-k", "-I", "-d", "-P", "-L", "-i", "-o", "-e", "-S",
                            "--user", "--group", "--signal", "--kill-after", "-a", "-E"})
# Programs that only print or match their arguments: a URL there is text, not a fetch.
_TEXT_ONLY = frozenset({"echo", "printf", "grep", "egrep", "fgrep", "rg", "ag", "sed", "test",
                        "[", "true", "false", ":", "git", "cat", "less", "head", "tail", "wc",
                        "jq", "yq", "sort", "uniq", "tr", "cut", "basename", "dirname"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "busybox"})
_INTERPRETERS = re.compile(
    r"^(?:python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|ruby|perl|php|lua[0-9.]*|luajit"
    r"|Rscript|R|julia|osascript|pwsh|powershell|tclsh|wish|groovy|scala|kotlin|java|jshell"
    r"|swift|awk|gawk|mawk|nawk)$")
# Code that reaches the network, or hides what it runs, in any of those languages.
_NETWORK_CODE = re.compile(
    r"(?i)urllib|urlopen|\brequests\b|http\.client|httplib|\bhttpx\b|aiohttp|\bsocket\b"
    r"|ftplib|smtplib|poplib|imaplib|telnetlib|xmlrpc|websocket|paramiko|pycurl|\bboto"
    r"|\bfetch\s*\(|XMLHttpRequest|\brequire\s*\(\s*['\"](?:node:)?(?:https?|net|dgram|tls"
    r"|axios|node-fetch|request|got|undici)['\"]|from\s+['\"](?:axios|node-fetch|undici)"
    r"|\bimport\s+(?:axios|got)|Net::HTTP|open-uri|\bLWP\b|HTTP::Tiny|IO::Socket|Socket::"
    r"|curl_init|fsockopen|stream_socket|file_get_contents\s*\(\s*['\"]\w+://"
    r"|Invoke-WebRequest|Invoke-RestMethod|\biwr\b|\birm\b|Net\.WebClient|download\.file"
    r"|url\s*\(|\bcurl\b|\bwget\b|\w+://|/dev/(?:tcp|udp)/"
    # hidden code: what runs cannot be read from the command
    r"|\bexec\s*\(|\beval\s*\(|__import__|\bcompile\s*\(|b64decode|fromhex|codecs\.decode"
    r"|\bimportlib|\bFunction\s*\(|\batob\s*\(|Buffer\.from|\bpack\s*\(|\bsystem\s*\("
    r"|\bsubprocess\b|os\.system|os\.popen|child_process|\bspawn\s*\(|`")
_URL_ARGUMENT = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|[\w.-]+@[\w.-]+:|git@)", re.IGNORECASE)
_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\+?=)(.*)$", re.DOTALL)
_VARIABLE = re.compile(r"^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$")
_OPERATORS = frozenset({";", "&&", "||", "|", "&", "|&", ";;", "(", ")", "\n", ";&", ";;&"})
_REDIRECT = re.compile(r"^[0-9]*(?:[<>]&?|&>|>>|<<<?|<>|>\|)$")
MAX_DEPTH = 6


@dataclass(frozen=True)
class Verdict:
    """Whether a command may bring outside content, and why (for the approval dialog)."""

    external: bool
    reason: str = ""


_LOCAL = Verdict(False)


def _external(reason: str) -> Verdict:
    return Verdict(True, reason)


def _substitutions(word: str) -> list[str]:
    """The bodies of ``$(…)`` and backtick substitutions in one word (outermost only)."""
    bodies: list[str] = []
    i = 0
    while i < len(word):
        if word.startswith("$(", i) and not word.startswith("$((", i):
            depth, j = 1, i + 2
            while j < len(word) and depth:
                depth += {"(": 1, ")": -1}.get(word[j], 0)
                j += 1
            bodies.append(word[i + 2:j - 1])
            i = j
        elif word[i] == "`":
            j = word.find("`", i + 1)
            j = len(word) if j == -1 else j
            bodies.append(word[i + 1:j])
            i = j + 1
        else:
            i += 1
    return bodies


def _words(command: str) -> list[str] | None:
    """Tokens of the command line (operators as their own tokens); None when unparsable."""
    # a newline ends a command like ';' (inside quotes too: harmless for this reading);
    # comments are not stripped, so a '#' word is read as a harmless program name
    lexer = shlex.shlex(command.replace("\n", " ; "), posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return [t if t else "''" for t in lexer]
    except ValueError:  # an unclosed quote: the shell would not run it either, but be safe
        return None


class _Reader:
    def __init__(self, text: str, depth: int) -> None:
        self.text = text
        self.depth = depth
        self.variables: dict[str, str] = {}

    def verdict(self) -> Verdict:
        if self.depth > MAX_DEPTH:
            return _external("nested too deeply to read")
        if re.search(r"/dev/(?:tcp|udp)/", self.text):
            return _external("opens a network socket through /dev/tcp")
        words = _words(self.text)
        if words is None:
            return _external("cannot be parsed (unbalanced quotes)")
        # every substitution anywhere is a command of its own
        for word in words:
            for body in _substitutions(word):
                found = _Reader(body, self.depth + 1).verdict()
                if found.external:
                    return found
        simple: list[str] = []
        for word in [*words, ";"]:
            if word in _OPERATORS:
                found = self._simple(simple)
                if found.external:
                    return found
                simple = []
            else:
                simple.append(word)
        return _LOCAL

    def _resolve(self, word: str) -> str | None:
        """The literal a command-position word stands for; None when it cannot be known."""
        match = _VARIABLE.match(word)
        if match:
            return self.variables.get(match.group(1) or match.group(2))
        if "$" in word or "`" in word or "*" in word or "?" in word:
            return None
        return word

    def _simple(self, words: list[str]) -> Verdict:
        # drop redirections (and their targets)
        cleaned: list[str] = []
        skip = False
        for word in words:
            if skip:
                skip = False
                continue
            if _REDIRECT.match(word):
                skip = True
                continue
            cleaned.append(word)
        words = cleaned
        # leading assignments are remembered: c=curl; $c example.com
        while words and _ASSIGNMENT.match(words[0]):
            name, _, value = _ASSIGNMENT.match(words[0]).groups()  # type: ignore[union-attr]
            self.variables[name] = value
            words = words[1:]
        while words:
            head = self._resolve(words[0])
            if head is None:
                return _external(f"runs a program that cannot be known from the text "
                                 f"({words[0][:40]})")
            program = os.path.basename(head)
            if program in _WRAPPERS or program in _WRAPPER_ARGS or program in ("env", "xargs"):
                words = self._after_wrapper(program, words[1:])
                continue
            if program == "eval" or program in ("source", "."):
                if program == "eval":
                    return _Reader(" ".join(words[1:]), self.depth + 1).verdict()
                return _LOCAL
            if program not in _TEXT_ONLY:
                for word in words[1:]:
                    if _URL_ARGUMENT.match(word):
                        return _external(f"{program} is given a remote address ({word[:60]})")
            if program == "find":
                for flag in ("-exec", "-execdir", "-ok", "-okdir"):
                    if flag in words:
                        return self._simple(words[words.index(flag) + 1:])
            return self._program(program, words)
        return _LOCAL

    def _after_wrapper(self, program: str, rest: list[str]) -> list[str]:
        skip = _WRAPPER_ARGS.get(program, 0)
        out = list(rest)
        while out and (out[0].startswith("-") or (program == "env" and "=" in out[0])):
            option = out.pop(0)
            if option in _VALUE_OPTIONS and program != "env" and out:
                out.pop(0)
        while skip and out:
            out.pop(0)
            skip -= 1
        return out

    def _program(self, program: str, words: list[str]) -> Verdict:
        args = words[1:]
        if program in NETWORK_COMMANDS:
            return _external(f"{program} reaches the network")
        if program == "git":
            rest = list(args)
            while rest and rest[0].startswith("-"):
                option = rest.pop(0)
                if option in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") and rest:
                    rest.pop(0)
            if rest and rest[0] in NETWORK_GIT:
                return _external(f"git {rest[0]} talks to a remote")
            return _LOCAL
        base = _PIP_LIKE.get(program, program)
        if re.match(r"^pip[0-9.]*$", base):
            base = "pip"
        subcommands = NETWORK_SUBCOMMANDS.get(base)
        if subcommands is not None:
            named = [a for a in args if not a.startswith("-") or a in subcommands][:2]
            if program in ("yarn", "bundle") and not named:
                return _external(f"{program} installs packages")
            if any(a in subcommands for a in named):
                return _external(f"{program} {named[0]} downloads or publishes")
            return _LOCAL
        if program in _SHELLS:
            return self._shell(program, args)
        if _INTERPRETERS.match(program):
            return self._interpreter(program, args)
        return _LOCAL

    def _shell(self, program: str, args: list[str]) -> Verdict:
        rest = list(args)
        if program == "busybox" and rest:
            return self._simple(rest)
        while rest:
            option = rest.pop(0)
            if option == "-c" or (option.startswith("-") and "c" in option[1:]
                                  and not option.startswith("--")):
                if not rest:
                    return _LOCAL
                return _Reader(rest[0], self.depth + 1).verdict()
            if not option.startswith("-"):
                return _LOCAL  # runs a script file of the project
        # reads its script from standard input: a here-document or a pipe we cannot follow
        return self._code_in_line(program)

    def _interpreter(self, program: str, args: list[str]) -> Verdict:
        for index, arg in enumerate(args):
            if arg in ("-c", "-e", "-E", "--eval", "-r", "-p", "--print", "-x") or (
                    program.startswith(("python", "pypy")) and arg.startswith("-c")):
                code = args[index + 1] if index + 1 < len(args) else arg[2:]
                if _NETWORK_CODE.search(code):
                    return _external(f"{program} code uses the network or hides what it runs")
                return _LOCAL
            if arg == "-m" and index + 1 < len(args):
                module = args[index + 1]
                if module in ("pip", "ensurepip", "venv") and module != "venv":
                    return self._program("pip", ["pip", *args[index + 2:]])
                if re.match(r"^(?:http|urllib|ftplib|smtplib|webbrowser|xmlrpc)", module):
                    return _external(f"{program} -m {module} uses the network")
                return _LOCAL
            if arg == "-" or not arg.startswith("-"):
                if arg == "-":
                    return self._code_in_line(program)
                if _URL_ARGUMENT.match(arg):
                    return _external(f"{program} runs code from {arg[:60]}")
                return _LOCAL  # a script file of the project
        return self._code_in_line(program)

    def _code_in_line(self, program: str) -> Verdict:
        """The program reads code from standard input (a here-document, ``echo … |``): the
        whole command line is the only place to look for what it does."""
        if _NETWORK_CODE.search(self.text):
            return _external(f"{program} reads code that uses the network or hides what it "
                             "runs")
        return _LOCAL


def classify_command(command: str) -> Verdict:
    """Whether ``command`` may bring content from outside the project, and why."""
    if not isinstance(command, str) or not command.strip():
        return _LOCAL
    return _Reader(command, 0).verdict()


def is_network_command(command: str) -> bool:
    """True when ``command`` may reach the network, or cannot be shown not to."""
    return classify_command(command).external
