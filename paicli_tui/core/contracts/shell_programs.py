"""What programs are known to do, for the command guard (behaviour §16): the tables and
patterns :mod:`shell` reads commands with."""

from __future__ import annotations

import re

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
PIP_LIKE = {"pip3": "pip"}
WRAPPERS = frozenset({"sudo", "doas", "time", "nohup", "exec", "command", "builtin",
                       "nice", "ionice", "stdbuf", "setsid", "unbuffer", "chronic",
                       "strace", "ltrace", "caffeinate", "chrt", "taskset", "flock", "then",
                       "unshare", "nsenter", "firejail", "proot", "systemd-run", "catchsegv",
                       "valgrind", "xvfb-run", "dbus-run-session", "entr", "chroot",
                       "do", "else", "elif", "if", "while", "until", "!", "{", "}", "in"})
# Wrappers that take an argument before the command (timeout 5 curl …, flock f curl …).
WRAPPER_ARGS = {"timeout": 1, "flock": 1, "taskset": 1, "chrt": 1, "chroot": 1}
# Options of wrappers that take a value (sudo -u bob curl …, nice -n 5 curl …).
VALUE_OPTIONS = frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-n", "-c",
                            "-s", "-k", "-I", "-d", "-P", "-L", "-i", "-o", "-e", "-S",
                            "--user", "--group", "--signal", "--kill-after", "-a", "-E"})
# Programs that only print or match their arguments: a URL there is text, not a fetch.
TEXT_ONLY = frozenset({"echo", "printf", "grep", "egrep", "fgrep", "rg", "ag", "sed", "test",
                        "[", "true", "false", ":", "git", "cat", "less", "head", "tail", "wc",
                        "jq", "yq", "sort", "uniq", "tr", "cut", "basename", "dirname"})
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "busybox"})
INTERPRETERS = re.compile(
    r"^(?:python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|ruby|perl|php|lua[0-9.]*|luajit"
    r"|Rscript|R|julia|osascript|pwsh|powershell|tclsh|wish|groovy|scala|kotlin|java|jshell"
    r"|swift|awk|gawk|mawk|nawk|expect)$")
# Code that reaches the network, or hides what it runs, in any of those languages.
NETWORK_CODE = re.compile(
    r"(?i)urllib|urlopen|\brequests\b|http\.client|httplib|\bhttpx\b|aiohttp|\bsocket\b"
    r"|ftplib|smtplib|poplib|imaplib|telnetlib|xmlrpc|websocket|paramiko|pycurl|\bboto"
    r"|\bfetch\s*\(|XMLHttpRequest|\brequire\s*\(\s*['\"](?:node:)?(?:https?|net|dgram|tls"
    r"|axios|node-fetch|request|got|undici)['\"]|from\s+['\"](?:axios|node-fetch|undici)"
    r"|\bimport\s+(?:axios|got)|Net::HTTP|open-uri|\bLWP\b|HTTP::Tiny|IO::Socket|Socket::"
    r"|curl_init|fsockopen|stream_socket|file_get_contents\s*\(\s*['\"]\w+://"
    r"|Invoke-WebRequest|Invoke-RestMethod|\biwr\b|\birm\b|Net\.WebClient|download\.file"
    # \b: from a word's start only (\w+:// tried every start in a run of word characters)
    r"|url\s*\(|\bcurl\b|\bwget\b|\b\w+://|/dev/(?:tcp|udp)/"
    # hidden code: what runs cannot be read from the command
    r"|\bexec\s*\(|\beval\s*\(|__import__|\bcompile\s*\(|b64decode|fromhex|codecs\.decode"
    r"|\bimportlib|\bFunction\s*\(|\batob\s*\(|Buffer\.from|\bpack\s*\(|\bsystem\s*\("
    r"|\bsubprocess\b|os\.system|os\.popen|child_process|\bspawn\s*\(|`")
URL_ARGUMENT = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|[\w.-]+@[\w.-]+:|git@)", re.IGNORECASE)
ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\+?=)(.*)$", re.DOTALL)
VARIABLE = re.compile(r"^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$")
OPERATORS = frozenset({";", "&&", "||", "|", "&", "|&", ";;", "(", ")", "\n", ";&", ";;&"})
REDIRECT = re.compile(r"^[0-9]*(?:[<>]&?|&>|>>|<<<?|<>|>\|)$")


# Native code that reaches the network or runs other programs (Rust, Go, C#, Java).
NATIVE_NETWORK = re.compile(
    r"\breqwest\b|\bhyper::|\bureq\b|\bisahc\b|\bsurf::|attohttpc|TcpStream|UdpSocket"
    r"|tokio::net|std::net|async_std::net|\bcurl::|Command::new|std::process"
    r"|\"net/http\"|\"net\"|\"net/rpc\"|\"net/smtp\"|\"os/exec\"|grpc|syscall\.Exec"
    r"|java\.net|HttpClient|ProcessBuilder|Runtime\.getRuntime")
# Programs that copy or write files named by their arguments (the last one for cp/mv/ln).
WRITERS = frozenset({"cp", "mv", "ln", "install", "rsync", "tee", "sed", "perl", "dd",
                      "truncate", "ruby"})
# Commands that change many project files at once (nothing read before can be trusted).
TREE_CHANGERS = {"git": frozenset({"checkout", "switch", "reset", "restore", "apply", "am",
                                    "merge", "rebase", "cherry-pick", "stash", "revert",
                                    "pull", "clone", "worktree", "mv", "rm", "read-tree"}),
                  "patch": None, "unzip": None, "tar": None, "7z": None, "cpio": None,
                  "bsdtar": None, "gunzip": None, "unxz": None}
# Wrappers whose words after the sub-command are a command of its own (uv run pytest).
RUNNERS = {"uv": "run", "poetry": "run", "pdm": "run", "pipenv": "run", "hatch": "run",
            "conda": "run", "bundle": "exec", "rye": "run", "pixi": "run"}
NPM_LIFECYCLE = frozenset({"test", "t", "tst", "start", "stop", "restart"})
NODE_LIKE = frozenset({"node", "nodejs", "deno", "bun"})
HEREDOC = re.compile(r"<<(-?)[ \t]*(['\"]?)([A-Za-z_0-9.-]+)\2")
MAX_DEPTH = 8
# Programs whose arguments are commands or definitions of their own.
COMMAND_ARGUMENTS = frozenset({"alias", "trap", "watch", "su", "runuser", "script", "parallel",
                               "hyperfine", "export", "declare", "typeset", "readonly",
                               "local"})
# Variables that choose which program or code runs: setting them in the line makes what runs
# unknowable from the text.
CODE_CHOOSING = frozenset({
    "BASH_ENV", "ENV", "LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES",
    "DYLD_LIBRARY_PATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONEXECUTABLE",
    "NODE_OPTIONS", "PERL5OPT", "RUBYOPT", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_EXEC_PATH", "GIT_DIR",
    "GIT_TEMPLATE_DIR", "MAKEFLAGS", "MAKEFILES", "IFS", "GOFLAGS",
})
# Variables holding a program (or a command) that something else runs: judged as a command.
PROGRAM_VARIABLES = frozenset({
    "CC", "CXX", "CPP", "LD", "AR", "RUSTC", "RUSTC_WRAPPER", "CARGO_BUILD_RUSTC_WRAPPER",
    "SHELL", "MAKESHELL", "PAGER", "EDITOR", "VISUAL", "GIT_PAGER", "GIT_EDITOR", "GIT_SSH",
    "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "PROMPT_COMMAND",
    "PYTHON", "NODE", "MAKE",
})
CODE_CHOOSING_PREFIXES = ("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", "npm_config_", "NPM_CONFIG_",
                          "YARN_", "BASH_FUNC_")
# Search paths: programs and modules are found in their folders.
SEARCH_PATHS = frozenset({"PATH", "PYTHONPATH", "NODE_PATH", "PERL5LIB", "PERLLIB", "RUBYLIB",
                          "CLASSPATH", "GOPATH", "CDPATH"})
# Interpreter code that writes files: a project script run later in the same line may not
# hold, when it runs, what it holds now.
WRITES_FILES = re.compile(
    r"""open\s*\([^)]*['"][wax]|\bwrite_(?:text|bytes)\b|writeFile|appendFile"""
    r"|createWriteStream|copyFile|\bFile\.(?:write|open)|\bfwrite\b|\bfputs\b"
    r"|shutil\.(?:copy|move)|os\.(?:rename|replace|symlink|link)\b|\.rename\(|symlinkSync")
