"""Patterns from the model or the repository that can never hang a scan.

A regular expression the model hands to ``grep_code`` runs in the ``regex`` engine with a
timeout: a pattern that backtracks without end (``(a+)+$`` over ``aaaa…!``) stops within its
time budget and the tool says to simplify it. Globs (``glob_files``, grep's include glob and
every ``.gitignore`` line) never reach a backtracking engine when they could blow up: a glob
with more than two wildcards is matched by a set-of-states walk whose cost is the text's
length times the glob's, whatever the input. A scan also stops when its turn is cancelled.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field

PATTERN_TIME_BUDGET_S = 5.0
"""Total time one scan may spend inside the regex engine before it is called too slow."""
CALL_SLICE_S = 0.25
"""Longest single regex call: bounds how long a cancel waits for the engine to return (the
engine checks its clock now and then, so a call may run up to about three times this)."""


class PatternError(ValueError):
    """A pattern cannot be used (invalid, or too slow for this text); the message says why."""


class PatternTooSlow(PatternError):
    """The pattern used up its time budget: it backtracks too much on this project's text."""


class ScanCancelled(Exception):
    """The turn that asked for the scan was cancelled."""


@dataclass
class ScanControl:
    """Shared by a scan and whoever may stop it: a cancel flag and the regex time budget."""

    cancel: threading.Event = field(default_factory=threading.Event)
    budget_s: float = PATTERN_TIME_BUDGET_S
    spent_s: float = 0.0

    def check(self) -> None:
        if self.cancel.is_set():
            raise ScanCancelled("the search was cancelled")


def too_slow_message(pattern: str) -> str:
    return (f"the pattern {pattern!r} is too slow on this project's text (it backtracks too "
            "much); simplify the pattern (avoid nested or repeated wildcards like (a+)+ or "
            ".*.*), use literal=true, or narrow the path or glob")


class SearchPattern:
    """A grep pattern compiled for the ``regex`` engine, searched under a time budget."""

    def __init__(self, source: str, *, literal: bool = False, ignore_case: bool = False) -> None:
        import regex

        if not source:
            raise PatternError("the search pattern is empty")
        self.source = source
        body = regex.escape(source) if literal else source
        flags = regex.IGNORECASE if ignore_case else 0
        try:
            # V0: the syntax and meaning of Python's re, which the tool describes
            self._compiled = regex.compile(body, flags | regex.VERSION0)
        except (regex.error, OverflowError, RecursionError, ValueError) as exc:
            # a weak model's "print(" or "foo[0]" meant the text: say how to search for it
            raise PatternError(f"invalid regular expression {source!r}: {exc}; to search "
                               "for the text as written, use literal=true") from None
        self._literal = source if literal and not ignore_case else None

    def search(self, line: str, control: ScanControl) -> bool:
        """True when the pattern occurs in ``line``; PatternTooSlow past the budget."""
        return self.span(line, control) is not None

    def span(self, line: str, control: ScanControl) -> tuple[int, int] | None:
        """Where the pattern first occurs in ``line`` (None: nowhere); PatternTooSlow past
        the budget."""
        if self._literal is not None:
            at = line.find(self._literal)
            return None if at < 0 else (at, at + len(self._literal))
        remaining = control.budget_s - control.spent_s
        if remaining <= 0:
            raise PatternTooSlow(too_slow_message(self.source))
        started = time.perf_counter()
        try:
            found = self._compiled.search(line, timeout=min(remaining, CALL_SLICE_S),
                                          concurrent=True)
        except TimeoutError:
            control.check()  # cancelled meanwhile: that is the answer, not "too slow"
            control.spent_s = control.budget_s
            raise PatternTooSlow(too_slow_message(self.source)) from None
        finally:
            control.spent_s += time.perf_counter() - started
        return None if found is None else found.span()


# --- globs ------------------------------------------------------------------------------------
_LIT, _ONE, _STAR, _ANY, _OPTDIR, _OPTDIR_BODY, _CLASS, _VOID = range(8)
_UNBOUNDED = (_STAR, _ANY, _OPTDIR)
_SAFE_FOR_RE = 2
"""With at most this many unbounded wildcards a backtracking engine stays polynomial and
bounded by the path length, so the faster C engine is used."""


@dataclass(frozen=True)
class _CharClass:
    ranges: tuple[tuple[str, str], ...]
    negate: bool

    def matches(self, char: str) -> bool:
        if char == "/":  # a class never matches the folder separator (as in git)
            return False
        inside = any(low <= char <= high for low, high in self.ranges)
        return inside != self.negate

    def regex(self) -> str:
        parts = []
        for low, high in self.ranges:
            if low > high:  # git tolerates [z-a]: a range that matches nothing
                continue
            parts.append(re.escape(low) if low == high else f"{re.escape(low)}-{re.escape(high)}")
        body = "".join(parts)
        if self.negate:
            return f"[^/{body}]"
        # a class naming '/' ('[/x]', '[--0]') still never matches it, as in the walk
        return f"(?!/)[{body}]" if body else "(?!)"


_POSIX_CLASSES = {
    "alpha": (("a", "z"), ("A", "Z")), "digit": (("0", "9"),),
    "alnum": (("a", "z"), ("A", "Z"), ("0", "9")), "upper": (("A", "Z"),),
    "lower": (("a", "z"),), "space": ((" ", " "), ("\t", "\r")),
    "xdigit": (("0", "9"), ("a", "f"), ("A", "F")), "punct": (("!", "/"), (":", "@"),
                                                              ("[", "`"), ("{", "~")),
}


def _parse_class(pattern: str, start: int) -> tuple[_CharClass, int] | None:
    """The bracket expression opening at ``start`` and the index after it, or None when it is
    not closed (then '[' is an ordinary character, as git treats it)."""
    i = start + 1
    negate = i < len(pattern) and pattern[i] in "!^"
    if negate:
        i += 1
    ranges: list[tuple[str, str]] = []
    first = True
    while i < len(pattern):
        c = pattern[i]
        if c == "]" and not first:
            return _CharClass(tuple(ranges), negate), i + 1
        first = False
        if c == "[" and pattern.startswith("[:", i):
            end = pattern.find(":]", i + 2)
            name = pattern[i + 2:end] if end != -1 else ""
            if name in _POSIX_CLASSES:
                ranges.extend(_POSIX_CLASSES[name])
                i = end + 2
                continue
        if c == "\\" and i + 1 < len(pattern):
            i += 1
            c = pattern[i]
        low = c
        if i + 2 < len(pattern) and pattern[i + 1] == "-" and pattern[i + 2] != "]":
            high = pattern[i + 2]
            i += 3
            if high == "\\" and i < len(pattern):
                high = pattern[i]
                i += 1
            ranges.append((low, high))
            continue
        ranges.append((low, low))
        i += 1
    return None


def _tokens(pattern: str, anchored: bool = False) -> list[tuple[int, object]]:
    """gitignore glob → tokens: ``*`` and ``?`` stop at '/', ``**/`` any leading folders,
    a final ``/**`` everything below, ``[...]`` a class, ``\\x`` a literal x.

    As git's wildmatch: a run of three or more stars is ``**``, and a glob with a ``[`` never
    closed or a final lone backslash matches nothing (git aborts on it). ``anchored`` (a
    pattern with a slash): git compares the literal text before the first wildcard on its
    own and matches the rest as a pattern of its own, so ``**`` right after that text counts
    as starting the pattern ('a**/b' matches 'a/b' and 'ax/y/b', as git says)."""
    out: list[tuple[int, object]] = []
    i, n = 0, len(pattern)
    literal_end = next((at for at, char in enumerate(pattern) if char in "*?[\\"), n) \
        if anchored else 0
    while i < n:
        c = pattern[i]
        if c == "*":
            j = i
            while j < n and pattern[j] == "*":
                j += 1
            if j - i >= 2 and (i == literal_end or pattern[i - 1] == "/"):
                if j < n and pattern[j] == "/":
                    out += [(_OPTDIR, None), (_OPTDIR_BODY, None)]
                    i = j + 1
                    continue
                if j == n:
                    out.append((_ANY, None))
                    i = j
                    continue
            i = j
            if not out or out[-1][0] != _STAR:  # ** inside a name: one star
                out.append((_STAR, None))
            continue
        if c == "?":
            out.append((_ONE, None))
        elif c == "[":
            parsed = _parse_class(pattern, i)
            if parsed is None:
                return [(_VOID, None)]
            out.append((_CLASS, parsed[0]))
            i = parsed[1]
            continue
        elif c == "\\":
            if i + 1 == n:
                return [(_VOID, None)]
            i += 1
            out.append((_LIT, pattern[i]))
        else:
            out.append((_LIT, c))
        i += 1
    return out


def _as_regex(tokens: list[tuple[int, object]]) -> str:
    parts: list[str] = []
    for kind, value in tokens:
        if kind == _LIT:
            parts.append(re.escape(str(value)))
        elif kind == _ONE:
            parts.append("[^/]")
        elif kind == _STAR:
            parts.append("[^/]*")
        elif kind == _ANY:
            parts.append(".*")
        elif kind == _OPTDIR:
            parts.append("(?:.*/)?")
        elif kind == _CLASS:
            assert isinstance(value, _CharClass)
            parts.append(value.regex())
        elif kind == _VOID:
            parts.append("(?!)")
    return "".join(parts)


def _longest_literal(tokens: list[tuple[int, object]]) -> str:
    """The longest run of consecutive literal tokens (the first of equal length)."""
    best = ""
    run: list[str] = []
    for kind, value in [*tokens, (_ONE, None)]:  # a final non-literal ends the last run
        if kind == _LIT:
            run.append(str(value))
            continue
        if len(run) > len(best):
            best = "".join(run)
        run = []
    return best


class GlobPattern:
    """A compiled gitignore-style glob; :meth:`fullmatch` tells whether a whole
    '/'-separated path matches. ``anywhere``: may match after any leading folders."""

    def __init__(self, pattern: str, *, anywhere: bool = False) -> None:
        self.pattern = pattern
        self.anywhere = anywhere
        tokens = _tokens(pattern, anchored=not anywhere)
        if anywhere:
            tokens = [(_OPTDIR, None), (_OPTDIR_BODY, None), *tokens]
        self._tokens = tokens
        self.regex_source: str | None = None
        """The pattern as a regex safe for the C engine, or None (matched by the walk)."""
        if sum(kind in _UNBOUNDED for kind, _ in tokens) <= _SAFE_FOR_RE:
            self.regex_source = _as_regex(tokens)
        self._regex: re.Pattern[str] | None = None  # compiled when first used
        self.required = _longest_literal(tokens)
        """The longest run of literal characters every match contains ('' when none)."""

    def fullmatch(self, text: str) -> bool:
        if self.regex_source is not None:
            if self._regex is None:
                self._regex = re.compile(self.regex_source, re.DOTALL)
            return self._regex.fullmatch(text) is not None
        return self._walk(text)

    def _closure(self, states: set[int]) -> set[int]:
        """Add the states reachable without reading a character (skipping wildcards)."""
        tokens = self._tokens
        todo = list(states)
        while todo:
            i = todo.pop()
            if i < len(tokens):
                kind = tokens[i][0]
                nxt = i + 2 if kind == _OPTDIR else i + 1
                if kind in (_STAR, _ANY, _OPTDIR) and nxt not in states:
                    states.add(nxt)
                    todo.append(nxt)
                if kind == _OPTDIR and i + 1 not in states:
                    states.add(i + 1)
                    todo.append(i + 1)
        return states

    def _walk(self, text: str) -> bool:
        tokens = self._tokens
        end = len(tokens)
        states = self._closure({0})
        for char in text:
            following: set[int] = set()
            for i in states:
                if i == end:
                    continue
                kind, value = tokens[i]
                if kind == _LIT:
                    if value == char:
                        following.add(i + 1)
                elif kind == _ONE:
                    if char != "/":
                        following.add(i + 1)
                elif kind == _CLASS:
                    assert isinstance(value, _CharClass)
                    if value.matches(char):
                        following.add(i + 1)
                elif kind == _STAR:
                    if char != "/":
                        following.add(i)
                elif kind == _ANY:
                    following.add(i)
                elif kind == _OPTDIR_BODY:
                    following.add(i)
                    if char == "/":
                        following.add(i + 1)
            if not following:
                return False
            states = self._closure(following)
        return end in states
