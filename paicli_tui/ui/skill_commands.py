"""Skills as slash commands: ``/release v1.4`` asks the model to use the skill ``release``,
as Claude Code runs a skill by its name (typed here it read "Unknown command /release. Did
you mean /resume?"). The model loads the skill with ``load_skill`` as it would unasked, so
the conversation keeps one way in for a skill's text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .slash import BY_NAME, SlashCommand

if TYPE_CHECKING:
    from ..core.skills import SkillCatalog

SKILL_USAGE = "[what to do]"


def skill_commands(catalog: SkillCatalog | None) -> list[SlashCommand]:
    """One command per skill the session offers, for the slash menu; a skill named as a
    command of the program's (``/help``) is left to the command."""
    if catalog is None:
        return []
    return [SlashCommand(f"/{skill.name}", SKILL_USAGE, f"Skill: {skill.description}")
            for skill in catalog.sorted() if f"/{skill.name}" not in BY_NAME]


def skill_request(name: str, rest: str) -> str:
    """What the model is sent for ``/name rest``."""
    ask = f'Use the skill "{name}": load it with load_skill, then follow it'
    return f"{ask} for this: {rest}" if rest else f"{ask}."
