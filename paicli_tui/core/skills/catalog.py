"""Finding skills and building their index.

A skill is a folder holding a ``SKILL.md`` whose front matter names it and says when to use
it (the Agent Skills layout). Folders are searched in a fixed order — the project's
``.paicli/skills``, the project's ``.claude/skills`` (so skills written for Claude Code work),
then ``PAICLI_HOME/skills`` — and the first folder to define a name wins.

The index that goes into the system prompt is sorted by name and bounded (20 skills, 4 KB, as
in the reference), so its bytes only change when a skill file does and the provider's cached
prefix survives. A broken skill is reported with its reason and left out; it never stops the
session.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ...paths import HomePaths, ProjectPaths
from .frontmatter import FrontMatterError, parse

MAX_INDEX_SKILLS = 20
MAX_INDEX_BYTES = 4 * 1024
MAX_SKILL_BODY_CHARS = 5 * 1024
MAX_SKILL_FILE_BYTES = 1024 * 1024
"""A SKILL.md larger than this is refused unread (a skill is instructions, not data)."""
MAX_DESCRIPTION_CHARS = 1024
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
SKILL_FILE = "SKILL.md"


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    path: Path
    """The SKILL.md file."""
    body: str
    source: str
    """Which folder it came from: ``project``, ``claude`` or ``home``."""
    warnings: tuple[str, ...] = ()

    def injected_text(self) -> str:
        """The body as the model receives it, cut to the limit with a pointer to the rest."""
        body = self.body.strip()
        if len(body) > MAX_SKILL_BODY_CHARS:
            body = (body[:MAX_SKILL_BODY_CHARS].rstrip()
                    + f"\n\n[skill text cut at {MAX_SKILL_BODY_CHARS:,} characters; the whole "
                      f"file is {self.path}]")
        return (f'<skill name="{self.name}">\nInstructions of the skill "{self.name}", loaded '
                f"on request. Follow them for the current task.\n\n{body}\n</skill>")


@dataclass(frozen=True)
class SkillProblem:
    path: Path
    reason: str


@dataclass
class SkillCatalog:
    skills: dict[str, Skill] = field(default_factory=dict)
    problems: list[SkillProblem] = field(default_factory=list)

    @classmethod
    def discover(cls, project: ProjectPaths, home: HomePaths) -> SkillCatalog:
        sources = ("project", "claude", "home")
        return cls.from_folders(list(zip(sources, project.skills_dirs(home), strict=True)))

    @classmethod
    def from_folders(cls, folders: list[tuple[str, Path]]) -> SkillCatalog:
        catalog = cls()
        for source, folder in folders:
            catalog._scan(folder, source)
        return catalog

    def _scan(self, folder: Path, source: str) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return  # no such folder: nothing to offer
        for entry in entries:
            skill_file = Path(entry.path) / SKILL_FILE
            try:
                if not entry.is_dir() or not skill_file.is_file():
                    continue
            except OSError:
                continue
            skill = self._read(skill_file, source)
            if skill is not None and skill.name not in self.skills:
                self.skills[skill.name] = skill

    def _read(self, skill_file: Path, source: str) -> Skill | None:
        try:
            if skill_file.stat().st_size > MAX_SKILL_FILE_BYTES:
                return self._problem(skill_file, "larger than 1 MB")
            text = skill_file.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            return self._problem(skill_file, f"unreadable ({exc.strerror or exc})")
        try:
            document = parse(text)
        except FrontMatterError as exc:
            return self._problem(skill_file, str(exc))
        name = document.fields.get("name", "").strip()
        description = " ".join(document.fields.get("description", "").split())
        if not name:
            return self._problem(skill_file, "the front matter has no 'name'")
        if not _NAME.match(name):
            return self._problem(skill_file, f"name {name!r} is not lower-case letters, digits "
                                             "and hyphens (at most 64)")
        if not description:
            return self._problem(skill_file, "the front matter has no 'description'")
        warnings = []
        if name != skill_file.parent.name:
            warnings.append(f"its folder is {skill_file.parent.name!r}, not {name!r}")
        if len(description) > MAX_DESCRIPTION_CHARS:
            description = description[:MAX_DESCRIPTION_CHARS - 1] + "…"
            warnings.append("description cut at 1,024 characters")
        return Skill(name=name, description=description, path=skill_file,
                     body=document.body, source=source, warnings=tuple(warnings))

    def _problem(self, path: Path, reason: str) -> None:
        self.problems.append(SkillProblem(path, reason))
        return None

    def get(self, name: str) -> Skill | None:
        return self.skills.get(name.strip())

    def sorted(self) -> list[Skill]:
        return [self.skills[name] for name in sorted(self.skills)]

    def index_entries(self) -> list[tuple[str, str]]:
        """(name, description) pairs for the system prompt: sorted, at most 20 entries and
        4 KB of text; later names are left out (``/skills`` still lists them)."""
        out: list[tuple[str, str]] = []
        used = 0
        for skill in self.sorted()[:MAX_INDEX_SKILLS]:
            line = f"- {skill.name}: {skill.description}\n"
            size = len(line.encode("utf-8"))
            if used + size > MAX_INDEX_BYTES:
                break
            out.append((skill.name, skill.description))
            used += size
        return out

    def changes_since(self, started: SkillCatalog) -> str:
        """Skills the folders (read now, ``self``) gained or lost since a session started
        with ``started``, as "new: `a`; gone: `b`" ("" when none): the session keeps its
        catalog, so the system prompt and the provider's prefix cache stay the same."""
        added = sorted(set(self.skills) - set(started.skills))
        gone = sorted(set(started.skills) - set(self.skills))
        return "; ".join(f"{label} {', '.join(f'`{name}`' for name in names)}"
                         for label, names in (("new:", added), ("gone:", gone)) if names)

    def report(self) -> str:
        """What ``/skills`` shows: each skill with where it came from, then the broken ones
        with the reason they were left out (Markdown)."""
        lines: list[str] = []
        if self.skills:
            indexed = {name for name, _ in self.index_entries()}
            lines.append(f"**Skills** ({len(self.skills)}) — the model loads one with "
                         "`load_skill` when a task matches:")
            for skill in self.sorted():
                mark = "" if skill.name in indexed else " *(not in the prompt's index: over "\
                    "20 skills or 4 KB)*"
                lines.append(f"- `{skill.name}` ({skill.source}): {skill.description}{mark}")
                lines.extend(f"  - note: {warning}" for warning in skill.warnings)
        else:
            lines.append("No skills. Put one in `.paicli/skills/<name>/SKILL.md` (or "
                         "`.claude/skills/`, or `PAICLI_HOME/skills/`) with front matter "
                         "`name:` and `description:`.")
        if self.problems:
            lines.append("")
            lines.append(f"**Left out** ({len(self.problems)}):")
            lines.extend(f"- `{p.path}`: {p.reason}" for p in self.problems)
        return "\n".join(lines)
