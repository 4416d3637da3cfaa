"""The ``save_memory`` agent tool (behaviour §12, §16).

The model may propose a memory; it may never settle a conflict on its own. On a conflict the
tool either asks the person at once (when the UI handed it a ``resolve_conflict`` callback) or
returns both sides with status ``conflict`` and refuses until the model calls again with
``replace_id`` or ``keep_both=true`` for that same conflict, after asking the person. Either
way the answer is carried out by :func:`~paicli_tui.core.memory.decision.carry_out`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...resources import load_prompt
from ..contracts.asks import ConflictDecision, ConflictEntry, ConflictRequest
from ..contracts.secrets import sensitive_reason
from ..contracts.tools import ToolContext, ToolOutput, ToolStatus
from .canonical import canonical
from .decision import carry_out
from .entry import SCOPE_PROJECT, SCOPES, SOURCE_AGENT, MemoryEntry
from .guard import save_refusal

if TYPE_CHECKING:
    from .book import MemoryBook, SaveResult


def _conflict_text(content: str, found: tuple[MemoryEntry, ...]) -> str:
    lines = [f"Not saved: {content!r} conflicts with these memories:"]
    lines += [f"- id={e.id}: {e.content}" for e in found]
    lines.append(
        "Do not decide this yourself. Show both to the person and ask which to keep. Then call "
        "save_memory again with the same content and replace_id=<id> to replace that memory, "
        "or keep_both=true to keep both; or drop it if the person cancels.")
    return "\n".join(lines)


class SaveMemoryTool:
    """Saves one durable fact to long-term memory on the model's proposal."""

    name = "save_memory"
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "content": {"type": "string", "description": "The fact, one sentence."},
            "scope": {"type": "string", "enum": list(SCOPES),
                      "description": "project (default): this project only; global: everywhere."},
            "replace_id": {"type": "string",
                           "description": "After a reported conflict, the id the person chose "
                                          "to replace."},
            "source_file": {"type": "string",
                            "description": "Project-relative path of the file this fact is "
                                           "about (e.g. pom.xml), so the memory is flagged "
                                           "when that file changes."},
            "keep_both": {"type": "boolean",
                          "description": "After a reported conflict, true when the person "
                                         "chose to keep both."},
        },
        "required": ["content"],
        "additionalProperties": False,
    }
    requires_approval = False

    @property
    def description(self) -> str:
        return load_prompt("memory_save_tool").strip()

    def __init__(self, book: MemoryBook) -> None:
        self.book = book
        # (session id, canonical content) -> (ids of the conflict reported to the model, the
        # person's message of the turn it was reported in).
        self._pending: dict[tuple[str, str], tuple[tuple[str, ...], str]] = {}

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> ToolOutput:
        content = arguments.get("content")
        scope = arguments.get("scope") or SCOPE_PROJECT
        replace_id = arguments.get("replace_id")
        keep_both = arguments.get("keep_both") is True
        source_file = arguments.get("source_file")
        if source_file is not None and not isinstance(source_file, str):
            return ToolOutput("source_file must be a project-relative path.",
                              status=ToolStatus.FAILED)
        if not isinstance(content, str) or not content.strip():
            return ToolOutput("save_memory needs a non-empty 'content' string.",
                              status=ToolStatus.FAILED)
        if scope not in SCOPES:
            return ToolOutput(f"scope must be one of {', '.join(SCOPES)}.",
                              status=ToolStatus.FAILED)
        refusal = save_refusal(context.session, context.call_id)
        if refusal:
            return ToolOutput(refusal, status=ToolStatus.DENIED)
        why = sensitive_reason(content)
        if why:  # the model can never override this; only the person, with /save
            return ToolOutput(f"Refused: memories never hold passwords, keys, tokens or "
                              f"personal contact details ({why}).", status=ToolStatus.DENIED)
        self.book.session = context.session
        key = (context.session.session_id, canonical(content))
        pending = self._pending.get(key)
        if pending and (keep_both or isinstance(replace_id, str)):
            ids, asked_in = pending
            if context.session.current_user_input == asked_in:
                # Same turn as the report: the person has not answered, so the model would be
                # deciding alone (behaviour §12).
                return ToolOutput("Not saved: the person has not decided yet. Show them both "
                                  "memories, end your turn with the question, and call again "
                                  "with their answer.", status=ToolStatus.CONFLICT)
            return self._settle(key, content, scope, ids, replace_id, keep_both,
                                source_file or None, asked_in)
        result = self.book.save(content, scope=scope, source=SOURCE_AGENT,
                                refresh_duplicate=False, source_file=source_file or None)
        if result.status != "conflict":
            return self._report(result, ignored_replace=bool(replace_id) or keep_both)
        if context.resolve_conflict is not None:
            return await self._ask_person(context, content, scope, result, source_file or None)
        self._pending[key] = (tuple(e.id for e in result.conflicts),
                              context.session.current_user_input)
        return ToolOutput(_conflict_text(content, result.conflicts), status=ToolStatus.CONFLICT)

    def _settle(self, key: tuple[str, str], content: str, scope: str,
                pending: tuple[str, ...], replace_id: str | None, keep_both: bool,
                source_file: str | None, asked_in: str) -> ToolOutput:
        if not keep_both and replace_id not in pending:
            return ToolOutput(f"replace_id must be one of the conflicting ids: "
                              f"{', '.join(pending)}.", status=ToolStatus.FAILED)
        decision = ConflictDecision.KEEP_BOTH if keep_both else ConflictDecision.REPLACE
        result = carry_out(self.book, content, decision, replace_id=replace_id,
                           conflicting=pending, scope=scope, source=SOURCE_AGENT,
                           source_file=source_file)
        if result.written:
            self._pending.pop(key, None)
        elif result.status == "conflict":  # more entries stand in the way; the person decides
            ids = tuple(dict.fromkeys(pending + tuple(e.id for e in result.conflicts)))
            self._pending[key] = (ids, asked_in)
        return self._report(result)

    async def _ask_person(self, context: ToolContext, content: str, scope: str,
                          result: SaveResult, source_file: str | None) -> ToolOutput:
        assert context.resolve_conflict is not None
        request = ConflictRequest(content, tuple(ConflictEntry(e.id, e.content)
                                                 for e in result.conflicts))
        decision, chosen = await context.resolve_conflict(request)
        return self._report(carry_out(
            self.book, content, decision, replace_id=chosen,
            conflicting=[e.id for e in result.conflicts], scope=scope, source=SOURCE_AGENT,
            source_file=source_file))

    @staticmethod
    def _report(result: SaveResult, ignored_replace: bool = False) -> ToolOutput:
        entry = result.entry
        if result.status == "saved" and entry is not None:
            note = " (nothing conflicted, so replace_id/keep_both were not needed)" \
                if ignored_replace else ""
            return ToolOutput(f"Saved memory {entry.id} ({entry.effective_scope}){note}.")
        if result.status == "replaced" and entry is not None:
            return ToolOutput(f"Replaced memory {entry.id} with the new text.")
        if result.status == "duplicate" and entry is not None:
            return ToolOutput(f"Already remembered as {entry.id}; nothing added.")
        if result.status == "conflict":
            return ToolOutput(_conflict_text(result.entry.content if result.entry else "",
                                             result.conflicts), status=ToolStatus.CONFLICT)
        if result.status == "cancelled":
            return ToolOutput("The person chose not to save this memory.",
                              status=ToolStatus.DENIED)
        return ToolOutput(f"Not saved: {result.message}", status=ToolStatus.FAILED)
