"""The four fixed sections of a summary: checking them, and putting a near miss right.

A summary must have exactly four sections, in order (behaviour §5). Many models get close
without getting it exactly: headings translated into the language of the conversation,
sections in another order, an extra "Notes" section, a heading repeated. Those are put right
here without a model call (the content is kept, only the structure changes); a reply with no
usable structure (prose, a truncated draft with two sections) still goes to the one repair
request, and then to the model-free digest.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SECTION_TITLES = (
    "Current goal and success criteria",
    "User requirements and confirmed decisions",
    "Work done and evidence",
    "Open problems and next steps",
)
_WANTED = {t.lower(): t for t in SECTION_TITLES}


def _heading(line: str) -> tuple[str, str] | None:
    r"""(hashes, title) of a Markdown heading line as the pattern
    ``^\s{0,3}(#{1,6})\s*(?:\d+[.)]\s*)?(.+?)\s*#*\s*$`` reads it, or None; in one pass.
    The pattern tried every split of a run of blanks three ways: a summary line of a
    heading and 4,000 blanks took minutes, one up to the reply cap held the event loop
    (and Esc) for good, the summary's time limit with it."""
    n = len(line)
    at = 0
    while at < n and at < 3 and line[at].isspace():
        at += 1
    hashes = 0
    while at + hashes < n and hashes < 6 and line[at + hashes] == "#":
        hashes += 1
    if hashes == 0:
        return None
    if at + hashes == n:  # nothing left for the title: one '#' fewer, it is the title
        if hashes == 1:
            return None
        hashes -= 1
    start = at + hashes
    at = start
    while at < n and line[at].isspace():
        at += 1
    digits = at
    while digits < n and line[digits].isdigit():
        digits += 1
    if digits > at and digits < n and line[digits] in ".)":
        after = digits + 1
        while after < n and line[after].isspace():
            after += 1
        if after < n:
            at = after
        elif after > digits + 1:
            at = after - 1  # the last blank is the title
        # else: the number itself starts the title (at stays)
    elif at == n:
        at = n - 1  # the last blank is the title
    rest = line[at:]
    end = len(rest)
    while end > 0 and rest[end - 1].isspace():
        end -= 1
    while end > 0 and rest[end - 1] == "#":
        end -= 1
    while end > 0 and rest[end - 1].isspace():
        end -= 1
    return line[start - hashes:start], rest[:max(1, end)]


def _title_key(raw: str) -> str:
    return raw.strip().rstrip(":：").strip().lower()


def validate_summary(text: str) -> list[str]:
    """Problems with a summary's structure ([] = the four sections, once each, in order)."""
    found: list[str] = []
    for line in text.splitlines():
        heading = _heading(line)
        if heading:
            title = _WANTED.get(_title_key(heading[1]))
            if title is not None:
                found.append(title)
    problems = [f"missing section: {t}" for t in SECTION_TITLES if t not in found]
    if len(found) != len(set(found)):
        problems.append("a section appears more than once")
    if not problems and found != list(SECTION_TITLES):
        problems.append("sections are out of order")
    return problems


@dataclass
class _Section:
    level: int
    title: str
    body: list[str] = field(default_factory=list)


def _sections(text: str) -> tuple[list[str], list[_Section]]:
    preamble: list[str] = []
    sections: list[_Section] = []
    in_code = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
        heading = None if in_code else _heading(line)
        if heading:
            sections.append(_Section(len(heading[0]), heading[1]))
        elif sections:
            sections[-1].body.append(line)
        else:
            preamble.append(line)
    return preamble, sections


def _render(bodies: list[list[str]]) -> str:
    parts = []
    for number, (title, body) in enumerate(zip(SECTION_TITLES, bodies, strict=True), start=1):
        text = "\n".join(body).strip() or "none"
        parts.append(f"## {number}. {title}\n{text}")
    return "\n\n".join(parts)


def _by_title(preamble: list[str], sections: list[_Section]) -> str | None:
    """Every fixed title present (any order, repeats, extra sections): regroup under them."""
    bodies: list[list[str]] = [[] for _ in SECTION_TITLES]
    current: int | None = None
    for section in sections:
        title = _WANTED.get(_title_key(section.title))
        if title is not None:
            current = SECTION_TITLES.index(title)
            bodies[current] += section.body
        elif current is not None:  # an extra section: kept inside the one before it
            bodies[current] += [f"**{section.title.strip()}**", *section.body]
        else:
            preamble = [*preamble, f"**{section.title.strip()}**", *section.body]
    found = {_WANTED[_title_key(s.title)] for s in sections if _title_key(s.title) in _WANTED}
    if len(found) != len(SECTION_TITLES):
        return None
    bodies[0] = [*preamble, *bodies[0]]
    return _render(bodies)


def _by_position(preamble: list[str], sections: list[_Section]) -> str | None:
    """Exactly four top-level sections under other titles (another language, other words):
    the model kept the structure, so the fixed titles are put on them in order."""
    if not sections:
        return None
    top = min(s.level for s in sections)
    groups: list[_Section] = []
    for section in sections:
        if section.level == top:
            groups.append(_Section(top, section.title, list(section.body)))
        else:
            groups[-1].body += [f"{'#' * section.level} {section.title}", *section.body]
    if len(groups) != len(SECTION_TITLES):
        return None
    bodies = [g.body for g in groups]
    bodies[0] = [*preamble, *bodies[0]]
    return _render(bodies)


def normalise_summary(text: str) -> str | None:
    """``text`` if it is a valid summary; else the same content under the four fixed
    sections when its structure allows it; else None (a repair request is needed)."""
    if not validate_summary(text):
        return text
    preamble, sections = _sections(text)
    fixed = _by_title(preamble, sections) or _by_position(preamble, sections)
    if fixed is not None and not validate_summary(fixed):
        return fixed
    return None
