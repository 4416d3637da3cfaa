"""What ``make`` would run: the recipe lines of the requested targets (behaviour §16).

The Makefile (and what it includes) is read as make reads it, far enough to know which shell
lines a target runs: rules and their prerequisites, recipe lines (``@``/``-``/``+`` prefixes
dropped, continuations joined), variables assigned in the file or on make's command line
expanded, ``$(shell …)`` and ``!=`` assignments collected as commands of their own (make runs
them while reading). A value that cannot be known here (a variable set nowhere in the file, a
make function) becomes ``${MAKE_VALUE}``: harmless as an argument, and as a program name it
cannot be shown local. Conditionals are not evaluated: every branch is read.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from .shell_files import ProjectFiles, Unreadable

UNKNOWN = "${MAKE_VALUE}"
MAKEFILE_NAMES = ("GNUmakefile", "makefile", "Makefile")
_BUILTIN = {"MAKE": "make", "CC": "cc", "CXX": "g++", "CPP": "cc -E", "AR": "ar", "AS": "as",
            "LD": "ld", "RM": "rm -f", "FC": "f77", "LEX": "lex", "YACC": "yacc", "SHELL": "sh",
            "MAKEFLAGS": "", "MFLAGS": "", "CURDIR": "."}
_ASSIGN = re.compile(r"^(?:(?:export|override|private)\s+)*([A-Za-z_][\w.-]*)\s*"
                     r"(::?=|:::=|\?=|\+=|!=|=)\s*(.*)$")
_INCLUDE = re.compile(r"^-?(?:include|sinclude)\s+(.+)$")
_AUTOMATIC = re.compile(r"\$[@<^?*+|%]|\$[({][@<^?*+|%][DF][)}]")
MAX_EXPANSION = 12


def _rule(line: str) -> tuple[str, str, str] | None:
    r"""(targets, ``:`` or ``::``, the rest) of a rule line as the pattern
    ``^([^:=#\t][^:=#]*?)\s*(::?)(?!=)\s*(.*)$`` reads it, or None; in one pass. The
    pattern tried every split of a run of blanks: a line of a word, 500,000 blanks and a
    word (a planted Makefile) held ``make test``'s verdict for most of an hour."""
    if not line or line[0] in ":=#\t":
        return None
    cut = next((i for i, ch in enumerate(line) if ch in ":=#"), -1)
    if cut <= 0 or line[cut] != ":":
        return None
    if line.startswith("::", cut) and not line.startswith("=", cut + 2):
        operator, rest = "::", cut + 2
    elif not line.startswith("=", cut + 1):
        operator, rest = ":", cut + 1
    else:
        return None
    targets = line[:cut].rstrip() or line[:1]
    return targets, operator, line[rest:].lstrip()


@dataclass
class Makefile:
    variables: dict[str, str] = field(default_factory=lambda: dict(_BUILTIN))
    rules: dict[str, list[str]] = field(default_factory=dict)
    """target -> prerequisites (double-colon and repeated rules merged)."""
    recipes: dict[str, list[str]] = field(default_factory=dict)
    first_target: str | None = None
    assigned: set[str] = field(default_factory=set)
    """Names the file assigns (a variable that chooses what runs is judged by the caller)."""
    read_time_commands: list[str] = field(default_factory=list)
    """Shell commands make runs while reading the file ($(shell …), != assignments)."""

    def expand(self, text: str, depth: int = 0) -> str:
        """``text`` with make's ``$(…)`` references replaced (``$$`` stays one ``$``)."""
        if depth > MAX_EXPANSION:
            return UNKNOWN
        text = _AUTOMATIC.sub("TARGET", text)
        out: list[str] = []
        i = 0
        while i < len(text):
            char = text[i]
            if char != "$" or i + 1 >= len(text):
                out.append(char)
                i += 1
                continue
            nxt = text[i + 1]
            if nxt == "$":
                out.append("$")
                i += 2
            elif nxt in "({":
                close = ")" if nxt == "(" else "}"
                level, j = 1, i + 2
                while j < len(text) and level:
                    level += {nxt: 1, close: -1}.get(text[j], 0)
                    j += 1
                out.append(self._reference(text[i + 2:j - 1], depth))
                i = j
            else:  # $X: a one-letter variable
                out.append(self._reference(nxt, depth))
                i += 2
        return "".join(out)

    def _reference(self, body: str, depth: int) -> str:
        if body.startswith("shell "):
            self.read_time_commands.append(self.expand(body[6:], depth + 1))
            return UNKNOWN
        if " " in body or "," in body or ":" in body:  # a function or a substitution ref
            return UNKNOWN
        name = self.expand(body, depth + 1)
        if name not in self.variables:
            return UNKNOWN
        return self.expand(self.variables[name], depth + 1)


def _logical_lines(text: str) -> list[str]:
    """Lines with backslash continuations joined (recipe lines keep their leading tab)."""
    lines: list[str] = []
    pending = ""
    for raw in text.splitlines():
        if raw.endswith("\\"):
            pending += raw[:-1] + " "
            continue
        lines.append(pending + raw)
        pending = ""
    if pending:
        lines.append(pending)
    return lines


def _strip_comment(line: str) -> str:
    return re.sub(r"(?<!\\)#.*$", "", line)


def parse(files: ProjectFiles, path: str, make: Makefile | None = None,
          depth: int = 0) -> Makefile:
    """Read the Makefile at ``path`` (and what it includes) into ``make``."""
    make = make or Makefile()
    text = files.read(path, os.path.relpath(path, files.root or os.path.dirname(path)))
    current: list[str] = []
    defining: str | None = None
    for line in _logical_lines(text):
        if defining is not None:  # define NAME … endef: a multi-line value
            if line.strip() == "endef":
                defining = None
            else:
                make.variables[defining] = (make.variables.get(defining, "") + "\n"
                                            + line).lstrip("\n")
            continue
        if line.startswith("\t"):
            if current:
                for target in current:
                    make.recipes.setdefault(target, []).append(line[1:])
            continue
        stripped = _strip_comment(line).strip()
        if not stripped:
            continue
        if stripped.startswith("define "):
            defining = stripped.split(None, 1)[1].split("=")[0].strip()
            make.variables[defining] = ""
            continue
        if stripped.split()[0] in ("ifeq", "ifneq", "ifdef", "ifndef", "else", "endif",
                                   "export", "unexport", "vpath", "undefine"):
            if stripped.split()[0] not in ("export",) or "=" not in stripped:
                continue
        include = _INCLUDE.match(stripped)
        if include:
            if depth > 4:
                raise Unreadable("the Makefile includes files too deeply to read")
            for name in make.expand(include.group(1)).split():
                target = os.path.realpath(os.path.join(os.path.dirname(path), name))
                if not files.inside(target):
                    raise Unreadable(f"the Makefile includes {name}, outside the project")
                if os.path.isfile(target) or not stripped.startswith(("-", "s")):
                    parse(files, target, make, depth + 1)
            continue
        assignment = _ASSIGN.match(stripped)
        if assignment:
            name, operator, value = assignment.groups()
            make.assigned.add(name)
            if operator == "!=":
                make.read_time_commands.append(make.expand(value))
                make.variables[name] = UNKNOWN
            elif operator == "+=":
                make.variables[name] = f"{make.variables.get(name, '')} {value}".strip()
            elif operator == "?=":
                make.variables.setdefault(name, value)
            elif operator in (":=", "::=", ":::="):
                make.variables[name] = make.expand(value)
            else:
                make.variables[name] = value
            current = []
            continue
        rule = _rule(stripped)
        if rule:
            targets = make.expand(rule[0]).split()
            rest = rule[2]
            inline = None
            if ";" in rest:
                rest, inline = rest.split(";", 1)
            if ":" in rest:  # static pattern rule: targets: pattern: prerequisites
                rest = rest.split(":", 1)[1]
            prerequisites = make.expand(rest.split("|")[0]).split()
            for target in targets:
                make.rules.setdefault(target, []).extend(prerequisites)
                if make.first_target is None and not target.startswith(".") \
                        and "%" not in target:
                    make.first_target = target
                if inline is not None:
                    make.recipes.setdefault(target, []).append(inline)
            current = targets
            continue
        current = []  # a directive we do not need (vpath, .RECIPEPREFIX …)
    for value in make.variables.values():  # recursive values run $(shell …) when used:
        if "$(shell" in value:  # count them as run
            make.expand(value)
    return make


def recipe_lines(make: Makefile, goals: list[str]) -> list[str]:
    """The shell lines make runs for ``goals`` (default: the first target) and everything
    they depend on, expanded; unknown targets use the pattern rules that match them."""
    goals = goals or [make.variables.get(".DEFAULT_GOAL") or make.first_target or ""]
    lines: list[str] = []
    seen: set[str] = set()
    pending = [g for g in goals if g]
    while pending:
        target = pending.pop()
        if target in seen:
            continue
        seen.add(target)
        if target in make.rules:
            pending.extend(make.rules[target])
            recipe = make.recipes.get(target, [])
        else:  # a pattern rule (%.o: %.c) or make's built-in rules (compilers)
            recipe = [line for pattern, body in make.recipes.items() if "%" in pattern
                      and re.fullmatch(re.escape(pattern).replace("%", ".*"), target)
                      for line in body]
        for line in recipe:
            lines.append(make.expand(line).lstrip("@-+ \t"))
    return lines


def makefile_in(files: ProjectFiles, directory: str | None, named: str | None) -> str:
    """The Makefile make would read in ``directory`` (``-f named`` when given)."""
    if named is not None:
        return files.locate(directory, named)
    for name in MAKEFILE_NAMES:
        path = files.locate(directory, name)
        if os.path.isfile(path):
            return path
    raise Unreadable("make finds no Makefile to read here")
