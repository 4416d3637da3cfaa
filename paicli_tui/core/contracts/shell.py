"""Shell-command classification shared by the command tool and the memory guard (behaviour §16).

"May this command bring content from outside the project?" is decided by reading the command
the way the shell would: lists and pipelines are split (quotes respected), wrappers (``sudo``,
``env``, ``timeout``, ``xargs``…) are looked through, ``bash -c`` / ``sh -c`` scripts, ``eval``
arguments, ``$(…)`` and backtick substitutions are read recursively, variables assigned in the
same line are followed (``c=curl; $c …``), and interpreter code (``python3 -c``, ``node -e``,
a here-document fed to ``python3 -``) is searched for network modules. Anything whose program
cannot be known from the text (``$c`` unassigned, ``$(which curl)``, obfuscated code such as
``exec(bytes.fromhex(…))``) counts as external: when a command cannot be shown local, it is
not taken for local.

A file of the project the command runs (``./build.sh``, ``bash x.sh``, ``python tool.py`` and
the project modules it imports, ``make`` recipes, ``npm run`` scripts, ``cargo run``/``go run``
sources, git's configuration and hooks) is read by this same reader and judged by its text
(:mod:`shell_files`, :mod:`shell_make`, :mod:`shell_git` find the text). A file that cannot be
read, or that the same line writes, counts as external. Installed programs run by name
(``pytest``, ``ruff``, ``jest``) are judged by name.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

from .shell_files import (
    ProjectFiles,
    Unreadable,
    interpreter_of,
    javascript_imports,
    package_scripts,
    python_imports,
)
from .shell_git import git_runs
from .shell_make import makefile_in, recipe_lines
from .shell_make import parse as parse_makefile
from .shell_programs import (
    ASSIGNMENT,
    CODE_CHOOSING,
    CODE_CHOOSING_PREFIXES,
    COMMAND_ARGUMENTS,
    HEREDOC,
    INTERPRETERS,
    MAX_DEPTH,
    NATIVE_NETWORK,
    NETWORK_CODE,
    NETWORK_COMMANDS,
    NETWORK_GIT,
    NETWORK_SUBCOMMANDS,
    NODE_LIKE,
    NPM_LIFECYCLE,
    OPERATORS,
    PIP_LIKE,
    PROGRAM_VARIABLES,
    REDIRECT,
    RUNNERS,
    SEARCH_PATHS,
    SHELLS,
    TEXT_ONLY,
    TREE_CHANGERS,
    URL_ARGUMENT,
    VALUE_OPTIONS,
    VARIABLE,
    WRAPPER_ARGS,
    WRAPPERS,
    WRITERS,
    WRITES_FILES,
)


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


def _strip_comments(text: str) -> str:
    """``text`` without shell comments (an unquoted ``#`` starting a word, to the line end)."""
    out: list[str] = []
    quote = ""
    i = 0
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\" and quote == '"':
                out.append(text[i:i + 2])
                i += 2
                continue
            if char == quote:
                quote = ""
        elif char == "\\":
            out.append(text[i:i + 2])
            i += 2
            continue
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or text[i - 1] in " \t\n;&|("):
            end = text.find("\n", i)
            i = len(text) if end == -1 else end
            continue
        out.append(char)
        i += 1
    return "".join(out)


def _split_heredocs(text: str) -> tuple[str, list[str]]:
    """The command text without here-document bodies, and the bodies in order."""
    lines = text.split("\n")
    kept: list[str] = []
    bodies: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        kept.append(line)
        i += 1
        for match in HEREDOC.finditer(line.replace("<<<", "   ")):
            body: list[str] = []
            while i < len(lines):
                candidate = lines[i].lstrip("\t") if match.group(1) else lines[i]
                i += 1
                if candidate == match.group(3):
                    break
                body.append(lines[i - 1])
            bodies.append("\n".join(body))
    return "\n".join(kept), bodies


def _words(command: str) -> list[str] | None:
    """Tokens of the command line (operators as their own tokens); None when unparsable."""
    # a newline ends a command like ';' (inside quotes too: harmless for this reading)
    lexer = shlex.shlex(command.replace("\n", " ; "), posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return [t if t else "''" for t in lexer]
    except ValueError:  # an unclosed quote: the shell would not run it either, but be safe
        return None


def _code_reason(program: str, code: str) -> str | None:
    """Why ``code`` for ``program`` may reach the network or hides what it runs, or None."""
    lines = [line for line in code.splitlines()
             if not line.lstrip().startswith(("#", "//")) or line.startswith("#!")]
    text = "\n".join(lines)
    if program in NODE_LIKE or program.endswith((".js", ".ts")):
        text = text.replace("`", "")  # template literals, not shell execution
    if NETWORK_CODE.search(text) or NATIVE_NETWORK.search(text):
        return f"{program} code uses the network or hides what it runs"
    return None


@dataclass
class _Input:
    """Where a simple command's standard input comes from (for interpreters reading code)."""

    kind: str = "none"  # none | heredoc | string | file | pipe
    value: str = ""
    producer: list[str] | None = None


class _Reader:
    def __init__(self, text: str, depth: int, files: ProjectFiles, cwd: str | None,
                 judged: set[tuple[str, str | None]] | None = None) -> None:
        self.text = text
        self.depth = depth
        self.files = files
        self.cwd = cwd
        self.judged = judged if judged is not None else set()
        self.variables: dict[str, str] = {}
        self.after_xargs = False

    def _child(self, text: str, cwd: str | None = None) -> _Reader:
        return _Reader(text, self.depth + 1, self.files, cwd or self.cwd, self.judged)

    def verdict(self) -> Verdict:
        if self.depth > MAX_DEPTH:
            return _external("nested too deeply to read")
        if re.search(r"/dev/(?:tcp|udp)/", self.text):
            return _external("opens a network socket through /dev/tcp")
        text, self.heredocs = _split_heredocs(_strip_comments(self.text))
        words = _words(text)
        if words is None:
            return _external("cannot be parsed (unbalanced quotes)")
        # every substitution anywhere is a command of its own
        for word in words:
            for body in _substitutions(word):
                found = self._child(body).verdict()
                if found.external:
                    return found
        commands: list[tuple[list[str], str]] = []  # (simple command, operator before it)
        simple: list[str] = []
        before = ";"
        for word in [*words, ";"]:
            if word in OPERATORS:
                commands.append((simple, before))
                simple, before = [], word
            else:
                simple.append(word)
        for words_, _ in commands:
            self._note_writes(words_)
        directories: list[str | None] = []
        previous: list[str] = []
        for simple, before in commands:
            if before == "(":
                directories.append(self.cwd)
            elif before == ")" and directories:
                self.cwd = directories.pop()
            piped = previous if before in ("|", "|&") else None
            found = self._simple(simple, piped)
            if found.external:
                return found
            previous = simple
        return _LOCAL

    # -- what the line writes ---------------------------------------------------------------
    def _note_writes(self, words: list[str]) -> None:
        for index, word in enumerate(words):
            if re.match(r"^[0-9]*(?:>|>>|&>|>\||<>)$", word) and index + 1 < len(words):
                self.files.note_written(self.cwd, words[index + 1])
        if not words:
            return
        program = os.path.basename(words[0])
        args = [w for w in words[1:] if not w.startswith("-")]
        if program in TREE_CHANGERS:
            subcommands = TREE_CHANGERS[program]
            if subcommands is None or any(a in subcommands for a in args[:2]):
                self.files.tree_changed = True
        elif program in WRITERS and args:
            if program in ("cp", "mv", "ln", "install", "rsync"):
                targets = [args[-1]] + [os.path.join(args[-1], os.path.basename(a))
                                        for a in args[:-1]]
            elif program == "dd":
                targets = [a[3:] for a in args if a.startswith("of=")]
            else:
                targets = args
            for target in targets:
                self.files.note_written(self.cwd, target)

    # -- one simple command -----------------------------------------------------------------
    def _resolve(self, word: str) -> str | None:
        """The literal a command-position word stands for; None when it cannot be known."""
        match = VARIABLE.match(word)
        if match:
            return self.variables.get(match.group(1) or match.group(2))
        if "$" in word or "`" in word or "*" in word or "?" in word or "{}" in word:
            return None
        if re.search(r"\{[^{}]*(?:,|\.\.)[^{}]*\}", word):  # bash: {curl,-s,x.example}
            return None  # is the words curl -s x.example
        return word

    def _simple(self, words: list[str], piped: list[str] | None = None) -> Verdict:
        # drop redirections (and their targets), remembering where standard input comes from
        stdin = _Input("pipe", producer=piped) if piped is not None else _Input()
        cleaned: list[str] = []
        index = 0
        while index < len(words):
            word = words[index]
            if REDIRECT.match(word):
                target = words[index + 1] if index + 1 < len(words) else ""
                if word == "<<":
                    stdin = _Input("heredoc", self.heredocs.pop(0) if self.heredocs else "")
                elif word == "<<<":
                    stdin = _Input("string", target)
                elif word.endswith("<") and not word.endswith("<<"):
                    stdin = _Input("file", target)
                index += 2
                continue
            cleaned.append(word)
            index += 1
        words = cleaned
        # leading assignments are remembered: c=curl; $c example.com
        while words and ASSIGNMENT.match(words[0]):
            name, _, value = ASSIGNMENT.match(words[0]).groups()  # type: ignore[union-attr]
            found = self._assign(name, value)
            if found.external:
                return found
            words = words[1:]
        via_xargs = False
        while words:
            if words[0] in ("-c", "--command") and len(words) > 1:  # flock f -c '…'
                return self._child(words[1]).verdict()
            head = self._resolve(words[0])
            if head is None:
                return _external(f"runs a program that cannot be known from the text "
                                 f"({words[0][:40]})")
            program = os.path.basename(head)
            if program == "env":
                found, words = self._env(words[1:])
                if found.external:
                    return found
                continue
            if program in WRAPPERS or program in WRAPPER_ARGS or program == "xargs":
                via_xargs = via_xargs or program == "xargs"
                words = self._after_wrapper(program, words[1:])
                continue
            if program in COMMAND_ARGUMENTS:
                return self._command_arguments(program, words[1:])
            if program in RUNNERS and len(words) > 1 and words[1] == RUNNERS[program]:
                words = self._after_wrapper(program, words[2:])
                continue
            if program == "eval":
                return self._child(" ".join(words[1:])).verdict()
            if program in ("cd", "pushd", "popd"):
                self._change_directory(program, words[1:])
                return _LOCAL
            if program not in TEXT_ONLY:
                for word in words[1:]:
                    if URL_ARGUMENT.match(word):
                        return _external(f"{program} is given a remote address ({word[:60]})")
            if program == "find":
                for flag in ("-exec", "-execdir", "-ok", "-okdir"):
                    if flag in words:
                        return self._simple(words[words.index(flag) + 1:])
            if via_xargs and (program in SHELLS or INTERPRETERS.match(program)
                                     or program in ("source", ".")):
                return _external(f"{program} runs what another program printed (xargs)")
            if "/" in head and program not in SHELLS and not INTERPRETERS.match(program):
                return self._run_file(head)
            return self._program(program, words, stdin)
        return _LOCAL  # only assignments (or xargs with no program: it runs echo)

    def _assign(self, name: str, value: str) -> Verdict:
        """Remember ``name=value``; a variable that chooses what code runs (PATH,
        BASH_ENV, LD_PRELOAD, PYTHONPATH …) makes the command unknowable, unless a search
        path only adds folders outside the project."""
        self.variables[name] = value
        if name in SEARCH_PATHS:
            for entry in value.split(":"):
                if entry in ("", f"${name}", f"${{{name}}}") or entry.startswith(
                        ("$HOME", "${HOME}", "~")) or (entry.startswith("/") and not
                                                       self.files.inside(
                                                           os.path.realpath(entry))):
                    continue
                return _external(f"puts {entry[:60]} on {name}, so what it runs cannot be "
                                 "known")
        elif name in CODE_CHOOSING or name.startswith(CODE_CHOOSING_PREFIXES):
            return _external(f"sets {name}, which chooses what code runs")
        elif name in PROGRAM_VARIABLES and value:
            found = self._child(value).verdict()
            if found.external:
                return _external(f"{name} names a program that {found.reason}")
        return _LOCAL

    def _env(self, rest: list[str]) -> tuple[Verdict, list[str]]:
        """``env [-i] [-u NAME] [NAME=value …] [-S 'command'] command …``."""
        out = list(rest)
        while out:
            word = out[0]
            if word in ("-S", "--split-string") and len(out) > 1:
                return self._child(" ".join(out[1:])).verdict(), []
            if word.startswith("-"):
                out.pop(0)
                if word in ("-u", "--unset", "-C", "--chdir") and out:
                    out.pop(0)
                continue
            match = ASSIGNMENT.match(word)
            if not match:
                break
            found = self._assign(match.group(1), match.group(3))
            if found.external:
                return found, []
            out.pop(0)
        return _LOCAL, out

    def _command_arguments(self, program: str, args: list[str]) -> Verdict:
        """Programs whose arguments are shell commands or definitions (``alias x=…``,
        ``trap '…' EXIT``, ``watch '…'``, ``su -c '…'``, ``export PATH=…``)."""
        if program in ("export", "declare", "typeset", "readonly", "local"):
            for arg in args:
                match = ASSIGNMENT.match(arg)
                if match:
                    found = self._assign(match.group(1), match.group(3))
                    if found.external:
                        return found
            return _LOCAL
        if program in ("su", "runuser", "script"):
            for index, arg in enumerate(args):
                if arg in ("-c", "--command") and index + 1 < len(args):
                    return self._child(args[index + 1]).verdict()
                if arg.startswith("--command="):
                    return self._child(arg.split("=", 1)[1]).verdict()
            return _LOCAL
        if program == "alias":
            commands = [arg.split("=", 1)[1] for arg in args if "=" in arg]
        elif program == "trap":
            commands = args[:1] if args and not args[0].startswith("-") else []
        elif program == "parallel":
            commands = [" ".join(args[:args.index(":::")] if ":::" in args else args)]
        elif program == "watch":
            rest = list(args)
            while rest and rest[0].startswith("-"):
                if rest.pop(0) in ("-n", "--interval", "-d") and rest and \
                        rest[0][:1].isdigit():
                    rest.pop(0)
            commands = [" ".join(rest)]
        else:  # hyperfine: every argument is a command to time
            commands = [arg for arg in args if not arg.startswith("-")]
        for command in commands:
            found = self._child(command).verdict()
            if found.external:
                return found
        return _LOCAL

    def _change_directory(self, program: str, args: list[str]) -> None:
        target = next((a for a in args if not a.startswith("-") or a == "-"), None)
        if program == "popd" or target == "-" or self.cwd is None:
            self.cwd = None
        elif target is None:
            self.cwd = os.path.expanduser("~")
        elif "$" in target or "`" in target or "*" in target:
            self.cwd = None
        else:
            self.cwd = os.path.normpath(os.path.join(self.cwd, os.path.expanduser(target)))

    def _after_wrapper(self, program: str, rest: list[str]) -> list[str]:
        skip = WRAPPER_ARGS.get(program, 0)
        out = list(rest)
        while out and (out[0].startswith("-") or (program == "env" and "=" in out[0])):
            option = out.pop(0)
            if option in VALUE_OPTIONS and program != "env" and out:
                out.pop(0)
        while skip and out:
            out.pop(0)
            skip -= 1
        return out

    def _program(self, program: str, words: list[str], stdin: _Input) -> Verdict:
        args = words[1:]
        if program in NETWORK_COMMANDS:
            return _external(f"{program} reaches the network")
        if program in ("source", "."):
            if not args:
                return _LOCAL
            return self._run_script("sh", args[0])
        if program == "git":
            return self._git(args)
        if program in ("make", "gmake"):
            return self._make(args)
        base = PIP_LIKE.get(program, program)
        if re.match(r"^pip[0-9.]*$", base):
            base = "pip"
        subcommands = NETWORK_SUBCOMMANDS.get(base)
        if subcommands is not None:
            named = [a for a in args if not a.startswith("-") or a in subcommands][:2]
            if program in ("yarn", "bundle") and not named:
                return _external(f"{program} installs packages")
            if any(a in subcommands for a in named):
                return _external(f"{program} {named[0]} downloads or publishes")
            if program in ("npm", "yarn", "pnpm", "bun") and named:
                return self._package_script(program, args)
            if program in ("cargo", "go") and named and named[0] == "run":
                return self._sources(program, args)
            return _LOCAL
        if program in SHELLS:
            return self._shell(program, args, stdin)
        if INTERPRETERS.match(program):
            return self._interpreter(program, args, stdin)
        return _LOCAL

    # -- shells and interpreters ------------------------------------------------------------
    def _shell(self, program: str, args: list[str], stdin: _Input) -> Verdict:
        rest = list(args)
        if program == "busybox" and rest:
            return self._simple(rest)
        while rest:
            option = rest.pop(0)
            if option == "-c" or (option.startswith("-") and "c" in option[1:]
                                  and not option.startswith("--")):
                if not rest:
                    return _LOCAL
                return self._child(rest[0]).verdict()
            if option in ("-o", "+o", "-O", "+O") and rest:
                rest.pop(0)
                continue
            if not option.startswith(("-", "+")):
                return self._run_script(program, option)
        return self._standard_input(program, stdin)

    def _interpreter(self, program: str, args: list[str], stdin: _Input) -> Verdict:
        if program in ("awk", "gawk", "mawk", "nawk"):
            return self._awk(args)
        index = 0
        while index < len(args):
            arg = args[index]
            if arg in ("-c", "-e", "-E", "--eval", "-r", "-p", "--print", "-x") or (
                    program.startswith(("python", "pypy")) and arg.startswith("-c")):
                code = args[index + 1] if index + 1 < len(args) else arg[2:]
                return self._judge_inline(program, code)
            if arg == "-m" and index + 1 < len(args):
                return self._python_module(program, args[index + 1], args[index + 2:])
            if arg in ("-W", "-X", "-Q", "--require", "-I", "--import", "--loader") \
                    and index + 1 < len(args):
                index += 2
                continue
            if arg == "-" or not arg.startswith("-"):
                if arg == "-":
                    return self._standard_input(program, stdin)
                if URL_ARGUMENT.match(arg):
                    return _external(f"{program} runs code from {arg[:60]}")
                if program == "deno" or program == "bun":
                    if arg in ("test", "fmt", "lint", "check", "task"):
                        return _LOCAL if arg != "task" else _external(
                            f"{program} task runs a task that is not read")
                return self._run_script(program, arg)
            index += 1
        return self._standard_input(program, stdin)

    def _awk(self, args: list[str]) -> Verdict:
        rest = list(args)
        while rest:
            arg = rest.pop(0)
            if arg == "-f" and rest:
                return self._run_script("awk", rest.pop(0))
            if arg in ("-F", "-v") and rest:
                rest.pop(0)
            elif not arg.startswith("-"):
                reason = _code_reason("awk", arg)
                return _external(reason) if reason else _LOCAL
        return _LOCAL

    def _python_module(self, program: str, module: str, rest: list[str]) -> Verdict:
        if module == "pip":
            return self._program("pip", ["pip", *rest], _Input())
        if re.match(r"^(?:http|urllib|ftplib|smtplib|webbrowser|xmlrpc)", module):
            return _external(f"{program} -m {module} uses the network")
        if self.files.root is not None and self.cwd is not None:
            stem = os.path.join(self.cwd, *module.split("."))
            for candidate in (stem + ".py", os.path.join(stem, "__main__.py")):
                if os.path.isfile(candidate):
                    return self._run_script(program, os.path.relpath(candidate, self.cwd))
        return _LOCAL  # an installed tool run by name (pytest, mypy, …)

    def _standard_input(self, program: str, stdin: _Input) -> Verdict:
        """The program reads its code from standard input: a here-document, a here-string, a
        file, or what the previous command of a pipeline prints."""
        code: str | None = None
        if stdin.kind in ("heredoc", "string"):
            code = stdin.value
        elif stdin.kind == "file":
            return self._run_script(program, stdin.value)
        elif stdin.kind == "pipe":
            producer = stdin.producer or []
            name = os.path.basename(producer[0]) if producer else ""
            if name in ("echo", "printf"):
                code = " ".join(producer[1:])
            elif name == "cat" and len(producer) > 1:
                for file in producer[1:]:
                    if not file.startswith("-"):
                        found = self._run_script(program, file)
                        if found.external:
                            return found
                return _LOCAL
            else:
                return _external(f"{program} runs code that {name or 'another command'} "
                                 "produces")
        if code is None:
            return _LOCAL  # standard input is empty for commands the agent runs
        if program in SHELLS:
            return self._child(code).verdict()
        return self._judge_inline(program, code)

    def _judge_inline(self, program: str, code: str) -> Verdict:
        """Code given on the command line: its text, and the project modules it imports."""
        if self.cwd is None or self.files.root is None:
            reason = _code_reason(program, code)
            if WRITES_FILES.search(code):
                self.files.tree_changed = True
            return _external(reason) if reason else _LOCAL
        return self._judge(program, os.path.join(self.cwd, "-"), code, f"{program} code")

    # -- the project's own files ------------------------------------------------------------
    def _read(self, name: str, cwd: str | None = None) -> tuple[str, str] | Verdict:
        try:
            path = self.files.locate(cwd or self.cwd, name)
            return path, self.files.read(path, name)
        except Unreadable as exc:
            return _external(str(exc))

    def _run_file(self, name: str) -> Verdict:
        """``./script`` or ``tools/run``: what its ``#!`` line names runs it."""
        read = self._read(name)
        if isinstance(read, Verdict):
            return read
        path, text = read
        program = interpreter_of(path, text)
        if program in SHELLS or INTERPRETERS.match(program):
            return self._judge(program, path, text, name)
        return _external(f"{name} is run by {program or 'an unnamed program'}, whose "
                         "code cannot be read")

    def _run_script(self, program: str, name: str) -> Verdict:
        read = self._read(name)
        if isinstance(read, Verdict):
            return read
        path, text = read
        return self._judge(program, path, text, name)

    def _judge(self, program: str, path: str, text: str, name: str) -> Verdict:
        key = (path, self.cwd)
        if key in self.judged:
            return _LOCAL  # already being read higher up (a script that runs itself)
        self.judged.add(key)
        if program in SHELLS:
            found = self._child(text).verdict()
            return found if not found.external else _external(f"{name}: {found.reason}")
        reason = _code_reason(program, text)
        if reason:
            return _external(f"{name}: {reason}")
        if program.startswith(("python", "pypy")):
            imported = python_imports(self.files, path, text)
        elif program in NODE_LIKE:
            imported = javascript_imports(path, text)
        else:
            imported = []
        for module in imported:
            shown = os.path.relpath(module, self.files.root or ".")
            found = self._run_script(program, module) if (module, self.cwd) not in \
                self.judged else _LOCAL
            if found.external:
                return _external(f"{name} imports {shown}: {found.reason}")
        if WRITES_FILES.search(text):  # it may rewrite a script this line runs later
            self.files.tree_changed = True
        return _LOCAL

    def _git(self, args: list[str]) -> Verdict:
        rest = list(args)
        directory = self.cwd
        options: list[tuple[str, str]] = []
        while rest and rest[0].startswith("-"):
            option = rest.pop(0)
            if option in ("-C", "-c", "--git-dir", "--work-tree", "--namespace",
                          "--exec-path", "--config-env") and rest:
                value = rest.pop(0)
                if option == "-C":
                    directory = os.path.join(directory, value) if directory else None
                elif option == "-c":
                    key, _, setting = value.partition("=")
                    options.append((key, setting))
                elif option in ("--exec-path", "--config-env", "--git-dir"):
                    return _external(f"git {option} chooses what git runs")
        if rest and rest[0] in NETWORK_GIT:
            return _external(f"git {rest[0]} talks to a remote")
        if self.files.root is None:  # no repository to read: only -c options are known
            runs = git_runs(ProjectFiles(None), None, options, rest[0] if rest else None)
        else:
            try:
                runs = git_runs(self.files, directory, options, rest[0] if rest else None)
            except Unreadable as exc:
                return _external(f"git: {exc}")
        for source, command in runs.commands:
            found = self._child(command, directory).verdict()
            if found.external:
                return _external(f"{source} runs a command that {found.reason}")
        for hook in runs.hooks:
            found = self._child("", directory)._run_file(hook)
            if found.external:
                return _external(f"git runs the hook {os.path.basename(hook)}: "
                                 f"{found.reason}")
        return _LOCAL

    def _make(self, args: list[str]) -> Verdict:
        directory, named, goals = self.cwd, None, []
        assignments: dict[str, str] = {}
        rest = list(args)
        while rest:
            arg = rest.pop(0)
            if arg in ("-C", "--directory", "-f", "--file", "--makefile", "-I", "-o", "-W",
                       "-j", "-l") and rest:
                value = rest.pop(0)
                if arg in ("-C", "--directory"):
                    directory = os.path.join(directory, value) if directory else None
                elif arg in ("-f", "--file", "--makefile"):
                    named = value
            elif arg.startswith(("--directory=", "--file=", "--makefile=")):
                key, value = arg.split("=", 1)
                if key == "--directory":
                    directory = os.path.join(directory, value) if directory else None
                else:
                    named = value
            elif arg.startswith("-"):
                continue
            elif "=" in arg:
                key, value = arg.split("=", 1)
                assignments[key] = value
            else:
                goals.append(arg)
        try:
            path = makefile_in(self.files, directory, named)
            makefile = parse_makefile(self.files, path)
        except Unreadable as exc:
            return _external(str(exc))
        makefile.variables.update(assignments)
        probe = self._child("", os.path.dirname(path))
        for name in sorted(makefile.assigned | set(assignments)):
            found = probe._assign(name, makefile.expand(makefile.variables.get(name, "")))
            if found.external:
                return _external(f"make: {found.reason}")
        lines = recipe_lines(makefile, goals) + makefile.read_time_commands
        for line in lines:
            found = self._child(line, os.path.dirname(path)).verdict()
            if found.external:
                return _external(f"make: {found.reason}")
        return _LOCAL

    def _package_script(self, program: str, args: list[str]) -> Verdict:
        rest = [a for a in args if not a.startswith("-")]
        if rest and rest[0] in ("run", "run-script", "rum", "urn"):
            rest = rest[1:]
            if not rest:
                return _LOCAL  # lists the scripts
        elif program == "npm" and rest and rest[0] not in NPM_LIFECYCLE:
            return _LOCAL  # another npm command that stays local (ls, pack, version …)
        if program == "npm" and rest[0] in ("t", "tst"):
            rest[0] = "test"
        try:
            directory, lines = package_scripts(self.files, self.cwd, rest[0])
        except Unreadable as exc:
            if program != "npm" and "defines no script" in str(exc):
                # yarn/pnpm/bun <name> runs an installed program of that name
                return self._simple(rest)
            return _external(str(exc))
        for line in lines:
            found = self._child(line, directory).verdict()
            if found.external:
                return _external(f"{program} run {rest[0]}: {found.reason}")
        return _LOCAL

    def _sources(self, program: str, args: list[str]) -> Verdict:
        """``cargo run`` / ``go run``: the project's program, read as its source files."""
        start = self.cwd
        rest = args[args.index("run") + 1:] if "run" in args else []
        for index, arg in enumerate(rest):
            if program == "cargo" and arg == "--manifest-path" and index + 1 < len(rest):
                start = (os.path.dirname(os.path.join(self.cwd, rest[index + 1]))
                         if self.cwd else None)
            elif program == "go" and arg.startswith((".", "/")) and start is not None:
                path = os.path.join(start, arg)
                start = path if os.path.isdir(path) else os.path.dirname(path)
                break
        try:
            manifest = self.files.find_up(start, ("Cargo.toml",) if program == "cargo"
                                          else ("go.mod",))
            suffix = (".rs",) if program == "cargo" else (".go",)
            sources = self.files.sources(os.path.dirname(manifest), suffix)
        except Unreadable as exc:
            return _external(f"{program} run: {exc}")
        for shown, text in sources:
            if NETWORK_CODE.search(text.replace("`", "")) or NATIVE_NETWORK.search(text):
                return _external(f"{program} run: {shown} uses the network or runs other "
                                 "programs")
        return _LOCAL


def classify_command(command: str, project_root: str | os.PathLike[str] | None = None, *,
                     cwd: str | os.PathLike[str] | None = None) -> Verdict:
    """Whether ``command`` may bring content from outside the project, and why.

    ``project_root``: where the project's scripts are read from (the command runs in
    ``cwd``, default the root). Without it, a command that runs a project file counts as
    external, since the file cannot be read.
    """
    if not isinstance(command, str) or not command.strip():
        return _LOCAL
    root = os.fspath(project_root) if project_root is not None else None
    start = os.fspath(cwd) if cwd is not None else root
    return _Reader(command, 0, ProjectFiles(root), start).verdict()


def is_network_command(command: str,
                       project_root: str | os.PathLike[str] | None = None) -> bool:
    """True when ``command`` may reach the network, or cannot be shown not to."""
    return classify_command(command, project_root).external


def command_words(command: str) -> list[str] | None:
    """The words of a command line as the shell splits them, quotes removed and operators
    (``;`` ``|`` ``&&`` ``>`` …) as words of their own; None when it cannot be parsed."""
    return _words(command)
