"""Agent Skills: SKILL.md folders found in the project and PAICLI_HOME, their index for the
system prompt, and the ``load_skill`` tool that brings one into the conversation."""

from .catalog import MAX_INDEX_BYTES, MAX_INDEX_SKILLS, MAX_SKILL_BODY_CHARS, Skill, SkillCatalog
from .tool import LoadSkillTool

__all__ = ["MAX_INDEX_BYTES", "MAX_INDEX_SKILLS", "MAX_SKILL_BODY_CHARS", "LoadSkillTool",
           "Skill", "SkillCatalog"]
