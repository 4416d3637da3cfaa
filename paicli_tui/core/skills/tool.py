"""``load_skill``: bring a skill's instructions into the conversation.

The tool result itself stays short; the skill's body follows as an internal user message
(marked as a skill injection, so it never counts as a turn of the person's and a summary that
drops it names the skill so the model can load it again).
"""

from __future__ import annotations

from typing import Any

from ..contracts.tools import ToolContext, ToolOutput, ToolStatus
from ..messages import InternalKind, Message, Role
from .catalog import SkillCatalog


class LoadSkillTool:
    name = "load_skill"
    description = ("Load the instructions of one skill from the skill index by its name. "
                   "Call it when a task matches a skill's description, before doing the task.")
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {"name": {"type": "string", "description": "The skill's name."}},
        "required": ["name"],
        "additionalProperties": False,
    }
    requires_approval = False

    def __init__(self, catalog: SkillCatalog) -> None:
        self.catalog = catalog

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> ToolOutput:
        name = arguments.get("name")
        if not isinstance(name, str) or not name.strip():
            return ToolOutput("load_skill needs the skill's name.", status=ToolStatus.FAILED)
        skill = self.catalog.get(name)
        if skill is None:
            known = ", ".join(sorted(self.catalog.skills)) or "none"
            return ToolOutput(f"No skill named {name.strip()!r}. Skills: {known}.",
                              status=ToolStatus.FAILED)
        text = skill.injected_text()
        context.session.inject(Message(Role.USER, text, internal=InternalKind.SKILL,
                                       meta={"skill": skill.name}))
        return ToolOutput(f"Loaded skill {skill.name!r} ({len(text):,} characters); its "
                          "instructions follow in the next message.")
