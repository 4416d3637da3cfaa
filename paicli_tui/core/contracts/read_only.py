"""Which shell commands only read: they run without asking (behaviour §16's reader, by meaning).

A command is read-only when every simple command in it (split at ``;``, ``&&``, ``||`` and
pipes, the way :mod:`.shell` reads it) is on the read-only list (``settings.read_only_commands``:
``ls``, ``cat``, ``git status`` …) and nothing in it can run, write or hide anything else:

- no substitution (``$(…)``, backticks, ``<(…)``), no variable expansion (``$x``, ``${x}``),
  no assignment (``GIT_PAGER=… git log``), no subshell or background job (``( )``, ``&``);
- redirections only read a file (``< file``) or go to ``/dev/null`` or another descriptor
  (``2>&1``); ``> file``, ``>> file``, here-documents are writes or text we do not read;
- the program is named, not a path (``./ls`` is the project's own script);
- options that run or write something are refused even for listed programs
  (``find -exec/-delete/-fprint``, ``rg --pre``, ``sort -o``, ``git -c`` / ``--output``), and
  for those programs a wildcard must be quoted (a file named ``-delete`` or ``--pre=sh`` must
  not become an option when the shell expands ``*``);
- every path it names stays inside the project, like the file tools' paths (no ``/etc/…``,
  ``~``, ``..`` out of it, or a link pointing out): reading is approved, not looking around the
  machine;
- the command does not reach the network (:func:`.shell.classify_command`).

Anything the reader is unsure of is not read-only: the person is asked, as for any command.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .shell import classify_command, command_words
from .shell_files import ProjectFiles, Unreadable
from .shell_git import git_runs

_SEPARATORS = frozenset({";", "&&", "||", "|", "|&"})
_TO_NOWHERE = frozenset({">", ">>", ">|", "&>", "&>>"})
"""Output redirections allowed only to /dev/null."""
_DESCRIPTOR_COPY = frozenset({">&", "<&"})
_PUNCTUATION = frozenset(";&|()<>")
_EXPANSION = re.compile(r"\$[A-Za-z0-9_{(\[@*#?$!\-'\"]|`")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\+?=")
_WILDCARD = re.compile(r"[*?\[]")
MAX_EXPANDED_NAMES = 5_000
"""Names a wildcard may match before the reader stops checking them (and asks)."""
_BRACES = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")
"""A brace expansion: bash turns ``{-exec,touch}`` into two words, ``{/etc/passwd,x}`` into
a path outside."""

# Options that make a listed program run a command or write a file.
_FIND_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint",
                           "-fprint0", "-fprintf", "-fls"})
_GIT_GLOBAL_OK = frozenset({"--no-pager", "-P", "--no-optional-locks"})
# Options that make a listed program read files no word of the command names: a walk that
# follows links (a project can ship `docs/ref -> ../../../../home`) or a list of file names
# read from a file (`sort --files0-from=names` prints the files' contents).
_FOLLOWS_LINKS = {"grep": ("R", ("--dereference-recursive",)), "rg": ("L", ("--follow",)),
                  "find": ("", ("-L", "-follow")), "du": ("L", ("--dereference",)),
                  "ls": ("L", ("--dereference",))}
_NAMES_FROM_FILE = {"sort": ("--files0-from",), "wc": ("--files0-from",),
                    "du": ("--files0-from",), "file": ("-f", "--files-from")}
# Programs with such options: a wildcard there must be quoted (see the module docstring).
_OPTION_RUNNERS = frozenset({"find", "rg", "sort", "git"})
# ... and here a wildcard must not open a word: a planted file named `-R` becomes an option
# when `grep x *` expands (`src/*.py` cannot). `ls *`, `wc -l *` stay free: what a planted
# option there could show from outside is names and sizes, not contents.
_LEADING_WILDCARD_RUNNERS = frozenset({"grep"})


@dataclass(frozen=True)
class ReadOnlyVerdict:
    """Whether a command only reads, and if not, why (for tests and the log)."""

    read_only: bool
    reason: str = ""

    @classmethod
    def refused(cls, reason: str) -> ReadOnlyVerdict:
        return cls(False, reason)


_YES = ReadOnlyVerdict(True)
_no = ReadOnlyVerdict.refused


_OPENS = "\1"
"""In a word's bare form (:func:`_bare_words`): a quote opening here."""


def _bare_words(command: str) -> list[tuple[str, str, int]]:
    """The shell's words of ``command`` as (the word, its bare form, where it starts). The
    bare form is the word's text with every quoted or escaped character (quotes and
    backslashes too) replaced by NUL and an opening quote by :data:`_OPENS`, one for one:
    what is left is what the shell may still expand. Split at unquoted blanks and operators,
    like :func:`command_words`."""
    words: list[tuple[str, str, int]] = []
    value: list[str] = []
    bare: list[str] = []
    quote = ""
    index = start = 0
    while index < len(command):
        char = command[index]
        if not bare:
            start = index
        if quote == "'":
            quote = "" if char == "'" else quote
            value.extend(char if quote else "")
            bare.append("\0")
        elif quote == '"' and char == '"':
            quote = ""
            bare.append("\0")
        elif char == "\\" and (not quote or command[index + 1:index + 2] in '"\\$`'):
            value.append(command[index + 1:index + 2])  # the next character is literal
            bare.append("\0" * len(command[index:index + 2]))
            index += 1
        elif quote == '"':
            value.append(char)
            bare.append("\0")
        elif char in "'\"":
            quote = char
            bare.append(_OPENS)
        elif char.isspace() or char in _PUNCTUATION:
            if bare:
                words.append(("".join(value), "".join(bare), start))
            value, bare = [], []
        else:
            value.append(char)
            bare.append(char)
        index += 1
    if bare:
        words.append(("".join(value), "".join(bare), start))
    return words


def _dollar_quote(command: str) -> int:
    """Where ``$'…'`` or ``$"…"`` opens outside quotes (-1: nowhere). Bash (the ``/bin/sh`` of
    macOS, Fedora, Arch) decodes ``$'\x2dexec'`` into ``-exec`` after the reader has read
    the words, so no option or path check could hold. (``'foo$'`` is a quoted ``$``.)"""
    for _value, bare, start in _bare_words(command):
        found = bare.find("$" + _OPENS)
        if found >= 0:
            return start + found
    return -1


def _expanded(word: str, text: str, pattern: re.Pattern[str]) -> bool:
    """Whether the shell may expand ``pattern`` in some copy of ``word`` in ``text`` (found
    outside quotes). Decided per word, not by looking for a quoted copy in the text: a
    decoy ``"'{-exec,touch}'"`` once vouched for the bare ``{-exec,touch}`` beside it. A word
    not found is taken as expanded (to be safe)."""
    copies = [bare for value, bare, _start in _bare_words(text) if value == word]
    return not copies or any(pattern.search(bare) for bare in copies)


def _outside(word: str, root: Path) -> bool:
    """True when ``word`` (or the value of ``--option=value``) names a path outside ``root``."""
    for candidate in (word, word.partition("=")[2]):
        if not candidate or candidate == "/dev/null":
            continue
        if candidate.startswith("~"):
            return True
        if not (candidate.startswith("/") or "/" in candidate or candidate == ".."
                or os.path.lexists(root / candidate)):
            continue  # a pattern or a name the command may create output about, not a path
        resolved = Path(os.path.realpath(root / candidate))
        if not resolved.is_relative_to(root):
            return True
    return False


def _expansion_leads_out(pattern: str, root: Path) -> str:
    """Why the names the shell will put in place of ``pattern`` (run in ``root``) are more
    than a read of the project ("" when they are not): ``head docs/*`` read a link the project
    ships (``docs/notes.md -> ../../../.ssh/id_rsa``) although no word named it."""
    for count, match in enumerate(glob.iglob(pattern, root_dir=root)):
        if count >= MAX_EXPANDED_NAMES:
            return f"a wildcard ({pattern[:40]}) matches more than {MAX_EXPANDED_NAMES:,} names"
        if _outside(match, root):
            return f"reads outside the project ({pattern[:40]} matches {match[:40]})"
    return ""


def _short_flags(word: str) -> str:
    """The letters of a short-option cluster (``-uo`` → ``uo``); "" for anything else."""
    return word[1:] if word.startswith("-") and not word.startswith("--") else ""


def _is_option(arg: str, names: Iterable[str]) -> bool:
    """``arg`` is one of the options ``names``: exactly, or for a ``--long`` name any prefix
    of it (GNU programs take ``--deref`` for ``--dereference-recursive``, ``--out=`` for
    ``--output``; an ambiguous prefix is an error, so refusing it costs nothing)."""
    given = arg.split("=")[0]
    return any(given == name or (given.startswith("--") and len(given) > 2
                                 and name.startswith("--") and name.startswith(given))
               for name in names)


def _reach_check(program: str, args: list[str]) -> str:
    """Why this listed program would read files outside the words of the command."""
    letter, names = _FOLLOWS_LINKS.get(program, ("", ()))
    for arg in args:
        if _is_option(arg, names) or (letter and letter in _short_flags(arg)):
            return f"{program} {arg.split('=')[0][:40]} follows links, also out of the project"
        if _is_option(arg, _NAMES_FROM_FILE.get(program, ())):
            return f"{program} {arg.split('=')[0]} reads the names of its files from a file"
    return ""


def _program_check(program: str, args: list[str]) -> str:
    """Why this listed program's arguments make it more than a read; "" when they do not."""
    why = _reach_check(program, args)
    if why:
        return why
    if program == "find":
        for arg in args:
            if arg in _FIND_ACTIONS:
                return f"find {arg} runs or writes"
    elif program == "rg":
        for arg in args:
            if arg.startswith("--pre"):
                return "rg --pre runs a program on each file"
    elif program == "sort":
        for arg in args:
            if _is_option(arg, ("--output", "--compress-program")) or "o" in _short_flags(arg):
                return "sort -o writes a file"
    elif program == "uniq":
        if len([a for a in args if not a.startswith("-")]) > 1:
            return "uniq with two files writes the second"
    elif program == "git":
        for arg in args:
            if arg.startswith(("--output", "--ext-diff", "--exec")):
                return f"git {arg.split('=')[0]} writes or runs"
    return ""


def _git_runs_more(args: list[str], named: list[str], root: Path) -> str:
    """Why the repository's own git configuration or hooks make this git command run a
    program ("" when they do not). A project that ships its git folder (an archive with
    ``.git``, a bare repository committed under ``vendor/``) can set ``core.fsmonitor``, a
    diff driver or ``post-index-change``: ``git status`` would run them, whatever they do."""
    directory, rest = str(root), list(args)
    while rest and rest[0].startswith("-"):  # git's own options, before the sub-command
        if rest.pop(0) == "-C" and rest:
            directory = os.path.join(directory, rest.pop(0))
    try:
        runs = git_runs(ProjectFiles(str(root)), directory, [], named[0] if named else None)
    except Unreadable as exc:
        return f"git: {exc}"
    if runs.commands:
        source, command = runs.commands[0]
        return f"the repository's {source} makes git run a program ({command[:40]})"
    if runs.hooks:
        return f"git runs the repository's hook {os.path.basename(runs.hooks[0])}"
    return ""


def _git_subcommand(args: list[str]) -> tuple[list[str], str]:
    """The words after git's global options, or why the options are not read-only."""
    rest = list(args)
    while rest and rest[0].startswith("-"):
        option = rest.pop(0)
        if option == "-C" and rest:
            rest.pop(0)
        elif option not in _GIT_GLOBAL_OK:
            return [], f"git {option} changes what git runs"
    return rest, ""


class _Allowlist:
    def __init__(self, entries: Iterable[str], root: Path) -> None:
        self.entries = [tuple(entry.split()) for entry in entries if entry.split()]
        self.root = root

    def check(self, words: list[str], all_words: list[str], text: str) -> ReadOnlyVerdict:
        """One simple command (no operators left in ``words``)."""
        if not words:
            return _YES
        if _ASSIGNMENT.match(words[0]):
            return _no(f"sets a variable for the command ({words[0].split('=')[0]})")
        program, args = words[0], words[1:]
        if "/" in program:
            return _no(f"runs a program by path ({program[:40]})")
        named = args
        if program == "git":
            named, why = _git_subcommand(args)
            if why:
                return _no(why)
        if not any(entry[0] == program and list(entry[1:]) == named[:len(entry) - 1]
                   for entry in self.entries):
            shown = " ".join([program, *named[:1]]) if program == "git" else program
            return _no(f"{shown} is not on the read-only list")
        why = _program_check(program, args)
        if why:
            return _no(why)
        for arg in args:
            if _outside(arg, self.root):
                return _no(f"reads outside the project ({arg[:40]})")
        if program == "git":
            why = _git_runs_more(args, named, self.root)
            if why:
                return _no(why)
        if program in _OPTION_RUNNERS or program in _LEADING_WILDCARD_RUNNERS:
            for arg in args:
                if program not in _OPTION_RUNNERS and not _WILDCARD.match(arg):
                    continue
                if _WILDCARD.search(arg) and _expanded(arg, text, _WILDCARD):
                    return _no(f"an unquoted wildcard ({arg[:40]}) could expand into an "
                               f"option of {program}")
        for arg in args:  # what the shell will put in place of a wildcard
            if _WILDCARD.search(arg) and _expanded(arg, text, _WILDCARD):
                why = _expansion_leads_out(arg, self.root)
                if why:
                    return _no(why)
        return _YES


def _redirection(operator: str, target: str | None, root: Path) -> str:
    """Why this redirection is more than a read; "" when it is not."""
    if target is None or target in _SEPARATORS or target[:1] in _PUNCTUATION:
        return f"a redirection ({operator}) without a target"
    if operator == "<":
        return f"reads outside the project ({target[:40]})" if _outside(target, root) else ""
    if operator in _TO_NOWHERE:
        return "" if target == "/dev/null" else f"writes to a file ({operator} {target[:40]})"
    if operator in _DESCRIPTOR_COPY:
        return "" if target.isdigit() or target == "-" else (
            f"writes to a file ({operator} {target[:40]})")
    return f"uses {operator} (a here-document or read-write redirection)"


def read_only_verdict(command: str, allowed: Iterable[str], project_root: Path
                      ) -> ReadOnlyVerdict:
    """Whether ``command``, run in ``project_root``, only reads, given the read-only list
    ``allowed``."""
    root = Path(os.path.realpath(project_root))
    if not isinstance(command, str) or not command.strip():
        return _no("empty command")
    words = command_words(command)
    if words is None:
        return _no("cannot be parsed (unbalanced quotes)")
    opened = _dollar_quote(command)
    if opened >= 0:
        return _no(f"expands or substitutes something ({command[opened:][:40]})")
    for word in words:
        if _EXPANSION.search(word):
            return _no(f"expands or substitutes something ({word[:40]})")
        if _BRACES.search(word) and _expanded(word, command, _BRACES):
            return _no(f"a brace expansion ({word[:40]}) becomes other words in the shell")
    allowlist = _Allowlist(allowed, root)
    simple: list[str] = []
    index = 0
    tokens = [*words, ";"]
    while index < len(tokens):
        word = tokens[index]
        if word in _SEPARATORS:
            found = allowlist.check(simple, words, command)
            if not found.read_only:
                return found
            simple = []
        elif word and set(word) <= _PUNCTUATION:  # a redirection or ( ) &
            if word in ("&", "(", ")") or "(" in word or ")" in word:
                return _no(f"runs a subshell or a background job ({word})")
            target = tokens[index + 1] if index + 1 < len(words) else None
            why = _redirection(word, target, root)
            if why:
                return _no(why)
            index += 1  # the target is not an argument
        else:
            simple.append(word)
        index += 1
    network = classify_command(command, root)
    if network.external:
        return _no(network.reason)
    return _YES


def is_read_only(command: str, allowed: Iterable[str], project_root: Path) -> bool:
    """True when ``command``, run in ``project_root``, only reads and may run without asking."""
    return read_only_verdict(command, allowed, project_root).read_only
